"""LineUp as a Hermes messaging platform (`lineup connect hermes`), against a real hub.

Two layers. The bridge (`lineup hook hermes-bridge`, the process the Hermes plugin starts) is driven here as the
plugin drives it, in JSON lines over its stdin/stdout: hostile lines, its cursor across restarts (nothing the
person said is lost or given twice), card deadlines and a restarted Hermes. Then the real thing (marked
real_agent): `hermes gateway run` from the cached `hermes-agent` venv with its own HERMES_HOME, the plugin
installed by the real `lineup connect hermes`, and the fake chat-completions model (a message `RUN: <command>`
makes it call Hermes's `terminal` tool): a message from the app, an approval card with Hermes's options, the answer
deciding whether `rm -rf` ran, `approvals.timeout` on the card and its withdrawal, restarts of the bridge, of
Hermes and of the hub saying nothing twice.

Hermes is skipped when not installed, except in CI (CI set), where that is a failure (`.ci/run` installs it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import psutil
import pytest
import yaml

from hub.connect.integrations import hermes_lineproto
from hub.sdk import Credential, load_credential, pair_or_load
from tests.conftest import Connect
from tests.support.fake_models.openai_chat import FakeChat
from tests.support.fixtures import HubFactory
from tests.support.hubs import HubProcess
from tests.support.lap import LapClient
from tests.support.needs import missing
from tests.support.typed import FramePredicate

HERMES_VENV = Path(os.environ.get("LINEUP_TEST_HERMES_VENV") or Path.home() / ".cache" / "lineup-agents" / "hermes")
TURN_S = 90.0     # a real Hermes turn on a loaded machine (its first one builds the agent: ~5 s here)
LINEUP = [sys.executable, "-m", "hub"]
lineproto = hermes_lineproto()  # the plugin's own file, as the bridge imports it


# ---- the app's side -----------------------------------------------------------------------------------------------

class App:
    """The person's app socket and one conversation with the Hermes agent."""

    def __init__(self, socket: LapClient, agent_id: str, conversation: str) -> None:
        self.socket = socket
        self.agent_id = agent_id
        self.conversation = conversation

    @classmethod
    async def open(cls, lap: Connect, hub: HubProcess, token: str, agent_id: str, conversation: str = "conv_h1") -> App:
        socket = await lap(hub, "app", token)
        await socket.ok("conversation.create", {"title": "Hermes", "agentIds": [agent_id]},
                        conversationId=conversation)
        return cls(socket, agent_id, conversation)

    async def say(self, text: str) -> None:
        await self.socket.ok("message.create", {"content": text}, conversationId=self.conversation)

    async def card(self, timeout: float = TURN_S, start: int = 0, **match: Any) -> dict[str, Any]:
        frame = await self.socket.wait_for(
            lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
            and all(f["payload"]["interaction"].get(k) == v for k, v in match.items()), timeout, start)
        return dict(frame["payload"]["interaction"])

    def cards(self) -> list[dict[str, Any]]:
        return [f["payload"]["interaction"] for f in self.socket.events() if f["type"] == "interaction.requested"]

    async def ended(self, card_id: str, timeout: float = 30) -> dict[str, Any]:
        frame = await self.socket.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                           and f["payload"]["interactionId"] == card_id, timeout)
        return dict(frame["payload"])

    async def answer(self, card: dict[str, Any], option: str, comment: str | None = None) -> None:
        response: dict[str, Any] = {"optionId": option, **({"comment": comment} if comment else {})}
        await self.socket.ok("interaction.respond", {"interactionId": card["id"], "response": response})

    async def said(self, predicate: Any, timeout: float = TURN_S) -> dict[str, Any]:
        frame = await self.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                                           and f["payload"]["author"]["kind"] == "agent"
                                           and predicate(f["payload"]["content"]), timeout)
        return dict(frame["payload"])

    def agent_messages(self) -> list[str]:
        return [f["payload"]["content"] for f in self.socket.events()
                if f["type"] == "message.created" and f["payload"]["author"]["kind"] == "agent"]


def seconds_left(card: dict[str, Any]) -> float:
    deadline = datetime.fromisoformat(card["expiresAt"].replace("Z", "+00:00"))
    return (deadline - datetime.now(UTC)).total_seconds()


# ---- the bridge, driven as the plugin drives it ------------------------------------------------------------------

