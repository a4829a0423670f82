"""The Python SDK (hub.sdk) against a real hub process: pairing, resume, outbox, typed outcomes, errors.

The SDK agent runs in the test's event loop; the person is a raw app socket (LapClient). A TCP relay between
the SDK and the hub (`Relay`) counts connection attempts and cuts the network under the SDK on demand.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import stat
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from hub.sdk import (
    AgentClient,
    AuthError,
    Credential,
    HubError,
    MessageStream,
    OutboxFull,
    Outcome,
    SdkError,
    TaskHandle,
    load_credential,
    pair,
    pair_or_load,
    save_credential,
)
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.polling import eventually as eventually
from tests.support.typed import FramePredicate

# Short presence timers so that drops are noticed quickly; nothing here waits for the 15-minute grace period.
FAST_ENV = {"LINEUP_HEARTBEAT_INTERVAL_S": "1", "LINEUP_CANCEL_TIMEOUT_S": "5"}
QUICK_BACKOFF: dict[str, Any] = {"backoff_initial_s": 0.05, "backoff_max_s": 0.3}


# ---- helpers ------------------------------------------------------------------------------------------------


class Relay:
    """A TCP relay on loopback between an agent and the hub.

    `connections` counts every connection attempt; `cut()` aborts every open connection (a network cut);
    with `refuse` set, new connections are dropped at once (the network stays down); with `mute_down` set,
    bytes from the hub to the agent are thrown away (acks get lost on the way back); with `blackhole` set,
    bytes are thrown away both ways and a close on one side never reaches the other (a silent partition).
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.connections = 0
        self.refuse = False
        self.mute_down = False
        self.thrown_away_down = bytearray()  # what `mute_down` threw away (the hub's frames are not masked)
        self.blackhole = False
        self._server: asyncio.base_events.Server | None = None
        self._links: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = []
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> Relay:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(self._serve(reader, writer))
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        if self.refuse:
            _abort(writer)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            _abort(writer)
            return
        link = (writer, up_writer)
        self._links.append(link)
        try:
            await asyncio.gather(self._pipe(reader, up_writer, down=False), self._pipe(up_reader, writer, down=True))
        finally:
            if not self.blackhole:  # else the other side stays open and in `_links` until cut()
                if link in self._links:
                    self._links.remove(link)
                _abort(writer)
                _abort(up_writer)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, *, down: bool) -> None:
        try:
            while data := await source.read(65536):
                if self.blackhole or (down and self.mute_down):
                    if down and self.mute_down:
                        self.thrown_away_down += data
                    continue
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            if not self.blackhole:
                _abort(sink)

    def cut(self) -> None:
        """Abort every open connection, in both directions (no close frame, no FIN: an RST)."""
        for client_side, hub_side in list(self._links):
            _abort(client_side)
            _abort(hub_side)
        self._links.clear()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.cut()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


def _abort(writer: asyncio.StreamWriter) -> None:
    writer.transport.abort()


class Api:
    """The owner's HTTP calls. Synchronous httpx in a thread: every socket is closed before the call returns
    (an AsyncClient now and then left one for the garbage collector, a ResourceWarning under load)."""

    def __init__(self, hub: HubProcess, token: str) -> None:
        self.hub = hub
        self.headers = {"Authorization": f"Bearer {token}"}

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        with httpx.Client(base_url=self.hub.base, timeout=10, headers=self.headers) as http:
            return http.request(method, path, **kwargs)

    async def get(self, path: str, **params: Any) -> Any:
        response = await asyncio.to_thread(self._call, "GET", path, params=params or None)
        assert response.status_code == 200, (path, response.text)
        return response.json()

    async def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return await asyncio.to_thread(self._call, "POST", path, json=body or {})

    async def code(self, name: str | None = "sdk agent") -> str:
        """A pairing code named `name` (None: unnamed, so the agent's own name is used)."""
        response = await self.post("/api/pairing-codes", {"name": name} if name is not None else {})
        assert response.status_code == 201, response.text
        return str(response.json()["code"])

    async def events(self) -> list[dict[str, Any]]:
        """Every stored event of the workspace, in order."""
        found: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            page = await self.get("/api/events", after=after)
            found.extend(page["events"])
            after = page["nextAfter"]
        return found


