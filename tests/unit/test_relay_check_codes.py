"""Every line `lineup relay check` prints has a code the app words in both languages (hub/web/relay_check.py)."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from hub.relay.admin import check
from hub.relay.config import Person, RelayConfig
from hub.web.relay_check import CODES, coded
from tests.support.fake_wukong import FakeWuKong

ROOT = Path(__file__).resolve().parents[2]
MANAGER = "manager-secret"


@pytest.fixture
async def fakes() -> AsyncIterator[dict[str, FakeWuKong]]:
    made = {"v2": FakeWuKong("v2", manager_token=MANAGER), "open": FakeWuKong("compat", token_auth=False),
            "other": FakeWuKong("other")}
    for fake in made.values():
        await fake.start()
    made["v2"].tokens[("lineup-hub", 2)] = "hub-token"
    yield made
    for fake in made.values():
        await fake.stop()


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{s.getsockname()[1]}"


async def every_line(fakes: dict[str, FakeWuKong]) -> list[tuple[str, str]]:
    v2 = fakes["v2"]
    base = RelayConfig(enabled=True, ws_url=v2.ws_url, api_url=v2.api_url, manager_token=MANAGER,
                       people=(Person("alice", "owner"),), connect_timeout_s=2)
    runs = [
        (RelayConfig(enabled=True, ws_url=""), "t", None),
        (base, "t", {"state": "connected", "code": None, "line": "v2"}),
        (base, "hub-token", None),                                     # the line, signs in, token auth on, API ok
        (replace(base, server_line="compat"), "wrong", None),           # the other line; the hub's token refused
        (replace(base, ws_url=fakes["other"].ws_url, api_url="", people=()), "t", None),
        (replace(base, ws_url=closed_port(), manager_token="wrong"), "t", None),  # unreachable; API 401
        (replace(base, ws_url=fakes["open"].ws_url, api_url="http://127.0.0.1:9/"), "t",
         {"state": "error", "code": "relay_not_in_whitelist", "line": "compat"}),
    ]
    lines: list[tuple[str, str]] = []
    for config, token, running in runs:
        lines += await check(config, token, "lineup-check", running)
    return lines


async def test_every_line_of_the_check_has_a_code_and_words_in_both_languages(
        fakes: dict[str, FakeWuKong]) -> None:
    lines = await every_line(fakes)
    found = [coded(verdict, text) for verdict, text in lines]
    missing = [f"{line['verdict']} {line['text']}" for line in found if "code" not in line]
    assert not missing, "lines of `lineup relay check` the app cannot word:\n" + "\n".join(missing)
    seen = {line["code"] for line in found}
    # token_auth_unknown needs a server that neither accepts nor refuses a wrong token: its words are checked below
    assert seen >= {code for _, code, _ in CODES} - {"token_auth_unknown"}, {c for _, c, _ in CODES} - seen
    for language in ("en", "zh"):
        strings = (ROOT / "ui" / "lib" / f"strings-{language}.js").read_text()
        for _, code, pattern in CODES:
            words = re.search(rf"'away\.verdict\.{code}': '([^']*)'", strings)
            assert words, f"strings-{language}.js has no away.verdict.{code}"
            named = set(re.findall(r"\{(\w+)\}", words.group(1)))
            assert named <= set(pattern.groupindex), (language, code, named)


def test_a_line_the_table_does_not_know_keeps_its_english() -> None:
    assert coded("ok", "something new") == {"verdict": "ok", "text": "something new"}
    line = coded("ok", "the hub signs in as 'lineup-hub'")
    assert line["code"] == "hub_signs_in" and line["params"] == {"uid": "lineup-hub"}