class FakePlugin:
    """`lineup hook hermes-bridge` started as the plugin starts it; lines in, lines out."""

    def __init__(self, credential_path: Path) -> None:
        self.credential_path = credential_path
        self.process: asyncio.subprocess.Process | None = None
        self.lines: list[dict[str, Any]] = []
        self._new = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, boot: str | None = "boot-1") -> FakePlugin:
        self.lines = []
        self.process = await asyncio.create_subprocess_exec(
            *LINEUP, "hook", "hermes-bridge", "--credential-file", str(self.credential_path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        self._reader = asyncio.ensure_future(self._read())
        if boot is not None:
            await self.send({"t": "hello", "v": 1, "boot": boot, "hermes": "test"})
        return self

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        reader = lineproto.LineReader(self.process.stdout)
        while (line := await reader.next()) is not None:
            async with self._new:
                self.lines.append(lineproto.check(line, "to_plugin"))
                self._new.notify_all()
        async with self._new:
            self._new.notify_all()

    async def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(message if isinstance(message, bytes) else lineproto.encode(message))
        await self.process.stdin.drain()

    async def line(self, predicate: Any, timeout: float = 15) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            index = 0
            async with self._new:
                while True:
                    while index < len(self.lines):
                        index += 1
                        if predicate(self.lines[index - 1]):
                            return self.lines[index - 1]
                    assert self._reader is not None and not self._reader.done(), \
                        f"the bridge stopped: {await self.log()}"
                    await self._new.wait()
        return await asyncio.wait_for(scan(), timeout)

    async def log(self) -> str:
        if self.process is None or self.process.stderr is None or self.process.returncode is None:
            return "(still running)"
        return (await self.process.stderr.read()).decode(errors="replace")[-4000:]

    async def kill(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def close(self) -> int:
        """Close stdin as the plugin does when Hermes stops: the bridge sends what it holds and exits."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.close()
        code = await asyncio.wait_for(self.process.wait(), 15)
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        return code


@pytest.fixture
async def paired(hub_factory: HubFactory, tmp_path: Path, lap: Connect) -> AsyncIterator[tuple[Any, Credential, Path, App]]:
    hub = hub_factory()
    path = tmp_path / "cred" / "hermes.json"
    credential = await pair_or_load(hub.base, hub.pairing_code(), path, name="Hermes", runtime="hermes")
    app = await App.open(lap, hub, hub.token(), credential.agent_id)
    yield hub, credential, path, app


@pytest.fixture
async def plugins() -> AsyncIterator[list[FakePlugin]]:
    started: list[FakePlugin] = []
    yield started
    for plugin in started:
        if plugin.process is not None and plugin.process.returncode is None:
            await plugin.kill()


async def test_the_bridge_drops_hostile_lines_and_goes_on(paired: Any, plugins: list[FakePlugin]) -> None:
    hub, credential, path, app = paired
    # Not the plugin (no hello first): it stops at once without connecting.
    stranger = FakePlugin(path)
    plugins.append(stranger)
    await stranger.start(boot=None)
    await stranger.send(b'{"t": "send", "id": "s0", "chat": "conv_h1", "text": "no hello"}\n')
    assert await asyncio.wait_for(cast(asyncio.subprocess.Process, stranger.process).wait(), 15) == 2

    plugin = FakePlugin(path)
    plugins.append(plugin)
    await plugin.start()
    await plugin.line(lambda m: m["t"] == "ready")
    for hostile in (b"not json\n", b"[1]\n", b'{"t": "rm -rf"}\n', b'{"t": "send", "id": "../x", "chat": "c"}\n',
                    b'{"t": "answer", "id": "a1", "choice": "once"}\n', b"\xff\xfe\n",
                    b'{"t": "send", "id": "s1", "chat": "conv_h1", "text": "' + b"A" * (3 * 1024 * 1024) + b'"}\n'):
        await plugin.send(hostile)
    await plugin.send({"t": "send", "id": "s2", "chat": "conv_h1", "text": "Still here."})
    ack = await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "s2")
    assert ack["ok"] is True
    said = await app.said(lambda text: text == "Still here.", 15)
    assert said["author"]["id"] == credential.agent_id
    assert app.agent_messages() == ["Still here."]  # nothing of the hostile lines reached the conversation
    # A task for this agent: Hermes takes messages; the task fails at once, saying so (it never sits queued).
    await app.socket.ok("task.create", {"title": "Deploy", "targetAgentId": credential.agent_id},
                        taskId="task_h1", conversationId=app.conversation)
    failed = await app.socket.event("task.status_changed", 15, taskId="task_h1", status="failed")
    error = failed["payload"]["error"]
    assert error["code"] == "not_a_task" and "plain message" in error["message"]
    # A conversation the agent is not in is refused for good (acked with why), not retried forever.
    await plugin.send({"t": "send", "id": "s3", "chat": "conv_other", "text": "Hello?"})
    refused = await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "s3")
    assert refused["ok"] is False and refused["error"]
    assert await plugin.close() == 0


async def test_what_hermes_has_not_taken_is_given_again_once(paired: Any, plugins: list[FakePlugin]) -> None:
    """The bridge's cursor moves past a message only once the plugin acknowledged it: killed before, the next bridge
    gives it again; acknowledged (also beyond an older one still open), it is never given twice."""
    hub, credential, path, app = paired
    first = FakePlugin(path)
    plugins.append(first)
    await first.start()
    await first.line(lambda m: m["t"] == "ready")
    for text in ("one", "two", "three"):
        await app.say(text)
    got = {}
    for text in ("one", "two", "three"):
        got[text] = await first.line(lambda m, t=text: m["t"] == "message" and m["text"] == t)
    assert got["one"]["chat"] == app.conversation and got["one"]["user"].startswith("usr_")
    await first.send({"t": "ack", "id": got["two"]["id"], "applied": True})  # "one" and "three" not acknowledged
    # The bridge reads lines in order: once a later line is answered, the ack of "two" has been taken.
    await first.send({"t": "send", "id": "sync-1", "chat": app.conversation, "text": "sync"})
    await first.line(lambda m: m["t"] == "ack" and m["id"] == "sync-1")
    await first.kill()

    second = FakePlugin(path)
    plugins.append(second)
    await second.start(boot="boot-1")
    again = [await second.line(lambda m, t=t: m["t"] == "message" and m["text"] == t) for t in ("one", "three")]
    assert [m["id"] for m in again] == [got["one"]["id"], got["three"]["id"]]  # the same ids: Hermes drops repeats
    for message in again:
        await second.send({"t": "ack", "id": message["id"], "applied": True})
    await app.say("four")
    four = await second.line(lambda m: m["t"] == "message" and m["text"] == "four")
    await second.send({"t": "ack", "id": four["id"], "applied": True})
    await second.send({"t": "send", "id": "sync-2", "chat": app.conversation, "text": "sync"})
    await second.line(lambda m: m["t"] == "ack" and m["id"] == "sync-2")
    assert [m["text"] for m in second.lines if m["t"] == "message"] == ["one", "three", "four"]
    assert await second.close() == 0

    third = FakePlugin(path)
    plugins.append(third)
    await third.start()
    await third.line(lambda m: m["t"] == "ready")
    await app.say("five")
    await third.line(lambda m: m["t"] == "message" and m["text"] == "five")
    assert [m["text"] for m in third.lines if m["t"] == "message"] == ["five"]


async def test_a_new_bridge_does_not_replay_what_was_said_before_it_was_connected(paired: Any,
                                                                                  plugins: list[FakePlugin]) -> None:
    """Its first start reads the log from the beginning (so nothing sent before Hermes first ran is lost), but an
    agent paired again as itself keeps old conversations: what was said a day before is not Hermes's to act on."""
    hub, credential, path, app = paired
    await app.socket.ok("message.create", {"content": "yesterday's"}, conversationId=app.conversation,
                        occurredAt="2000-01-01T00:00:00Z")
    await app.say("just now")
    plugin = FakePlugin(path)
    plugins.append(plugin)
    await plugin.start()
    await plugin.line(lambda m: m["t"] == "message" and m["text"] == "just now")
    await plugin.send({"t": "send", "id": "sync", "chat": app.conversation, "text": "sync"})
    await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "sync")
    assert [m["text"] for m in plugin.lines if m["t"] == "message"] == ["just now"]


def approval(line_id: str, command: str, timeout: float, chat: str = "conv_h1", **extra: Any) -> dict[str, Any]:
    return {"t": "approval", "id": line_id, "chat": chat, "session": "agent:main:lineup:dm:" + chat,
            "command": command, "description": "recursive delete", "permanent": True, "smart_denied": False,
            "timeout": timeout, "deadline": time.time() + timeout, **extra}


async def test_cards_carry_hermes_deadline_and_end_with_hermes(paired: Any, plugins: list[FakePlugin]) -> None:
    hub, credential, path, app = paired
    plugin = FakePlugin(path)
    plugins.append(plugin)
    await plugin.start(boot="boot-1")
    await plugin.line(lambda m: m["t"] == "ready")

    # Answered: the plugin is told the choice and the note; Hermes had stopped waiting (applied false): said so.
    await plugin.send(approval("a1", "rm -rf /srv/app/build", 120))
    card = await app.card()
    assert card["title"] == "Hermes wants to run: rm -rf /srv/app/build"
    assert card["approves"][0]["command"] == "rm -rf /srv/app/build"
    assert card["risk"] == "high" and card["riskReasons"]  # the hub's judgement of the command (Hermes says medium)
    assert [(o["id"], o["label"]) for o in card["options"]] == [
        ("once", "Allow once"), ("session", "Allow for this session"), ("always", "Allow always"), ("deny", "Deny")]
    assert 110 < seconds_left(card) <= 120
    assert (await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "a1"))["ok"]
    await app.answer(card, "deny", "not on the build box")
    told = await plugin.line(lambda m: m["t"] == "answer" and m["id"] == "a1")
    assert told["choice"] == "deny" and told["reason"] == "The person denied this in LineUp: not on the build box"
    await plugin.send({"t": "ack", "id": "a1", "applied": False})
    late = await app.said(lambda text: "already stopped waiting" in text, 15)
    assert "did not run the command" in late["content"]

    # Hermes's own deadline: withdrawn a second before it, saying so; an answer after that is refused.
    await plugin.send(approval("a2", "rm -rf /tmp/x", 3, permanent=False))
    card = await app.card(id=f"int_hermes_{_digest(credential.agent_id, 'a2')}")
    assert [o["id"] for o in card["options"]] == ["once", "session", "deny"]  # no "always" when Hermes offers none
    assert 1 < seconds_left(card) <= 3
    ended = await app.ended(card["id"], 10)
    assert ended["outcome"] == "cancelled" and ended["response"]["cause"] == "withdrawn"
    assert ended["response"]["reason"] == "Hermes stopped waiting after 3 s (denied)."

    # Hermes reports it stopped waiting (a /deny typed in the chat): the card ends with that.
    await plugin.send(approval("a3", "git push --force", 60, smart_denied=True))
    card = await app.card(title="Hermes wants to run: git push --force")
    assert [o["id"] for o in card["options"]] == ["once", "deny"]  # Hermes's smart reviewer said no: once only
    await plugin.send({"t": "approval_done", "id": "a3.done", "how": "deny"})
    ended = await app.ended(card["id"])
    assert ended["response"]["reason"].startswith("Hermes stopped waiting: it was denied in Hermes")

    # A new Hermes process (a restart): the old one's pending card is withdrawn; the new one asks afresh.
    await plugin.send(approval("a4", "rm -rf /var/tmp/y", 300))
    card = await app.card(title="Hermes wants to run: rm -rf /var/tmp/y")
    await plugin.kill()
    restarted = FakePlugin(path)
    plugins.append(restarted)
    await restarted.start(boot="boot-2")
    ended = await app.ended(card["id"])
    assert ended["response"]["reason"] == "Hermes restarted and no longer waits for this answer."
    assert len([c for c in app.cards() if c["title"] == "Hermes wants to run: rm -rf /var/tmp/y"]) == 1


async def test_a_bridge_restarted_mid_card_keeps_the_card_and_its_deadline(paired: Any,
                                                                           plugins: list[FakePlugin]) -> None:
    hub, credential, path, app = paired
    plugin = FakePlugin(path)
    plugins.append(plugin)
    await plugin.start(boot="boot-1")
    # Long enough that a loaded machine restarts the bridge before Hermes's deadline passes (4 s was not, once).
    line = approval("a1", "rm -rf /opt/cache", 12)
    await plugin.send(line)
    card = await app.card()
    await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "a1")
    await plugin.kill()
    again = FakePlugin(path)
    plugins.append(again)
    await again.start(boot="boot-1")  # the same Hermes: its request still waits
    await again.send(line)             # the plugin sends again what was not acknowledged (here: on purpose)
    assert (await again.line(lambda m: m["t"] == "ack" and m["id"] == "a1"))["ok"]
    ended = await app.ended(card["id"], 40)  # the restarted bridge armed the deadline from its journal
    assert ended["response"]["reason"] == "Hermes stopped waiting after 12 s (denied)."
    assert len(app.cards()) == 1