def iso_in(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def count(events: list[dict[str, Any]], type_: str, **match: Any) -> int:
    return sum(1 for e in events if e["type"] == type_
               and all(e.get(k, e["payload"].get(k)) == v for k, v in match.items()))


@dataclass
class World:
    """A hub, its owner's API and app socket, and one SDK-paired agent with a conversation `c1`."""

    hub: HubProcess
    token: str
    api: Api
    credential: Credential
    app: LapClient
    tmp: Path
    clients: list[AgentClient]
    relays: list[Relay]

    def client(self, *, via: Relay | None = None, **options: Any) -> AgentClient:
        credential = self.credential
        if via is not None:
            credential = Credential(via.url, credential.agent_id, credential.workspace_id, credential.credential)
        client = AgentClient(credential, **{**QUICK_BACKOFF, **options})
        self.clients.append(client)
        return client

    async def relay(self) -> Relay:
        relay = await Relay(self.hub.port).start()
        self.relays.append(relay)
        return relay

    async def reopen_app(self) -> LapClient:
        await self.app.close()
        self.app = await LapClient.connect(self.hub.ws_base, "app", self.token)
        return self.app

    async def new_task(self, task_id: str, title: str = "Do it") -> None:
        await self.app.ok("task.create", {"title": title}, conversationId="c1", taskId=task_id)

    async def finished(self, task_id: str, status: str = "succeeded", timeout: float = 15.0) -> dict[str, Any]:
        return await self.app.event("task.status_changed", timeout=timeout, taskId=task_id, status=status)


@pytest.fixture
async def world(hub_factory: HubFactory, tmp_path: Path) -> AsyncIterator[World]:
    hub = hub_factory("hub", env=FAST_ENV)
    token = hub.token()
    api = Api(hub, token)
    credential = await pair(hub.base, await api.code(), name="sdk agent", runtime="python-sdk", agent_version="9.9")
    app = await LapClient.connect(hub.ws_base, "app", token)
    await app.ok("conversation.create", {"title": "Work", "agentIds": [credential.agent_id]}, conversationId="c1")
    w = World(hub, token, api, credential, app, tmp_path, [], [])
    yield w
    for client in w.clients:
        await client.close()
    for relay in w.relays:
        await relay.close()
    await w.app.close()


def stepper(client: AgentClient, handled: Counter[str], gates: dict[str, asyncio.Event] | None = None,
            reached: dict[str, asyncio.Event] | None = None) -> None:
    """A task handler that reports two steps, a message and success, pausing between the steps on a gate."""
    gates = gates if gates is not None else {}
    reached = reached if reached is not None else {}

    @client.on_task
    async def work(task: TaskHandle) -> None:
        handled[task.id] += 1
        await task.accept()
        await task.progress(30, "step 1")
        if task.id in gates:
            reached[task.id].set()
            await gates[task.id].wait()
        await task.progress(60, "step 2")
        await task.message(f"done with {task.id}")
        await task.succeed("all done")


def assert_each_once(events: list[dict[str, Any]], task_ids: list[str]) -> None:
    """Every step of every task is stored exactly once: nothing lost, nothing doubled."""
    for task_id in task_ids:
        assert count(events, "task.created", taskId=task_id) == 1, task_id
        assert count(events, "task.accepted", taskId=task_id) == 1, task_id
        assert count(events, "task.status_changed", taskId=task_id, summary="step 1") == 1, task_id
        assert count(events, "task.status_changed", taskId=task_id, summary="step 2") == 1, task_id
        assert count(events, "message.created", taskId=task_id, content=f"done with {task_id}") == 1, task_id
        assert count(events, "task.status_changed", taskId=task_id, status="succeeded") == 1, task_id


# ---- pairing and the credential file ------------------------------------------------------------------------


async def test_pair_or_load_stores_the_credential_for_the_owner_only(world: World) -> None:
    path = world.tmp / "conf" / "agent.json"
    code = await world.api.code(None)  # not named in the app: the agent's own name is used
    credential = await pair_or_load(world.hub.base, code, path, name="filed")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not path.with_name("agent.json.tmp").exists()
    stored = json.loads(path.read_text())
    assert stored == {"hub_url": world.hub.base, "agent_id": credential.agent_id,
                      "workspace_id": world.credential.workspace_id, "credential": credential.credential,
                      "tls_fingerprint": None, "code_sha256": hashlib.sha256(code.encode()).hexdigest()}
    assert code not in path.read_text()
    # The same code again (an MCP client's config repeats it at every start) loads the file, spends nothing.
    assert await pair_or_load("http://127.0.0.1:9", code, path) == credential
    assert credential.credential not in repr(credential)
    agents = {a["id"]: a for a in (await world.api.get("/api/agents"))["agents"]}
    assert agents[credential.agent_id]["name"] == "filed"

    # The second run loads the file: no code, no network (the address is not even reachable).
    again = await pair_or_load("http://127.0.0.1:9", None, path)
    assert again == credential
    # No file and no code: a clear error, not a crash.
    with pytest.raises(SdkError, match="No credential"):
        await pair_or_load(world.hub.base, None, world.tmp / "missing.json")

    # Saving over a file that others could read tightens it to 0600.
    loose = world.tmp / "loose.json"
    loose.write_text("{}")
    os.chmod(loose, 0o644)
    save_credential(credential, loose)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600
    assert load_credential(loose) == credential


async def test_pairing_errors_are_clear(world: World) -> None:
    code = await world.api.code()
    await pair(world.hub.base, code)
    with pytest.raises(AuthError) as used:
        await pair(world.hub.base, code)  # single use
    assert used.value.code in ("unauthorized", "expired")
    with pytest.raises(AuthError) as wrong:
        await pair(world.hub.base, "ZZZZ-ZZZZ")
    assert wrong.value.code == "unauthorized" and wrong.value.message
    with pytest.raises(SdkError, match="Cannot reach the hub"):
        await pair("http://127.0.0.1:9", "ABCD-EFGH", timeout_s=2)


# ---- handlers, the cursor and resume ------------------------------------------------------------------------


async def test_task_handler_runs_once_and_the_cursor_survives_a_restart(world: World) -> None:
    state = world.tmp / "agent.state.json"
    first = world.client(state_path=state, capabilities=["tasks"])
    handled: Counter[str] = Counter()
    stepper(first, handled)
    await first.start(timeout_s=10)
    assert first.connected and first.connections == 1
    await world.new_task("t1")
    await world.finished("t1")
    await first.close()
    assert handled == Counter({"t1": 1})

    cursor = json.loads(state.read_text())
    hub_state = await world.api.get("/api/state")
    created = await world.app.event("task.created", taskId="t1")
    assert cursor["epoch"] == hub_state["epoch"]
    assert created["sequence"] <= cursor["lastSequence"] <= hub_state["headSequence"]

    # A task created while the agent is away arrives when it comes back; t1 is not handed over again.
    await world.new_task("t2")
    second = world.client(state_path=state)
    handled_again: Counter[str] = Counter()
    stepper(second, handled_again)
    await second.start(timeout_s=10)
    await world.finished("t2")
    await world.new_task("t3")
    await world.finished("t3")
    assert handled_again == Counter({"t2": 1, "t3": 1})
    await second.close()
    assert_each_once(await world.api.events(), ["t1", "t2", "t3"])

    # Without the stored cursor every assignment is replayed, yet no finished task is handed over again: the
    # hub's list of open tasks in the welcome decides (t4, assigned after it caught up, is the sentinel).
    amnesiac = world.client()
    seen: list[str] = []

    @amnesiac.on_task
    async def record(task: TaskHandle) -> None:
        seen.append(task.id)

    await amnesiac.start(timeout_s=10)
    assert amnesiac.last_sequence >= created["sequence"]  # the replay did include t1's assignment
    await world.new_task("t4")
    await eventually(lambda: "t4" in seen, what="the new task handed over")
    assert seen == ["t4"]


async def test_a_cursor_the_hub_does_not_know_starts_over_without_losing_a_task(world: World) -> None:
    state = world.tmp / "stale.state.json"
    state.write_text(json.dumps({"epoch": "another-hubs-epoch", "lastSequence": 10_000}))
    await world.new_task("queued-before")
    client = world.client(state_path=state)
    handled: Counter[str] = Counter()
    stepper(client, handled)
    await client.start(timeout_s=10)
    await world.finished("queued-before")
    assert handled == Counter({"queued-before": 1})
    hub_state = await world.api.get("/api/state")
    assert client.epoch == hub_state["epoch"]
    await client.close()
    assert json.loads(state.read_text())["epoch"] == hub_state["epoch"]


async def test_a_cursor_of_another_agent_is_not_taken_over(world: World) -> None:
    """Paired again with a fresh code, an agent gets a new identity but the same state file (seen walking through it by
    hand): the previous agent's cursor is not this one's; its own is kept, and the file names whose it is."""
    state = world.tmp / "shared.state.json"
    hub_state = await world.api.get("/api/state")
    state.write_text(json.dumps({"agentId": "agt_previous", "epoch": hub_state["epoch"], "lastSequence": 7}))
    stranger = world.client(state_path=state)
    assert (stranger.epoch, stranger.last_sequence) == (None, 0)
    await stranger.start(timeout_s=10)
    await stranger.close()
    saved = json.loads(state.read_text())
    assert saved["agentId"] == world.credential.agent_id and saved["epoch"] == hub_state["epoch"]
    again = world.client(state_path=state)
    assert (again.epoch, again.last_sequence) == (saved["epoch"], saved["lastSequence"])


async def test_on_handlers_receive_events_of_their_type(world: World) -> None:
    client = world.client()
    delivered: list[dict[str, Any]] = []
    got = asyncio.Event()

    @client.on("message.delivered")
    async def on_message(envelope: dict[str, Any]) -> None:
        delivered.append(envelope)
        got.set()

    await client.start(timeout_s=10)
    await world.app.ok("message.create", {"content": "hello agent"}, conversationId="c1")
    await asyncio.wait_for(got.wait(), 10)
    assert [(e["conversationId"], e["payload"]["content"]) for e in delivered] == [("c1", "hello agent")]
    assert delivered[0]["payload"]["author"]["kind"] == "user"


# ---- the hub dies, the network breaks ---------------------------------------------------------------------


@pytest.mark.hub_process  # kill -9
async def test_hub_killed_mid_task_and_restarted(world: World) -> None:
    client = world.client(state_path=world.tmp / "state.json")
    handled: Counter[str] = Counter()
    gates, reached = {"t1": asyncio.Event()}, {"t1": asyncio.Event()}
    stepper(client, handled, gates, reached)
    await client.start(timeout_s=10)
    await world.new_task("t1")
    await asyncio.wait_for(reached["t1"].wait(), 10)
    await world.app.event("task.status_changed", taskId="t1", summary="step 1")

    world.hub.kill()  # kill -9, mid-task
    await eventually(lambda: not client.connected, what="the SDK noticing the dead hub")
    gates["t1"].set()  # the agent carries on: its next envelope waits in the outbox
    await eventually(lambda: len(client.outbox) == 1, what="step 2 waiting in the outbox")

    await asyncio.to_thread(world.hub.start)
    await client.wait_connected(15)
    await world.reopen_app()
    await world.finished("t1")
    await world.new_task("t2")
    await world.finished("t2")

    assert handled == Counter({"t1": 1, "t2": 1})
    assert client.connections >= 2
    await eventually(lambda: len(client.outbox) == 0, what="every envelope acked")
    assert_each_once(await world.api.events(), ["t1", "t2"])


async def test_network_cut_and_resume(world: World) -> None:
    relay = await world.relay()
    client = world.client(via=relay, state_path=world.tmp / "state.json")
    handled: Counter[str] = Counter()
    gates, reached = {"t1": asyncio.Event()}, {"t1": asyncio.Event()}
    stepper(client, handled, gates, reached)
    await client.start(timeout_s=10)
    assert relay.connections == 1
    await world.new_task("t1")
    await asyncio.wait_for(reached["t1"].wait(), 10)

    relay.refuse = True
    relay.cut()
    await eventually(lambda: not client.connected, what="the SDK noticing the cut")
    gates["t1"].set()
    await eventually(lambda: len(client.outbox) == 1, what="step 2 waiting in the outbox")
    await world.app.event("agent.status_changed", agentId=world.credential.agent_id, status="offline")
    await world.new_task("t2")  # assigned while the agent cannot be reached
    await eventually(lambda: relay.connections >= 3, what="reconnect attempts while the network is down")

    relay.refuse = False
    await client.wait_connected(10)
    await world.finished("t1")
    await world.finished("t2")
    assert handled == Counter({"t1": 1, "t2": 1})
    assert_each_once(await world.api.events(), ["t1", "t2"])


async def test_an_ack_lost_in_the_cut_is_not_stored_twice(world: World) -> None:
    relay = await world.relay()
    client = world.client(via=relay)
    await client.start(timeout_s=10)

    relay.mute_down = True  # the hub hears the agent; nothing comes back
    pending = client.send_nowait("message.create", {"content": "exactly once", "messageId": "m-once"},
                                 conversationId="c1")
    stored = await world.app.event("message.created", messageId="m-once")
    # The hub's ack reached the relay and was thrown away: the only answer the SDK could have had is gone.
    await eventually(lambda: b'"system.ack"' in relay.thrown_away_down, timeout=30, what="the ack thrown away")
    assert not pending.done() and len(client.outbox) == 1

    relay.mute_down = False
    relay.cut()
    ack = await asyncio.wait_for(pending, 10)  # re-sent with the same id after the reconnect
    assert ack["duplicate"] is True
    assert ack["sequence"] == stored["sequence"]
    assert len(client.outbox) == 0
    assert count(await world.api.events(), "message.created", messageId="m-once") == 1


async def test_outbox_full_while_the_hub_is_unreachable(world: World) -> None:
    relay = await world.relay()
    client = world.client(via=relay, max_outbox=3)
    await client.start(timeout_s=10)
    relay.refuse = True
    relay.cut()
    await eventually(lambda: not client.connected, what="the SDK noticing the cut")

    waiting = [client.send_nowait("message.create", {"content": f"queued {i}", "messageId": f"q{i}"},
                                  conversationId="c1") for i in range(3)]
    with pytest.raises(OutboxFull, match="limit 3"):
        client.send_nowait("message.create", {"content": "one too many", "messageId": "q3"}, conversationId="c1")
    with pytest.raises(OutboxFull):
        await client.send("message.create", {"content": "one too many", "messageId": "q3"}, conversationId="c1")
    assert len(client.outbox) == 3 and not any(f.done() for f in waiting)

    relay.refuse = False
    acks = await asyncio.wait_for(asyncio.gather(*waiting), 10)
    assert [a["duplicate"] for a in acks] == [False, False, False]
    assert [a["sequence"] for a in acks] == sorted(a["sequence"] for a in acks)  # sent in order
    assert len(client.outbox) == 0
    await client.send("message.create", {"content": "room again", "messageId": "q3"}, conversationId="c1")
    messages = (await world.api.get("/api/conversations/c1/messages"))["messages"]
    assert [m["content"] for m in messages] == ["queued 0", "queued 1", "queued 2", "room again"]


# ---- errors -----------------------------------------------------------------------------------------------


async def test_a_refused_envelope_raises_hub_error_with_the_code(world: World) -> None:
    client = world.client()
    errors: dict[str, HubError] = {}
    finished = asyncio.Event()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        try:
            await task.succeed("too early")  # queued -> succeeded is not a legal move
        except HubError as exc:
            errors["early"] = exc
        await task.accept()
        await task.accept()  # accepting a running task again (a restarted agent) is not an error
        await task.succeed("done")
        try:
            await task.progress(50, "after the end")  # a finished task takes no more progress
        except HubError as exc:
            errors["late"] = exc
        finished.set()

    await client.start(timeout_s=10)
    await world.new_task("t1")
    await world.finished("t1")
    assert errors["early"].code == "illegal_transition" and errors["early"].hint
    await asyncio.wait_for(finished.wait(), 10)
    assert errors["late"].code == "illegal_transition" and "succeeded" in errors["late"].message

    await world.app.ok("conversation.create", {"title": "Private", "agentIds": []}, conversationId="c-private")
    with pytest.raises(HubError) as outsider:
        await client.send("message.create", {"content": "let me in"}, conversationId="c-private")
    assert outsider.value.code == "forbidden"
    with pytest.raises(HubError) as malformed:
        await client.send("task.status_changed", {"status": "failed"}, taskId="t1")  # no error object
    assert malformed.value.code in ("invalid_payload", "illegal_transition")
    assert len(client.outbox) == 0 and client.connected
    assert count(await world.api.events(), "message.created", conversationId="c-private") == 0
    # The connection is still good.
    ack = await client.send("message.create", {"content": "still here"}, conversationId="c1")
    assert isinstance(ack["sequence"], int)


async def test_a_cap_only_the_person_lifts_raises_at_once_instead_of_hanging(world: World) -> None:
    """Seen walking through it by hand: the 101st waiting question made `send` retry `rate_limited` every second,
    for ever and silently. Too fast is retried; 100 questions already waiting is the caller's error."""
    client = world.client()
    await client.start(timeout_s=10)

    def question(n: int) -> dict[str, Any]:
        return {"interaction": {"id": f"q-cap-{n}", "type": "approval", "title": f"Question {n}"}}

    for n in range(100):  # the burst allows 100 at once; the cap allows 100 waiting
        await client.send("interaction.requested", question(n), conversationId="c1")
    with pytest.raises(HubError) as capped:
        await asyncio.wait_for(client.send("interaction.requested", question(100), conversationId="c1"), 10)
    assert capped.value.code == "rate_limited" and capped.value.details["limit"] == "pendingQuestions", capped.value
    assert len(client.outbox) == 0 and client.connected
    # Once the person answers one, the agent may ask again.
    await world.app.ok("interaction.respond", {"interactionId": "q-cap-0", "response": {"optionId": "approve"}})
    ack = await client.send("interaction.requested", question(101), conversationId="c1")
    assert isinstance(ack["sequence"], int)


async def test_a_bad_credential_is_a_clear_error_without_retries(world: World) -> None:
    relay = await world.relay()
    bogus = Credential(relay.url, world.credential.agent_id, world.credential.workspace_id, "lak_not-a-secret")
    client = AgentClient(bogus, backoff_initial_s=0.01, backoff_max_s=0.05)
    world.clients.append(client)
    began = time.monotonic()
    with pytest.raises(AuthError) as refused:
        await client.start(timeout_s=10)
    assert time.monotonic() - began < 3
    assert refused.value.code == "unauthorized"
    assert "revoked" in refused.value.message or "unknown" in refused.value.message
    # start() raised what ended its run loop, the only thing that connects: no retry can follow.
    assert client._runner is not None and client._runner.done()
    assert relay.connections == 1

    with pytest.raises(AuthError):
        await asyncio.wait_for(AgentClient(bogus).run(), 5)
    assert relay.connections == 2


async def test_a_revoked_credential_stops_run_without_reconnecting(world: World) -> None:
    relay = await world.relay()
    client = world.client(via=relay, backoff_initial_s=0.01, backoff_max_s=0.05)
    runner = asyncio.create_task(client.run())
    await client.wait_connected(10)
    assert relay.connections == 1

    response = await world.api.post(f"/api/agents/{world.credential.agent_id}/revoke")
    assert response.status_code in (200, 204), response.text
    with pytest.raises(AuthError) as stopped:
        await asyncio.wait_for(runner, 5)
    assert stopped.value.code == "unauthorized"
    # run() itself ended (the only loop that connects): no reconnect can follow.
    assert relay.connections == 1, "the SDK reconnected with a credential the hub had revoked"
    assert not client.connected


# ---- asking the person ------------------------------------------------------------------------------------


async def test_ask_returns_typed_outcomes(world: World) -> None:
    client = world.client()
    outcomes: dict[str, Outcome] = {}

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        outcomes["approve"] = await task.ask_approval("Deploy?", "to production", risk="high", impact="downtime",
                                                      interaction_id="i-approve")
        outcomes["reject"] = await task.ask_approval("Drop the table?", interaction_id="i-reject")
        outcomes["choice"] = await task.ask_choice("Colour?", ["red", "blue", "green"], interaction_id="i-choice")
        outcomes["multi"] = await task.ask_choice("Sizes?", ["s", "m", "l"], multiple=True, interaction_id="i-multi")
        outcomes["input"] = await task.ask_input("Your name?", placeholder="Ada", interaction_id="i-input")
        outcomes["review"] = await task.ask_review("Review the plan", "1. migrate\n2. deploy",
                                                   interaction_id="i-review")
        outcomes["declined"] = await task.ask_input("A secret?", interaction_id="i-declined")
        outcomes["expired"] = await task.ask_choice("Quick!", ["a", "b"], expires_at=iso_in(1.0),
                                                    interaction_id="i-expired")
        outcomes["again"] = await task.ask_approval("Deploy?", interaction_id="i-approve")  # known: not asked again
        await task.succeed("asked everything")

    await client.start(timeout_s=10)
    await world.new_task("t1")
    answers = {"i-approve": {"optionId": "approve", "comment": "go"}, "i-reject": {"optionId": "reject"},
               "i-choice": {"optionId": "o2"}, "i-multi": {"optionIds": ["o1", "o3"]}, "i-input": {"text": "Ada"},
               "i-review": {"decision": "request_changes", "comment": "step 3?"},
               "i-declined": {"declined": True, "comment": "no"}}
    for interaction_id, response in answers.items():
        requested = await world.app.wait_for(
            cast(FramePredicate, lambda f, i=interaction_id: f["type"] == "interaction.requested"
                 and f.get("sequence") is not None and f["payload"]["interaction"]["id"] == i))
        assert requested["taskId"] == "t1"
        await world.app.ok("interaction.respond", {"interactionId": interaction_id, "response": response})
    await world.finished("t1", timeout=15)

    approve = outcomes["approve"]
    assert (approve.outcome, approve.answered, approve.approved, approve.option_id, approve.comment) == \
        ("answered", True, True, "approve", "go")
    assert approve.responded_by is not None and approve.responded_by.get("kind") == "user"
    assert (outcomes["reject"].outcome, outcomes["reject"].approved, outcomes["reject"].answered) == \
        ("declined", False, False)
    assert (outcomes["choice"].outcome, outcomes["choice"].option_id, outcomes["choice"].option_ids) == \
        ("answered", "o2", ["o2"])
    assert outcomes["multi"].option_ids == ["o1", "o3"]
    assert outcomes["input"].text == "Ada"
    assert (outcomes["review"].decision, outcomes["review"].comment) == ("request_changes", "step 3?")
    assert outcomes["declined"].outcome == "declined" and not outcomes["declined"].approved
    assert outcomes["expired"].outcome == "expired" and not outcomes["expired"].answered
    assert outcomes["again"] is approve

    events = await world.api.events()
    assert count(events, "interaction.requested", taskId="t1") == 8  # "again" asked nothing
    spec = next(e for e in events if e["type"] == "interaction.requested")["payload"]["interaction"]
    assert (spec["type"], spec["risk"], spec["impact"], spec["description"]) == \
        ("approval", "high", "downtime", "to production")
    assert count(events, "interaction.expired") == 1


async def test_ask_ends_cancelled_when_the_task_is_cancelled(world: World) -> None:
    client = world.client()
    result: dict[str, Any] = {}

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        result["outcome"] = await task.ask_approval("Proceed?", interaction_id="i-cancel")
        result["cancel_requested"] = task.cancel_requested.is_set()
        result["reason"] = task.cancel_reason
        try:
            await task.cancelled("confirming")  # the person's cancel already ended the task
            result["confirm"] = "ok"
        except HubError as exc:
            result["confirm"] = exc.code

    await client.start(timeout_s=10)
    await world.new_task("t1")
    await world.app.event("task.status_changed", taskId="t1", status="waiting_for_human")
    await world.app.ok("task.cancel_requested", {"reason": "changed my mind"}, taskId="t1")
    await world.finished("t1", status="cancelled")
    await eventually(lambda: "confirm" in result, what="the handler finishing")
    outcome = result["outcome"]
    assert isinstance(outcome, Outcome)
    assert (outcome.outcome, outcome.answered, outcome.approved) == ("cancelled", False, False)
    assert result["cancel_requested"] is True and result["reason"] == "changed my mind"
    # Confirming a cancel that already happened is harmless (accepted as a no-op move, or refused as
    # illegal); it must not bring the task back or let it finish any other way.
    assert result["confirm"] in ("ok", "illegal_transition")
    task = (await world.api.get("/api/tasks/t1"))["task"]
    assert task["status"] == "cancelled"
    interactions = (await world.api.get("/api/tasks/t1"))["interactions"]
    assert [(i["id"], i["status"]) for i in interactions] == [("i-cancel", "cancelled")]


async def test_cancel_of_a_running_task_reaches_the_handler(world: World) -> None:
    client = world.client()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await asyncio.wait_for(task.cancel_requested.wait(), 10)
        await task.cancelled(f"stopped: {task.cancel_reason}")

    await client.start(timeout_s=10)
    await world.new_task("t1")
    await world.app.event("task.status_changed", taskId="t1", status="running")
    began = time.monotonic()
    await world.app.ok("task.cancel_requested", {"reason": "enough"}, taskId="t1")
    done = await world.finished("t1", status="cancelled")
    assert time.monotonic() - began < 3  # the agent confirmed, not the 5 s cancel timeout
    assert done["payload"]["summary"] == "stopped: enough"
    assert done["payload"].get("cause") != "cancel_timeout"


async def test_streamed_message_goes_out_live_and_is_stored_whole(world: World) -> None:
    client = world.client()
    await client.start(timeout_s=10)
    async with MessageStream(client, "c1", None) as stream:
        await stream.write("one ")
        first = await world.app.wait_for(lambda f: f["type"] == "message.delta")  # live, before the end
        assert first.get("sequence") is None and first["conversationId"] == "c1"
        await stream.write("two ")
        await stream.write("three")
        assert not [f for f in world.app.frames if f["type"] == "message.created"]
    deltas = [f["payload"] for f in world.app.frames if f["type"] == "message.delta"]
    assert [(d["offset"], d["text"]) for d in deltas] == [(0, "one "), (4, "two "), (8, "three")]
    assert all(d["messageId"] == stream.message_id for d in deltas)
    created = await world.app.event("message.created", messageId=stream.message_id)
    assert created["payload"]["content"] == "one two three"


async def test_backoff_starts_over_after_every_successful_connection(world: World) -> None:
    """A long-lived agent survives many cuts; each one costs a short wait, not an ever longer one."""
    relay = await world.relay()
    client = world.client(via=relay, backoff_initial_s=0.2, backoff_max_s=10.0)
    await client.start(timeout_s=10)
    for cut in range(1, 7):
        relay.cut()
        await eventually(lambda: not client.connected, what="the SDK noticing the cut")
        began = time.monotonic()
        await client.wait_connected(15)
        waited = time.monotonic() - began
        # The first retry waits 0.1-0.2 s; a backoff that kept growing would wait 0.2 * 2**(cut - 1) here.
        assert waited < 1.0, f"reconnect {cut} took {waited:.2f} s"
    assert client.connections == 7


async def test_a_silent_partition_is_noticed_and_healed(world: World) -> None:
    """The link goes dead without a close reaching the agent (Wi-Fi gone, laptop asleep): the agent must notice
    from the hub's silence (no pong, no frame) within a few heartbeat intervals and reconnect, instead of
    waiting for TCP to time out, which takes minutes while the hub fails its tasks as unreachable."""
    relay = await world.relay()
    client = world.client(via=relay)
    await client.start(timeout_s=10)
    assert client.heartbeat_interval_s == 1.0
    relay.blackhole = True
    await world.app.event("agent.status_changed", agentId=world.credential.agent_id, status="offline")
    await eventually(lambda: not client.connected, timeout=6, what="the SDK noticing the silent hub")
    relay.blackhole = False
    relay.cut()  # forget the dead links; new connections pass again
    mark = len(world.app.frames)
    await client.wait_connected(10)
    await world.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["status"] == "online"
                             and f["payload"]["agentId"] == world.credential.agent_id, start=mark)
    ack = await client.send("message.create", {"content": "back"}, conversationId="c1")
    assert isinstance(ack["sequence"], int)


