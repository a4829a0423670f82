"""chain.link_row (the writer's msgspec form) gives exactly chain.link's value (json.dumps), so the chain of
existing databases still verifies and an export checks with the few lines of code in chain.py's docstring."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.store import chain

PREVIOUS = "7f" * 32
PAYLOAD = json.dumps({"content": "héllo \"wörld\"\n\u2028 ✓ 😀", "n": 1.5}, ensure_ascii=False)
ROW = (42, "evt_018f", "message.created", "ws_1", "conv_1", None, None, "agent:agt_1", "2026-01-01T00:00:00.000Z",
       "2026-01-01T00:00:00.001Z", PAYLOAD)


def same(row: tuple[Any, ...]) -> None:
    assert chain.link_row(PREVIOUS, row) == chain.link(PREVIOUS, row)


def test_every_code_point_is_written_as_json_dumps_writes_it() -> None:
    # Both encoders escape one character at a time: every code point (controls, quotes, backslash, DEL, C1,
    # U+2028/9, BOM, non-BMP) once on its own and all of them in runs, between other text.
    code_points = [cp for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]
    for cp in range(0x100):
        same((cp, chr(cp), f"a{chr(cp)}b", None))
    for start in range(0, len(code_points), 4096):
        text = "".join(map(chr, code_points[start:start + 4096]))
        same((start, text, f'"{text}\\', None, "plain"))


def test_a_lone_surrogate_fails_the_same_way() -> None:
    for row in ((1, "\ud800"), (1, "a\udfffb"), (1, "ok", "\udc80")):
        with pytest.raises(UnicodeEncodeError):
            chain.link(PREVIOUS, row)
        with pytest.raises(UnicodeEncodeError):
            chain.link_row(PREVIOUS, row)


@pytest.mark.parametrize("value", [0, 1, -1, 2**31, 2**53 + 1, 2**63 - 1, -2**63, 2**64 - 1, 2**64, -2**64 - 1,
                                   10**40, None, "", True, False, 1.5, 1e16, 1e-7, float("nan"), float("inf"),
                                   {"b": 1, "a": [1, 2.5, "x"]}, [1, "two"], "ünïcode"])
def test_other_values_give_the_same_value_as_link(value: Any) -> None:
    same((1, "evt", value, None))


def test_subclasses_of_str_and_int_go_through_link() -> None:
    class Text(str):
        pass

    class Number(int):
        pass

    same((Number(3), Text("x"), "y"))


def test_a_real_row() -> None:
    same(ROW)
    assert chain.link_row(chain.GENESIS, ROW) == chain.link(chain.GENESIS, ROW)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(), st.text(), st.floats(allow_nan=False)), max_size=12))
def test_any_row_of_text_numbers_and_nulls(values: list[Any]) -> None:
    same(tuple(values))
