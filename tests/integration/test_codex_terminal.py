"""`lineup connect codex --user` with the REAL interactive Codex CLI (npm) under tmux, a real hub and a scripted
fake Responses API (tests/support/fake_models/openai_responses.py).

The fake makes Codex want to run a command that leaves its sandbox (`sandbox_permissions: require_escalated`),
which Codex asks the person about. Its PermissionRequest hook, written and trusted by `lineup connect codex`,
asks in LineUp instead: allow runs it, deny with a note tells the model the note, and with the hub down Codex's
own prompt shows in the terminal as before. Codex keeps its sandbox helpers beside CODEX_HOME and refuses to put
them under /tmp, so CODEX_HOME is a scratch folder in the home directory.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.integration.test_claude_code import Tmux, _need
from tests.integration.test_sdk import FAST_ENV, Api
from tests.support.fake_models import text, tool
from tests.support.fake_models.openai_responses import FakeOpenAIResponses
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient

REPO = Path(__file__).resolve().parents[2]
NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX", "/root/.cache/lineup-agents/npm"))
CODEX = NPM_PREFIX / "node_modules" / ".bin" / "codex"
PROMPT = "Make the marker file"

pytestmark = [pytest.mark.real_agent, pytest.mark.timeout(240)]


class CodexStage:
    def __init__(self, hub: HubProcess, tmp: Path, model: FakeOpenAIResponses) -> None:
        self.hub, self.model = hub, model
        self.api = Api(hub, hub.token())
        self.scratch = Path.home() / ".cache" / "lineup-tests" / f"codex-{uuid.uuid4().hex[:10]}"
        self.home = self.scratch / "home"
        self.codex_home = self.home / ".codex"
        self.outside = self.scratch / "outside.txt"   # outside the workspace and /tmp: needs the person's yes
        self.work = tmp / "work"
        self.codex_home.mkdir(parents=True)
        self.work.mkdir()
        self.credential = self.scratch / "codex-agent.json"
        self.app: LapClient
        self.tmux = Tmux("codex", tmp / "tmux.sock")

    @property
    def config(self) -> Path:
        return self.codex_home / "config.toml"

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "CODEX_HOME": str(self.codex_home), "FAKE_OPENAI_API_KEY": "sk-test-fake",
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color", "NO_COLOR": "1",
                "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"}

    def write_config(self) -> None:
        self.config.write_text("\n".join([
            'model = "gpt-5-codex"', 'model_provider = "fake"', 'approval_policy = "on-request"',
            'sandbox_mode = "workspace-write"', "", "[model_providers.fake]", 'name = "Fake"',
            f"base_url = {json.dumps(self.model.base_url)}", 'env_key = "FAKE_OPENAI_API_KEY"',
            'wire_api = "responses"', "", f"[projects.{json.dumps(str(self.work))}]", 'trust_level = "trusted"', ""]))

    async def connect(self) -> str:
        code = await self.api.code("Codex")
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "hub", "connect", "codex", "--user", "--hub", self.hub.base,
                             "--code", code, "--credential-file", str(self.credential)],
            capture_output=True, text=True, timeout=60, env={**os.environ, **self.env()})
        assert done.returncode == 0, done.stderr
        return done.stdout

    async def start_codex(self) -> None:
        exports = " ".join(f"{k}={json.dumps(v)}" for k, v in self.env().items())
        self.tmux.run("new-session", "-d", "-s", "codex", "-x", "200", "-y", "50", "-c", str(self.work),
                      f"env -i {exports} {CODEX}")
        screen = await self.tmux.wait_screen("›", "Hooks need review", "Ask Codex", timeout=60)
        assert "Hooks need review" not in screen, screen  # LineUp's hook is trusted: Codex does not stop on it
        await asyncio.sleep(0.5)  # the composer takes keys once drawn; typing earlier can lose the first ones
        await self.tmux.type(PROMPT)

    async def card(self, timeout: float = 90) -> dict[str, Any]:
        frame = await self.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence")
                                        is not None, timeout=timeout)
        return dict(frame["payload"]["interaction"]) | {"conversationId": frame.get("conversationId")}

    def stop(self) -> None:
        self.tmux.run("kill-server")
        # The TUI runs through an app-server daemon of its own CODEX_HOME, which outlives it.
        for proc in psutil.process_iter(["pid"]):
            try:
                if proc.environ().get("CODEX_HOME") == str(self.codex_home):
                    proc.kill()
            except (psutil.Error, OSError):
                continue
        shutil.rmtree(self.scratch, ignore_errors=True)


@pytest.fixture
async def codex(hub_factory: HubFactory, tmp_path: Path) -> AsyncIterator[CodexStage]:
    _need(CODEX.exists(), f"the Codex CLI is not installed at {CODEX} (npm i @openai/codex)")
    _need(shutil.which("tmux") is not None and shutil.which("bwrap") is not None, "tmux and bubblewrap are needed")
    model = FakeOpenAIResponses([])
    stage = CodexStage(hub_factory("hub", env=FAST_ENV), tmp_path, model)
    stage.write_config()
    stage.app = await LapClient.connect(stage.hub.ws_base, "app", stage.hub.token())
    try:
        yield stage
    finally:
        stage.stop()
        await stage.app.close()
        model.close()


def escalated(path: Path) -> Any:
    return tool("exec_command", {"cmd": f"touch {path}", "sandbox_permissions": "require_escalated",
                                 "justification": "Create the marker file outside the workspace?"})


async def until(check: Any, tmux: Tmux, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, tmux.screen()
        await asyncio.sleep(0.1)


async def answer_in_the_terminal(tmux: Tmux, key: str, tries: int = 3) -> None:
    """Press `key` at Codex's own approval prompt, again if the prompt is still there 10 s later, as a person would.
    Once in some loaded runs Codex 0.171 took no notice of the first key (the prompt stayed for the whole minute);
    pressing again cannot answer twice, since an answered prompt is gone."""
    for _ in range(tries):
        tmux.run("send-keys", "-t", "codex", key, "")
        deadline = time.monotonic() + 10
        while "Would you like to run" in tmux.screen():
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        else:
            return
    raise AssertionError(f"Codex's prompt took no notice of {key!r} pressed {tries} times:\n{tmux.screen()}")


async def test_interactive_codex_asks_in_lineup_and_allowing_runs_it(codex: CodexStage) -> None:
    codex.model.script.add(escalated(codex.outside), text("All done."))
    said = await codex.connect()
    assert "Interactive `codex` now asks you in LineUp" in said
    await codex.start_codex()
    card = await codex.card()
    assert card["title"] == f"Codex wants to run: touch {codex.outside}"
    assert card["description"] == "Create the marker file outside the workspace?"
    assert [o["id"] for o in card["options"]] == ["allow_once", "deny"]
    # What it approves, whole, with the hub's judgement: touching a file outside the workspace is a command.
    assert card["approves"] == [{"kind": "command", "command": f"touch {codex.outside}", "cwd": card["details"]["cwd"],
                                 "length": len(f"touch {codex.outside}"), "lines": 1, "risk": "high"}]
    assert not codex.outside.exists()
    shown_at = time.monotonic()
    await codex.app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "allow_once"}})
    await until(codex.outside.exists, codex.tmux)
    print(f"FIGURE codex_approval_round_trip: {(time.monotonic() - shown_at) * 1000:.0f} ms")
    await codex.tmux.wait_screen("All done.")
    assert "Would you like to run" not in codex.tmux.screen()  # Codex's own prompt never showed
    # The finished turn is a task in the same conversation as the card, titled from the prompt; Codex's own
    # side turn (naming the thread) is not posted: this is the only task.
    done = await codex.app.event("task.status_changed", status="succeeded", timeout=30)
    assert done["conversationId"] == card["conversationId"]
    assert done["payload"]["summary"] == "All done."
    created = [e for e in codex.app.events() if e["type"] == "task.created"]
    assert [e["payload"]["title"] for e in created] == [PROMPT]


async def test_interactive_codex_deny_with_a_note_the_model_is_told(codex: CodexStage) -> None:
    codex.model.script.add(escalated(codex.outside), text("Understood, not done."))
    await codex.connect()
    await codex.start_codex()
    card = await codex.card()
    note = "Not outside the workspace, please"
    await codex.app.ok("interaction.respond", {"interactionId": card["id"],
                                               "response": {"optionId": "deny", "comment": note}})
    await codex.tmux.wait_screen("Understood, not done.")
    assert not codex.outside.exists()
    [output] = codex.model.function_call_outputs()
    assert note in json.dumps(output)


async def test_interactive_codex_with_the_hub_down_asks_in_its_terminal(codex: CodexStage) -> None:
    codex.model.script.add(escalated(codex.outside), text("All done."))
    await codex.connect()
    codex.hub.stop()
    started = time.monotonic()
    await codex.start_codex()
    await codex.tmux.wait_screen("Would you like to run", timeout=60)
    print(f"FIGURE codex_hub_down_to_own_prompt: {(time.monotonic() - started) * 1000:.0f} ms")
    assert not codex.outside.exists()
    await answer_in_the_terminal(codex.tmux, "y")  # the person answers in the terminal, as without LineUp
    await until(codex.outside.exists, codex.tmux)


async def test_remove_takes_the_hook_and_its_trust_out(codex: CodexStage) -> None:
    before = codex.config.read_text()
    await codex.connect()
    merged = codex.config.read_text()
    assert "[[hooks.PermissionRequest]]" in merged and "trusted_hash" in merged
    done = subprocess.run([sys.executable, "-m", "hub", "connect", "codex", "--user", "--remove"],
                          capture_output=True, text=True, timeout=60, env={**os.environ, **codex.env()})
    assert done.returncode == 0, done.stderr
    assert codex.config.read_text() == before