async def test_close_does_not_hang_on_a_stream_cut_short_while_the_hub_is_away(world: World) -> None:
    relay = await world.relay()
    client = world.client(via=relay)
    streaming = asyncio.Event()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        async with task.stream() as stream:
            await stream.write("partial output ")
            streaming.set()
            await asyncio.sleep(60)

    await client.start(timeout_s=10)
    await world.new_task("t1")
    await asyncio.wait_for(streaming.wait(), 10)
    relay.refuse = True
    relay.cut()
    await eventually(lambda: not client.connected, what="the SDK noticing the cut")
    began = time.monotonic()
    await asyncio.wait_for(client.close(), 5)  # cancels the handler inside its stream
    assert time.monotonic() - began < 2


# ---- an agent killed mid-task -------------------------------------------------------------------------------

RESUMING_AGENT = r"""
import asyncio, sys
from hub.sdk import AgentClient
from hub.sdk.credentials import load_credential

async def main():
    client = AgentClient(load_credential(sys.argv[1]), state_path=sys.argv[2], backoff_initial_s=0.05,
                         backoff_max_s=0.3)

    @client.on_task
    async def work(task):
        print("HANDLING", task.id, "resumed" if task.resumed else "new", flush=True)
        await task.accept()
        await task.progress(10, "started")
        # The same interaction id on every run: a resumed handler waits for the same question's answer.
        outcome = await task.ask_approval("Go on?", interaction_id=f"{task.id}-go")
        print("OUTCOME", task.id, outcome.outcome, flush=True)
        if task.cancel_requested.is_set():
            await task.cancelled()
            return
        await task.succeed("went on" if outcome.approved else "stopped")

    await client.run()

asyncio.run(main())
"""