async def test_the_bridge_reads_on_while_the_hub_is_away(paired: Any, plugins: list[FakePlugin], lap: Connect) -> None:
    """What the bridge must tell the hub waits for it (the SDK's outbox); the plugin's other lines are still read
    and answered meanwhile, and what waited arrives once the hub is back."""
    hub, credential, path, app = paired
    plugin = FakePlugin(path)
    plugins.append(plugin)
    await plugin.start()
    await plugin.send(approval("a1", "rm -rf /srv/old", 300))
    card = await app.card()
    await app.answer(card, "once")
    await plugin.line(lambda m: m["t"] == "answer" and m["id"] == "a1")
    await app.socket.close()
    hub.stop()
    await plugin.send({"t": "ack", "id": "a1", "applied": False})  # Hermes had stopped waiting: a note to the hub
    await plugin.send({"t": "send", "id": "s1", "chat": app.conversation, "text": "said while the hub was away"})
    await plugin.send({"t": "approval_done", "id": "zz.done", "how": "timeout"})  # needs no hub: answered at once
    assert (await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "zz.done", 5))["ok"]
    assert not [m for m in plugin.lines if m["t"] == "ack" and m["id"] == "s1"]  # held until the hub has it
    hub.start()
    assert (await plugin.line(lambda m: m["t"] == "ack" and m["id"] == "s1", 30))["ok"]
    socket = await lap(hub, "app", hub.token())
    for text in ("said while the hub was away", "Hermes had already stopped waiting when your answer came"):
        await socket.wait_for(cast(FramePredicate, lambda f, t=text: f["type"] == "message.created" and f.get("sequence")
                                   and f["payload"]["content"].startswith(t)), 30)


