"""The line protocol between LineUp's Hermes plugin and its bridge (integrations/hermes_plugin/lineproto.py): every
line from the other side is checked before anything acts on it, and a line too long is dropped without being held
in memory."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any, cast

import pytest

from hub.connect.integrations import hermes_lineproto
from hub.sdk import approvals

lineproto = hermes_lineproto()  # the plugin's own file, as the bridge imports it
BadLine, LineReader, check, encode = lineproto.BadLine, lineproto.LineReader, lineproto.check, lineproto.encode
PLUGIN = Path(cast(str, lineproto.__file__)).parent

GOOD: dict[str, list[dict[str, Any]]] = {
    "to_bridge": [
        {"t": "hello", "v": 1, "boot": "b0a1", "hermes": "0.19.0"},
        {"t": "send", "id": "s1", "chat": "conv_1", "text": "Done: ✓ é 中文"},
        {"t": "approval", "id": "a1", "chat": "conv_1", "session": "agent:main:lineup:dm:conv_1",
         "command": "rm -rf build", "description": "recursive delete", "permanent": True, "smart_denied": False,
         "timeout": 60, "deadline": 1_800_000_000.5},
        {"t": "approval_done", "id": "a1.done", "how": "timeout"},
        {"t": "clarify", "id": "q1", "chat": "conv_1", "session": "s", "question": "Which?", "choices": ["a", "b"],
         "timeout": 3600, "deadline": 1_800_000_000},
        {"t": "clarify", "id": "q2", "chat": "conv_1", "session": "s", "question": "Name?", "choices": None,
         "timeout": 3600, "deadline": 1_800_000_000},
        {"t": "clarify_done", "id": "q1.done"},
        {"t": "ack", "id": "m1", "applied": False},
    ],
    "to_plugin": [
        {"t": "ready", "agent": "agt_1"},
        {"t": "ack", "id": "s1", "ok": False, "error": "not_found: no conversation"},
        {"t": "message", "id": "m1", "chat": "conv_1", "text": "/approve", "user": "usr_1"},
        {"t": "answer", "id": "a1", "choice": "session"},
        {"t": "answer", "id": "a1", "choice": "deny", "reason": "not on prod"},
        {"t": "reply", "id": "q1", "text": ""},
        {"t": "fatal", "reason": "revoked"},
    ],
}


@pytest.mark.parametrize(("direction", "message"), [(d, m) for d, ms in GOOD.items() for m in ms])
def test_every_kind_goes_through_whole(direction: str, message: dict[str, Any]) -> None:
    line = encode(message)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    got = check(line[:-1], direction)
    expected = {k: (float(v) if isinstance(v, int) and not isinstance(v, bool) else v)
                for k, v in message.items() if v is not None}
    assert got == expected


HOSTILE: list[tuple[str, bytes, str]] = [
    ("to_bridge", b"", "not JSON"),
    ("to_bridge", b"{", "not JSON"),
    ("to_bridge", b"\xff\xfe", "not JSON"),
    ("to_bridge", b"[1, 2]", "not an object"),
    ("to_bridge", b'"hello"', "not an object"),
    ("to_bridge", b'{"t": "nuke", "id": "x"}', "unknown kind"),
    ("to_bridge", b'{"id": "x"}', "unknown kind"),
    ("to_bridge", b'{"t": ["send"]}', "unknown kind"),
    ("to_bridge", b'{"t": "answer", "id": "a1", "choice": "once"}', "unknown kind"),  # plugin-bound kind
    ("to_plugin", b'{"t": "approval", "id": "a1"}', "unknown kind"),                 # bridge-bound kind
    ("to_bridge", b'{"t": "send", "id": "s1", "chat": "c"}', "`text` is missing"),
    ("to_bridge", b'{"t": "send", "id": "s1", "chat": "c", "text": 5}', "must be text"),
    ("to_bridge", b'{"t": "send", "id": "../../etc", "chat": "c", "text": "x"}', "`id` must be"),
    ("to_bridge", b'{"t": "send", "id": "s1", "chat": "c d", "text": "x"}', "`chat` must be"),
    ("to_bridge", json.dumps({"t": "send", "id": "s" * 129, "chat": "c", "text": "x"}).encode(), "`id` must be"),
    ("to_bridge", json.dumps({"t": "send", "id": "s1", "chat": "c", "text": "x" * (256 * 1024 + 1)}).encode(),
     "over 262,144"),
    ("to_bridge", b'{"t": "approval", "id": "a", "chat": "c", "session": "s", "command": "ls", "permanent": 1, '
                  b'"timeout": 5, "deadline": 9}', "true or false"),
    ("to_bridge", b'{"t": "approval", "id": "a", "chat": "c", "session": "s", "command": "ls", "permanent": true, '
                  b'"timeout": NaN, "deadline": 9}', "not JSON"),
    ("to_bridge", b'{"t": "approval", "id": "a", "chat": "c", "session": "s", "command": "ls", "permanent": true, '
                  b'"timeout": true, "deadline": 9}', "must be a number"),
    ("to_bridge", b'{"t": "approval", "id": "a", "chat": "c", "session": "s", "command": "ls", "permanent": true, '
                  b'"timeout": 0, "deadline": 9}', "more than 0"),
    ("to_bridge", b'{"t": "approval", "id": "a", "chat": "c", "session": "s", "command": "ls", "permanent": true, '
                  b'"timeout": 1e9, "deadline": 9}', "at most 7 days"),
    ("to_bridge", b'{"t": "clarify", "id": "q", "chat": "c", "session": "s", "question": "?", "choices": [1], '
                  b'"timeout": 5, "deadline": 9}', "list of at most 50 texts"),
    ("to_bridge", json.dumps({"t": "clarify", "id": "q", "chat": "c", "session": "s", "question": "?",
                              "choices": ["x"] * 51, "timeout": 5, "deadline": 9}).encode(), "at most 50"),
    ("to_plugin", b'{"t": "answer", "id": "a1", "choice": "yolo"}', "`choice` must be one of"),
    ("to_plugin", b'{"t": "ack", "id": "a1", "ok": "yes"}', "true or false"),
    ("to_plugin", b'[' * 100_000 + b']' * 100_000, "not JSON"),                       # nesting past the parser
]


@pytest.mark.parametrize(("direction", "line", "why"), HOSTILE)
def test_hostile_lines_are_refused_saying_why(direction: str, line: bytes, why: str) -> None:
    with pytest.raises(BadLine, match=why):
        check(line, direction)


def test_unknown_fields_are_dropped_not_passed_on() -> None:
    got = check(b'{"t": "message", "id": "m1", "chat": "c", "text": "hi", "__class__": "x", "user": "u"}',
                "to_plugin")
    assert got == {"t": "message", "id": "m1", "chat": "c", "text": "hi", "user": "u"}


def test_a_line_too_long_to_send_is_refused_before_it_is_written() -> None:
    with pytest.raises(BadLine, match="over the"):
        encode({"t": "send", "id": "s1", "chat": "c", "text": "\u0001" * (lineproto.MAX_LINE_BYTES // 6 + 10)})


def feed(chunks: list[bytes]) -> asyncio.StreamReader:
    stream = asyncio.StreamReader()
    for chunk in chunks:
        stream.feed_data(chunk)
    stream.feed_eof()
    return stream


async def test_a_huge_line_is_skipped_to_its_newline_holding_at_most_a_chunk() -> None:
    limit = 1000
    huge = [b"x" * 700] * 50  # 35,000 bytes without a newline: far over the limit
    reader = LineReader(feed([b'{"a":1}\n', *huge, b"x\n", b'{"b":2}\n', b"tail"]), max_bytes=limit)
    biggest = 0
    got = []
    while True:
        line = await reader.next()
        biggest = max(biggest, len(reader._buffer))
        if line is None:
            break
        got.append(line)
    assert got == [b'{"a":1}', b'{"b":2}', b"tail"]
    assert reader.dropped == 1
    assert biggest <= limit + LineReader.CHUNK


async def test_a_long_line_that_ends_in_one_chunk_is_dropped_too() -> None:
    reader = LineReader(feed([b"y" * 5000 + b"\nok\n"]), max_bytes=100)
    assert await reader.next() == b"ok"
    assert await reader.next() is None
    assert reader.dropped == 1


def test_the_plugin_is_standard_library_and_hermes_only() -> None:
    """It runs in Hermes's venv, where LineUp (and its dependencies) are not installed."""
    allowed_roots = {"gateway", "hermes_cli", "tools"}
    import sys

    for path in PLUGIN.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            for name in names:
                root = name.split(".")[0]
                assert root in sys.stdlib_module_names or root in allowed_roots or root == "__future__", \
                    f"{path.name} imports {name}"
    assert (PLUGIN / "plugin.yaml").read_text().splitlines()[:3] == ["name: lineup", "label: LineUp",
                                                                    "kind: platform"]


def test_the_plugin_and_the_sdk_agree_on_what_fits_on_a_card() -> None:
    tree = ast.parse((PLUGIN / "adapter.py").read_text())
    budget = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "CARD_BUDGET_BYTES" for t in node.targets))
    assert eval(compile(ast.Expression(budget), "adapter.py", "eval")) == approvals.CARD_BUDGET_BYTES  # noqa: S307 - the adapter's own constant expression, parsed from its source