async def _start_agent(world: World, state: Path) -> asyncio.subprocess.Process:
    script, cred = world.tmp / "resuming_agent.py", world.tmp / "credential.json"
    script.write_text(RESUMING_AGENT)
    if not cred.exists():
        save_credential(world.credential, cred)
    return await asyncio.create_subprocess_exec(sys.executable, str(script), str(cred), str(state),
                                                stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).parents[2])


async def _line(proc: asyncio.subprocess.Process, prefix: str, timeout: float = 15.0) -> str:
    assert proc.stdout is not None
    while True:
        line = (await asyncio.wait_for(proc.stdout.readline(), timeout)).decode()
        assert line, f"the agent exited ({proc.returncode}) before printing {prefix!r}"
        if line.startswith(prefix):
            return line.strip()


async def test_an_agent_killed_mid_task_resumes_it_and_asks_nothing_twice(world: World) -> None:
    state = world.tmp / "agent.state.json"
    first = await _start_agent(world, state)
    try:
        await world.new_task("t-kill")
        assert await _line(first, "HANDLING") == "HANDLING t-kill new"
        asked = await world.app.event("interaction.requested", taskId="t-kill")
    finally:
        first.kill()  # SIGKILL: no goodbye, the task stays running on the hub
        await first.wait()
    # The person answers while the agent is down.
    await world.app.ok("interaction.respond", {"interactionId": asked["payload"]["interaction"]["id"],
                                               "response": {"approved": True, "optionId": "approve"}})
    second = await _start_agent(world, state)
    try:
        assert await _line(second, "HANDLING") == "HANDLING t-kill resumed"
        assert await _line(second, "OUTCOME") == "OUTCOME t-kill answered"
        await world.finished("t-kill")
    finally:
        second.kill()
        await second.wait()
    events = await world.api.events()
    assert count(events, "interaction.requested", taskId="t-kill") == 1  # asked once, across both runs
    assert count(events, "task.status_changed", taskId="t-kill", status="succeeded") == 1


async def test_a_task_ended_while_its_agent_was_down_is_not_resumed(world: World) -> None:
    state = world.tmp / "agent.state.json"
    first = await _start_agent(world, state)
    try:
        await world.new_task("t-gone")
        await _line(first, "HANDLING")
        await world.app.event("interaction.requested", taskId="t-gone")
    finally:
        first.kill()
        await first.wait()
    # Cancelled while it waits for the person: the hub ends it at once, and its list of open tasks no longer
    # has it when the agent comes back.
    await world.app.ok("task.cancel_requested", {}, taskId="t-gone")
    await world.finished("t-gone", status="cancelled")
    mark = len(world.app.frames)
    second = await _start_agent(world, state)
    try:
        await world.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["status"] == "online",
                                 start=mark, timeout=15)
        # The sentinel: a task given after it connected is the first one it handles; t-gone would come first.
        await world.new_task("t-next")
        assert await _line(second, "HANDLING") == "HANDLING t-next new"
    finally:
        second.kill()
        await second.wait()