def _digest(*parts: str) -> str:
    from hub.connect.session_state import digest

    return digest(*parts)


# ---- the real Hermes ---------------------------------------------------------------------------------------------

CONFIG = """# my Hermes (the test's): comments and order stay as they are
model:
  provider: custom
  default: fake-model
  base_url: {base_url}
  api_key: fake-key
  context_length: 128000     # no probing for it
security:
  tirith_enabled: false      # no download of Hermes's scanner
  allow_lazy_installs: false # no pip installs into Hermes's venv
approvals:
  mode: manual               # every command on Hermes's dangerous list asks (its default, smart, screens first)
  timeout: {timeout}
terminal:
  cwd: {work}
"""


def hermes_binary() -> Path:
    binary = HERMES_VENV / "bin" / "hermes"
    if not binary.exists():
        message = f"hermes-agent is not installed at {HERMES_VENV}: `bash .ci/run` installs it"
        missing(message)
    return binary


class Hermes:
    """`hermes gateway run` with a HERMES_HOME of its own in tmp_path, talking to the fake model."""

    def __init__(self, tmp_path: Path, model: FakeChat, timeout: int) -> None:
        self.binary = hermes_binary()
        home = tmp_path / "hermes-user"
        self.home = home / ".hermes"
        self.work = tmp_path / "hermes-work"
        self.home.mkdir(parents=True)
        self.work.mkdir()
        self.config = self.home / "config.yaml"
        self.original = CONFIG.format(base_url=model.base_url, timeout=timeout, work=self.work)
        self.config.write_text(self.original)
        self.credential = tmp_path / "lineup-config" / "hermes.json"
        self.env = {**os.environ, "HOME": str(home), "HERMES_HOME": str(self.home), "NO_COLOR": "1",
                    "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
                    "TIRITH_ENABLED": "false", "HERMES_DISABLE_LAZY_INSTALLS": "1"}
        self.log = tmp_path / "hermes-gateway.log"
        self.process: subprocess.Popen[bytes] | None = None

    def lineup(self, *args: str) -> str:
        done = subprocess.run([*LINEUP, *args], check=False, capture_output=True, text=True, env=self.env,
                              timeout=120)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def connect(self, hub: HubProcess) -> str:
        return self.lineup("connect", "hermes", "--hub", hub.base, "--code", hub.pairing_code(),
                           "--credential-file", str(self.credential))

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen([str(self.binary), "gateway", "run", "-v"], cwd=self.work, env=self.env,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)

    def bridge(self) -> psutil.Process | None:
        assert self.process is not None
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                if "hermes-bridge" in " ".join(child.cmdline()):
                    return child
        return None

    def said_in_log(self, text: str) -> int:
        return self.log.read_text(errors="replace").count(text)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    model = FakeChat()
    yield model
    model.close()


