"""Starting a session shows progress (docs/sessions.md "The session list"), against a real hub.

The agent list of New session answers while another agent's program is still being asked (a `gemini` whose `--help`
never answers: before, the list waited for it, up to 30 s); a session whose agent takes seconds to start
(tests/support/slow_acp_agent.py) is listed `starting` from Start until its first turn runs (before: `idle`, as if it
had run and finished), then runs and replies.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

from tests.integration.conftest import Connect
from tests.integration.test_sessions import WAIT_S, start_sessions_hub
from tests.support.fixtures import HubFactory
from tests.support.hubs import HubProcess
from tests.support.live import eventually

SLOW_AGENT = Path(__file__).resolve().parents[1] / "support" / "slow_acp_agent.py"


async def test_the_list_answers_while_gemini_is_asked_and_a_start_says_starting(hub_factory: HubFactory, lap: Connect,
                                                                               tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gemini = bin_dir / "gemini"
    gemini.write_text("#!/bin/sh\nexec sleep 600\n")  # its --help never answers
    gemini.chmod(gemini.stat().st_mode | stat.S_IXUSR)

    def factory(start: bool = False) -> HubProcess:
        hub = hub_factory(start=False, process=True)
        hub.env["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
        return hub

    slow = "\n".join(["[sessions.agents.slow]", 'name = "Slow Starter"',
                      f"command = [{json.dumps(sys.executable)}, {json.dumps(str(SLOW_AGENT))}]",
                      'env = { ACP_TEST_START_DELAY_S = "4" }', "init_timeout_s = 30"])
    h = await start_sessions_hub(factory, lap, tmp_path, extra=slow)
    agents = {a["key"]: a for a in await h.api.get("/api/sessions/agents")}
    assert agents["gemini"]["installed"] is True and agents["gemini"]["checking"] is True
    assert agents["slow"]["installed"] is True and "checking" not in agents["slow"]

    started = await h.start({"agent": "slow", "project": str(h.repo), "message": "hello"})
    listed = {s.get("sessionId"): s for s in await h.api.get("/api/sessions")}
    assert listed[started["sessionId"]]["status"] == "starting"  # never Idle before it ever ran
    reply = await h.reply(started["conversationId"], bool, timeout=WAIT_S + 10)
    assert reply["content"]

    async def settled() -> bool:
        return bool((await h.session(started["sessionId"]))["status"] in ("running", "idle"))

    await eventually(settled, WAIT_S)
