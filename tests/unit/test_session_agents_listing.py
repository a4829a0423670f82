"""The agent list of New session (hub/sessions/agents.py, probes.py): answered without waiting for a program being
asked (gemini's ACP flag), a start of that agent waits for the answer, and modes carry their kind from the first list."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from hub.sessions.agents import Catalogue
from hub.sessions.probes import Probes, ask_gemini, gemini_flag_from_help
from hub.settings import SessionSettings


def program(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


async def test_the_list_never_waits_for_a_program_being_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gemini = program(tmp_path, "gemini", "exit 0")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    asked: list[str] = []

    async def ask(name: str) -> str:  # an answer that comes only when the test gives it (gemini --help hanging)
        asked.append(name)
        return await answer

    catalogue = Catalogue(SessionSettings(roots=(tmp_path,)), tmp_path)
    catalogue.probes = Probes(ask)
    catalogue.probe_all()
    listed = catalogue.peek("gemini")
    assert listed is not None and listed.checking and listed.command == [str(gemini)]
    await asyncio.sleep(0)
    assert catalogue.peek("gemini") is not None and asked == [str(gemini)]  # asked once, however often listed
    starting = asyncio.ensure_future(catalogue.agent("gemini"))
    await asyncio.sleep(0)
    assert not starting.done()  # a start of it waits for the answer
    answer.set_result("--acp")
    started = await starting
    assert started is not None and started.command == [str(gemini), "--acp"] and not started.checking
    again = catalogue.peek("gemini")
    assert again is not None and again.command == [str(gemini), "--acp"] and not again.checking
    await catalogue.probes.close()


async def test_a_probe_that_hangs_is_killed_when_the_hub_stops(tmp_path: Path) -> None:
    marker = tmp_path / "alive"
    hanging = program(tmp_path, "gemini", f"touch {marker}; exec sleep 300")
    probes = Probes()
    assert probes.known(str(hanging)) is None
    for _ in range(200):
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.exists()
    await probes.close()
    assert probes.known(str(hanging)) is None  # no answer was kept; asked again
    await probes.close()


async def test_gemini_is_asked_for_its_acp_flag(tmp_path: Path) -> None:
    new = program(tmp_path, "gemini-new", "echo '  --acp   Starts the agent in ACP mode'")
    old = program(tmp_path, "gemini-old", "echo '  --experimental-acp   Starts the agent in ACP mode'")
    broken = program(tmp_path, "gemini-broken", "exit 3")
    assert await ask_gemini(str(new)) == "--acp"
    assert await ask_gemini(str(old)) == "--experimental-acp"
    assert await ask_gemini(str(broken)) == "--experimental-acp"
    assert await ask_gemini(str(tmp_path / "missing")) == "--experimental-acp"
    assert await ask_gemini(str(program(tmp_path, "gemini-slow", "exec sleep 300")), timeout_s=0.2) \
        == "--experimental-acp"
    assert gemini_flag_from_help("Options:\n  --acp  ACP mode\n") == "--acp"


def test_modes_carry_their_kind_before_the_agent_ever_ran(tmp_path: Path) -> None:
    catalogue = Catalogue(SessionSettings(roots=(tmp_path,)), tmp_path)
    modes = {m["id"]: m for m in catalogue.offered("claude-code")["modes"]}
    assert modes["bypassPermissions"]["kind"] == "full_access"  # the app warns of full access from the first list
    assert modes["default"]["kind"] == "ask" and modes["plan"]["kind"] == "plan"
    # Offers kept from before kinds were stored are labelled the same way.
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "offers.json").write_text(
        '{"claude-code": {"modes": [{"id": "bypassPermissions", "name": "Bypass Permissions"}], "models": [],'
        ' "offeredAt": "2026-12-07T10:00:00.000Z"}}')
    [mode] = Catalogue(SessionSettings(roots=(tmp_path,)), tmp_path).offered("claude-code")["modes"]
    assert mode["kind"] == "full_access"