@pytest.fixture
def hermes_factory(tmp_path: Path, chat: FakeChat) -> Iterator[Any]:
    made: list[Hermes] = []

    def make(timeout: int = 120) -> Hermes:
        made.append(Hermes(tmp_path, chat, timeout))
        return made[-1]

    yield make
    for hermes in made:
        hermes.stop()


async def hermes_chat(hub: HubProcess, hermes: Hermes, lap: Connect) -> App:
    """`lineup connect hermes`, then the gateway; returns the app once the agent is online."""
    out = hermes.connect(hub)
    assert "Hermes is connected" in out and "plugins.enabled" in out, out
    written = hermes.config.read_text()
    assert written.startswith(hermes.original)  # the person's lines as they were, comments too; ours after them
    assert yaml.safe_load(written)["plugins"] == {"enabled": ["lineup"]}
    app = await App.open(lap, hub, hub.token(), load_credential(hermes.credential).agent_id)
    started = time.monotonic()
    hermes.start()
    try:
        await app.socket.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence")
                                  and f["payload"]["agentId"] == app.agent_id
                                  and f["payload"]["status"] == "online", 60)
    except TimeoutError:
        raise AssertionError(f"Hermes's LineUp platform did not come online:\n{hermes.tail()}") from None
    print(f"FIGURE hermes gateway start to agent online: {time.monotonic() - started:.1f} s")
    return app


def frames(app: App) -> int:
    return len(app.socket.frames)


@pytest.mark.real_agent
async def test_hermes_asks_on_a_card_and_the_persons_answer_decides(hub_factory: HubFactory, lap: Connect,
                                                                    hermes_factory: Any) -> None:
    hub = hub_factory()
    hermes: Hermes = hermes_factory(timeout=120)
    app = await hermes_chat(hub, hermes, lap)
    plugin = hermes.home / "plugins" / "lineup"
    # Connecting again (no code: the stored credential) changes nothing in Hermes's config and keeps the agent.
    written = hermes.config.read_text()
    again = hermes.lineup("connect", "hermes", "--credential-file", str(hermes.credential))
    assert app.agent_id in again and hermes.config.read_text() == written
    assert sorted(p.name for p in plugin.iterdir() if p.suffix != ".log") == [
        "__init__.py", "adapter.py", "lineproto.py", "lineup.json", "plugin.yaml"]
    assert oct(os.stat(plugin / "lineup.json").st_mode & 0o777) == "0o600"
    # This LineUp's own program, from any folder: never `python -m hub` (docs/security.md, "The hooks are LineUp's
    # code"), and no secret on the command line.
    command = yaml.safe_load((plugin / "lineup.json").read_text())["command"]
    assert command[0] == str(Path(sys.executable).parent / "lineup") or command[1:3] == ["-P", "-m"], command
    assert command[-4:] == ["hook", "hermes-bridge", "--credential-file", str(hermes.credential)]

    gone = hermes.work / "gone"
    gone.mkdir()
    asked = time.monotonic()
    await app.say(f"RUN: rm -rf {gone}")
    card = await app.card()
    print(f"FIGURE message to card (Hermes's turn): {time.monotonic() - asked:.1f} s")
    assert card["title"] == f"Hermes wants to run: rm -rf {gone}"
    assert card["approves"][0]["command"] == f"rm -rf {gone}"  # the whole command; the hub judges its risk
    # A folder in /tmp, and Hermes names no working folder: medium, saying what it deletes.
    assert card["risk"] == "medium" and card["riskReasons"][0].startswith("deletes temporary files"), card
    assert [(o["id"], o["label"]) for o in card["options"]] == [
        ("once", "Allow once"), ("session", "Allow for this session"), ("always", "Allow always"), ("deny", "Deny")]
    session = next(o for o in card["options"] if o["id"] == "session")
    assert "session" in session["description"] and "Not always" in session["description"]
    assert 100 < seconds_left(card) <= 120  # approvals.timeout, from when Hermes asked
    assert gone.exists()
    answered = time.monotonic()
    await app.answer(card, "once")
    reply = await app.said(lambda text: text.startswith("DONE:"))
    print(f"FIGURE card answered to Hermes's reply: {time.monotonic() - answered:.1f} s")
    assert not gone.exists()  # it ran
    assert "approved by the user" in reply["content"]

    kept = hermes.work / "kept"
    kept.mkdir()
    start = frames(app)
    await app.say(f"RUN: rm -rf {kept}")
    card = await app.card(start=start)
    assert card["approves"][0]["command"] == f"rm -rf {kept}"
    await app.answer(card, "deny", "keep that folder")
    reply = await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                                      and f["payload"]["content"].startswith("DONE:"), TURN_S, start)
    assert kept.exists()  # it did not run
    assert "BLOCKED" in reply["payload"]["content"] and "keep that folder" in reply["payload"]["content"]

    # Answered in the chat instead (Hermes's own /approve): the card ends, saying so.
    third = hermes.work / "third"
    third.mkdir()
    start = frames(app)
    await app.say(f"RUN: rm -rf {third}")
    card = await app.card(start=start)
    await app.say("/approve")
    ended = await app.ended(card["id"])
    assert ended["response"]["reason"] == "Answered in Hermes (/approve): it was allowed once."
    await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                              and f["payload"]["content"].startswith("DONE:"), TURN_S, start)
    assert not third.exists()

    # Too long for a card (about 60 KB): the whole command in the conversation (Hermes's own text prompt shows
    # its first 200 characters), answered there.
    long_command = f"rm -rf {kept}" + "; true" * 11_000  # (Hermes refuses 4,096 characters without a separator)
    start = frames(app)
    await app.say(f"RUN: {long_command}")
    shown = await app.said(lambda text: "too long to show whole on a card" in text)
    assert f"\n```\n{long_command}\n```\n" in shown["content"] and "`/deny`" in shown["content"]
    await app.say("/deny")
    await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                              and f["payload"]["content"].startswith("DONE:")
                              and "BLOCKED" in f["payload"]["content"], TURN_S, start)
    assert kept.exists() and len(app.cards()) == 3  # no card for it

    hermes.stop()
    out = hermes.lineup("connect", "hermes", "--remove")
    assert "Removed" in out and "stays paired" in out
    # The person's settings as they were. (Hermes rewrites the file itself, comments gone, when it notes things
    # such as onboarding.seen: the text is compared before the gateway ran, in hermes_chat.)
    final, original = yaml.safe_load(hermes.config.read_text()), yaml.safe_load(hermes.original)
    assert {k: final[k] for k in original} == original
    assert final.get("plugins") in (None, {"enabled": []}) and "lineup" not in hermes.config.read_text()
    assert not plugin.exists()


@pytest.mark.real_agent
async def test_hermes_stopping_at_its_timeout_ends_the_card(hub_factory: HubFactory, lap: Connect,
                                                            hermes_factory: Any) -> None:
    """approvals.timeout (5 s here): the card carries that deadline and ends withdrawn, saying so, when Hermes
    stops waiting; the command does not run and a late answer is refused."""
    hub = hub_factory()
    hermes: Hermes = hermes_factory(timeout=5)
    app = await hermes_chat(hub, hermes, lap)
    kept = hermes.work / "kept"
    kept.mkdir()
    await app.say(f"RUN: rm -rf {kept}")
    card = await app.card()
    assert 2 < seconds_left(card) <= 5, card["expiresAt"]
    ended = await app.ended(card["id"], 15)
    assert ended["outcome"] == "cancelled" and ended["response"]["cause"] == "withdrawn"
    assert ended["response"]["reason"] == "Hermes stopped waiting after 5 s (denied)."
    late = await app.socket.request("interaction.respond", {"interactionId": card["id"],
                                                            "response": {"optionId": "once"}})
    assert late["type"] == "system.error" and late["payload"]["code"] == "already_resolved"
    reply = await app.said(lambda text: text.startswith("DONE:"))
    assert "BLOCKED" in reply["content"]
    assert kept.exists()


@pytest.mark.real_agent
async def test_restarting_the_bridge_or_hermes_says_nothing_twice(hub_factory: HubFactory, lap: Connect,
                                                                  hermes_factory: Any, chat: FakeChat) -> None:
    hub = hub_factory()
    hermes: Hermes = hermes_factory(timeout=120)
    app = await hermes_chat(hub, hermes, lap)

    # The bridge dies while a card waits: the plugin starts it again; the card stays the one card, and answers.
    first = hermes.work / "first"
    first.mkdir()
    await app.say(f"RUN: rm -rf {first}")
    card = await app.card()
    bridge = hermes.bridge()
    assert bridge is not None
    bridge.kill()
    restarted = time.monotonic()
    while (again := hermes.bridge()) is None or again.pid == bridge.pid:
        assert time.monotonic() - restarted < 30, f"the plugin did not start the bridge again:\n{hermes.tail()}"
        await asyncio.sleep(0.1)
    await app.answer(card, "once")
    await app.said(lambda text: text.startswith("DONE:"))
    assert not first.exists()

    # Hermes restarts while a card waits: that card ends (nothing waits for it); the conversation goes on.
    second = hermes.work / "second"
    second.mkdir()
    start = frames(app)
    await app.say(f"RUN: rm -rf {second}")
    card = await app.card(start=start)
    hermes.stop()
    await app.say("RUN: echo after-the-restart")  # written while Hermes is stopped: it gets it when it is back
    hermes.start()
    ended = await app.ended(card["id"], 60)
    # Stopping, Hermes denies what waits and says so (post_approval_response, seen here); had it no time to, the
    # bridge of the new Hermes withdraws the old one's cards (test_cards_carry_hermes_deadline_and_end_with_hermes).
    assert ended["response"]["reason"] in (
        "Hermes stopped (or restarted) and denied it; it no longer waits for this answer.",
        "Hermes restarted and no longer waits for this answer."), ended
    await app.said(lambda text: text.startswith("DONE:") and "after-the-restart" in text)
    assert second.exists()
    # Nothing was said twice: each of the person's messages reached Hermes once, each reply came once.
    replies = app.agent_messages()
    assert len([r for r in replies if r.startswith("DONE:") and "approved by the user" in r]) == 1, replies
    assert len([r for r in replies if "after-the-restart" in r]) == 1, replies
    assert len([c for c in app.cards() if c["approves"][0]["command"] == f"rm -rf {first}"]) == 1
    assert len([c for c in app.cards() if c["approves"][0]["command"] == f"rm -rf {second}"]) <= 2  # Hermes may ask
    # again after its restart (resuming the interrupted turn): a new question, its old card already ended.
    asked = [r.body for r in chat.requests if r.kind == "main"]
    runs = [m for body in asked for m in (body or {}).get("messages", []) if m.get("role") == "user"
            and "RUN: echo after-the-restart" in str(m.get("content"))]
    assert runs, "the message after the restart reached Hermes"


@pytest.mark.real_agent
async def test_what_hermes_says_while_the_hub_is_down_arrives_later_once(hub_factory: HubFactory, lap: Connect,
                                                                         hermes_factory: Any, chat: FakeChat) -> None:
    hub = hub_factory()
    hermes: Hermes = hermes_factory(timeout=120)
    app = await hermes_chat(hub, hermes, lap)
    await app.say("RUN: sleep 2; echo while-away")
    waited = time.monotonic()
    while not chat.tool_calls():  # Hermes is running the command: the hub goes away meanwhile
        assert time.monotonic() - waited < TURN_S, hermes.tail()
        await asyncio.sleep(0.05)
    await app.socket.close()
    hub.stop()
    while hermes.said_in_log("Sending response") < 1:  # Hermes replied to the hub that is not there
        assert time.monotonic() - waited < TURN_S, hermes.tail()
        await asyncio.sleep(0.1)
    hub.start()
    socket = await lap(hub, "app", hub.token())  # from the start of the log
    reply = await socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                                  and f["payload"]["content"].startswith("DONE:"), 60)
    assert "while-away" in reply["payload"]["content"]
    await socket.ok("message.create", {"content": "RUN: echo back-again"}, conversationId=app.conversation)
    await socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                          and "back-again" in f["payload"]["content"] and f["payload"]["author"]["kind"] == "agent",
                          TURN_S)
    said = [f["payload"]["content"] for f in socket.events() if f["type"] == "message.created"]
    assert len([s for s in said if s.startswith("DONE:") and "while-away" in s]) == 1, said


ASK = re.compile(r"ASK: ([^\n|]+)((?:\|[^\n|]+)*)")


def asking(original: Any) -> Any:
    """The fake model, taught one more word: a user message `ASK: question | choice | choice` makes it call Hermes's
    `clarify` tool (no choices: an open question); once answered, it says `ANSWERED: <what the tool said>`."""
    def decide(body: dict[str, Any], side_text: str) -> tuple[str, dict[str, Any] | None]:
        tools = [t.get("function", {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        found = ASK.search(str(messages[users[-1]].get("content"))) if users and "clarify" in tools else None
        if found is None:
            return cast(tuple[str, dict[str, Any] | None], original(body, side_text))
        answered = [m for m in messages[users[-1] + 1:] if m.get("role") == "tool"]
        if answered:
            return f"ANSWERED: {str(answered[-1].get('content'))[:300]}", None
        choices = [c.strip() for c in found[2].split("|") if c.strip()]
        return "", {"name": "clarify", "arguments": {"question": found[1].strip(),
                                                     **({"choices": choices} if choices else {})}}
    return decide


@pytest.mark.real_agent
async def test_hermes_questions_are_cards_answered_on_the_card_or_in_the_chat(
        hub_factory: HubFactory, lap: Connect, hermes_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_models import openai_chat

    monkeypatch.setattr(openai_chat, "decide", asking(openai_chat.decide))
    hub = hub_factory()
    hermes: Hermes = hermes_factory(timeout=120)
    app = await hermes_chat(hub, hermes, lap)

    await app.say("ASK: Which target? | staging | prod")
    card = await app.card()
    assert card["type"] == "choice" and card["title"] == "Hermes asks: Which target?"
    assert [(o["id"], o["label"]) for o in card["options"]] == [("c1", "staging"), ("c2", "prod")]
    assert 3000 < seconds_left(card) <= 3600  # agent.clarify_timeout (Hermes's default: an hour)
    await app.socket.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "c2"}})
    reply = await app.said(lambda text: text.startswith("ANSWERED:"))
    assert "prod" in reply["content"]

    start = frames(app)
    await app.say("ASK: What should the release be called?")
    card = await app.card(start=start)
    assert card["type"] == "input" and card["title"] == "Hermes asks: What should the release be called?"
    await app.socket.ok("interaction.respond", {"interactionId": card["id"], "response": {"text": "Aurora"}})
    await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                              and f["payload"]["content"].startswith("ANSWERED:")
                              and "Aurora" in f["payload"]["content"], TURN_S, start)

    # Answered by writing in the conversation instead: Hermes takes the reply, and the card ends saying so.
    start = frames(app)
    await app.say("ASK: Which colour? | red | blue")
    card = await app.card(start=start)
    await app.say("green, please")
    ended = await app.ended(card["id"])
    assert ended["response"]["cause"] == "withdrawn"
    assert ended["response"]["reason"] == "Answered in the conversation, or Hermes stopped waiting for it."
    await app.socket.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                              and f["payload"]["content"].startswith("ANSWERED:")
                              and "green" in f["payload"]["content"], TURN_S, start)
