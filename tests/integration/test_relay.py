"""The WuKongIM uplink (docs/relay.md) against a protocol-faithful fake WuKongIM, on loopback."""
# First the fake is shown faithful (the official SDK connects, sends and receives through it; on the v2 line the
# SDK fails exactly as seen against a real server), then the hub end to end: agent → hub → WuKongIM → a person answering
# by text → the agent; disconnects on either side and a hub restart losing nothing and repeating nothing.

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import pytest
from wukong_easy_sdk import WKIM, AuthOptions, WKIMDeviceFlag, WKIMError, WKIMEvent, WKIMOptions

from hub.relay import textreply
from hub.relay.admin import status_report
from hub.relay.config import load_relay_config
from hub.relay.probe import probe
from hub.relay.transport import Inbound, TransportError
from hub.relay.v2_transport import V2Transport
from tests.support.fake_wukong import FakeWuKong
from tests.support.fence import fence
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess, pair_agent, run_cli
from tests.support.lap import LapClient
from tests.support.polling import eventually as until

HUB_UID = "lineup-hub"
MANAGER = "manager-secret"


@pytest.fixture
async def fakes() -> AsyncIterator[Callable[..., Any]]:
    started: list[FakeWuKong] = []

    async def make(line: str = "compat", **options: Any) -> FakeWuKong:
        fake = await FakeWuKong(line, **options).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        await fake.stop()


class Person:
    """A simulated IM user: the official SDK on the compat line, the hub's v2 client on the v2 line."""

    def __init__(self, fake: FakeWuKong, uid: str = "alice", token: str = "alice-token") -> None:
        fake.tokens[(uid, 0)] = token
        self.fake, self.uid, self.token = fake, uid, token
        self.inbox: list[dict[str, Any]] = []
        self._new = asyncio.Event()
        self.client: Any = None

    async def connect(self) -> Person:
        if self.fake.line == "compat":
            self.client = WKIM(self.fake.ws_url, AuthOptions(self.uid, self.token, device_flag=WKIMDeviceFlag.APP),
                               WKIMOptions(ping_interval=0.5, max_reconnect_attempts=0))
            self.client.on(WKIMEvent.MESSAGE, lambda m: self._got(m["payload"]))
            await self.client.connect()
        else:
            async def on(message: Inbound) -> None:
                self._got(message.payload or {})
            self.client = V2Transport(self.fake.ws_url, self.uid, self.token, "alice-phone", 0, on,
                                      ping_interval_s=0.5, connect_timeout_s=3, request_timeout_s=3)
            await self.client.connect()
        return self

    def _got(self, payload: dict[str, Any]) -> None:
        self.inbox.append(payload)
        self._new.set()

    async def say(self, text: str) -> None:
        if self.fake.line == "compat":
            await self.client.send(HUB_UID, 1, {"type": 1, "content": text})
        else:
            await self.client.send(HUB_UID, {"type": 1, "content": text}, f"alice-{time.monotonic_ns()}", red_dot=True)

    def texts(self) -> list[str]:
        return [p["content"] for p in self.inbox if p.get("type") == 1]

    async def text(self, contains: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            found = [t for t in self.texts() if contains in t]
            if found:
                return found[-1]
            if time.monotonic() > deadline:
                raise AssertionError(f"no text with {contains!r}; got {self.texts()}")
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), max(0.05, deadline - time.monotonic()))

    async def close(self) -> None:
        if self.client is not None:
            await (self.client.destroy() if self.fake.line == "compat" else self.client.close())


def relay_toml(fake: FakeWuKong, **extra: Any) -> str:
    values: dict[str, Any] = {"ws_url": fake.ws_url, "api_url": fake.api_url, "uid": HUB_UID,
                              "manager_token": MANAGER, "ping_interval_s": 0.5, "reconnect_min_s": 0.1,
                              "reconnect_max_s": 0.4, "blocked_retry_s": 0.3, **extra}
    lines = ["[relay]", *(f"{k} = {json.dumps(v)}" for k, v in values.items())]
    lines.append('people = [{uid = "alice", user = "owner"}]')
    return "\n".join(lines) + "\n"


async def relay_hub(hub_factory: Callable[..., HubProcess], fake: FakeWuKong, name: str = "hub",
                    **extra: Any) -> tuple[HubProcess, str]:
    """A hub process with its owner (LineUp user `owner`) served to WuKongIM uid `alice`."""
    hub = hub_factory(name, start=False)
    hub.data_dir.mkdir(parents=True)
    token = hub.token()  # before the hub starts, as `lineup token` would be run
    (hub.data_dir / "lineup.toml").write_text(relay_toml(fake, **extra))
    await asyncio.to_thread(hub.start)
    return hub, token


async def cli(hub: HubProcess, *args: str, check: bool = True) -> Any:
    """`lineup ARGS` in a thread: the fake WuKongIM runs on this test's event loop and must keep answering."""
    return await asyncio.to_thread(run_cli, hub.data_dir, *args, check=check)


def relay_state(hub: HubProcess) -> dict[str, Any]:
    return status_report(load_relay_config(hub.data_dir / "lineup.toml", {}), hub.data_dir / "lineup.db")


async def connected(hub: HubProcess, timeout: float = 10.0) -> dict[str, Any]:
    def state() -> Any:
        status = relay_state(hub)["status"]
        return status if status and status["state"] == "connected" and not status["code"] else None
    return cast(dict[str, Any], await until(state, timeout, f"the relay to connect: {relay_state(hub)['status']}"))


async def agent_in_conversation(hub: HubProcess, token: str) -> tuple[LapClient, str]:
    credential = pair_agent(hub, token, name="Builder")["credential"]
    agent = await LapClient.connect(hub.ws_base, "agent", credential)
    cast(Any, agent).credential = credential  # to come back after a restart
    await agent.ok("conversation.create", {"title": "deploys", "agentIds": []}, conversationId="conv-1")
    return agent, "conv-1"


def count_pings(fake: FakeWuKong, uid: str) -> list[int]:
    """A one-item list that counts the pings `uid`'s sessions send the fake from now on. Both clients send a ping
    only once the last one's pong came back, so n more pings mean n - 1 more pongs answered and taken."""
    counted = [0]
    handle = fake._frame

    async def counting(conn: Any, raw: Any) -> bool:
        text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
        if conn.uid == uid and re.search(r'"method":\s*"ping"', text):
            counted[0] += 1
        return await handle(conn, raw)
    fake._frame = counting  # type: ignore[method-assign]
    return counted


def lap_sequences(fake: FakeWuKong) -> list[int]:
    return [p["envelope"]["sequence"] for p in fake.payloads(HUB_UID, "alice", HUB_UID) if p.get("type") == 5201
            and p["envelope"].get("sequence") is not None]


# ---- the fake is faithful: the official SDK works through it --------------------------------------------------

async def test_official_sdk_connects_sends_and_receives_through_the_fake(fakes: Any) -> None:
    fake = await fakes("compat")
    fake.tokens[("bob", 0)] = "bob-token"
    alice = Person(fake)
    await alice.connect()
    got: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    bob = WKIM(fake.ws_url, AuthOptions("bob", "bob-token", device_flag=WKIMDeviceFlag.APP),
               WKIMOptions(ping_interval=0.2, pong_timeout=1))
    errors: list[WKIMError] = []
    bob.on(WKIMEvent.MESSAGE, got.put_nowait)
    bob.on(WKIMEvent.ERROR, errors.append)
    try:
        await bob.connect()
        ack = await alice.client.send("bob", 1, {"type": 1, "content": "你好 bob"})
        message = await asyncio.wait_for(got.get(), 5)
        assert message["payload"] == {"type": 1, "content": "你好 bob"} and message["fromUid"] == "alice"
        assert message["messageId"] == ack["messageId"] and isinstance(ack["messageId"], str)
        await bob.send("alice", 1, {"type": 1, "content": "hi"})
        await alice.text("hi")
        pinged = count_pings(fake, "bob")
        await until(lambda: pinged[0] >= 4, 30, "several of bob's pings answered")  # and the session holds
        assert bob.is_connected and not errors
        assert ack["messageId"] in [a for c in fake.conns for a in c.acked]  # recvack reached the server
        stored = fake.history("alice", "bob")
        assert [json.loads(m.payload)["content"] for m in stored] == ["你好 bob", "hi"]  # Base64 decoded on arrival
        with pytest.raises(WKIMError) as refused:
            await WKIM(fake.ws_url, AuthOptions("bob", "wrong")).connect()
        assert refused.value.code == 2
    finally:
        await bob.destroy()
        await alice.close()


async def test_official_sdk_fails_on_the_v2_line_as_issue_8_reports(fakes: Any) -> None:
    """The fake's v2 wire format is the one the SDK cannot hold: the pong has no `result`, a header-less recv."""
    fake = await fakes("v2")
    fake.tokens[("bob", 0)] = "bob-token"
    errors: list[WKIMError] = []
    bob = WKIM(fake.ws_url, AuthOptions("bob", "bob-token", device_flag=WKIMDeviceFlag.APP),
               WKIMOptions(ping_interval=0.2, pong_timeout=1, max_reconnect_attempts=0))
    bob.on(WKIMEvent.ERROR, errors.append)
    try:
        await bob.connect()
        await until(lambda: errors, 5, "the first pong")
        assert errors[0].code == -6  # PROTOCOL: "Response must contain result or error"
        errors.clear()
        await bob.connect()
        alice = Person(fake)
        await alice.connect()
        await alice.client.send("bob", {"type": 1, "content": "no flags"}, "m-1", red_dot=False)  # no header
        await until(lambda: errors, 5, "the header-less recv")
        assert errors[0].code == -6
        await alice.close()
    finally:
        await bob.destroy()


async def test_v2_client_and_probe_on_both_lines(fakes: Any) -> None:
    for line in ("compat", "v2"):
        fake = await fakes(line, whitelist_off_of_person=False)
        fake.tokens[("bob", 0)] = "bob-token"
        got: list[Inbound] = []

        async def on(message: Inbound) -> None:
            got.append(message)
        bob = V2Transport(fake.ws_url, "bob", "bob-token", "b", 0, on, ping_interval_s=0.2, connect_timeout_s=3,
                          request_timeout_s=3)
        await bob.connect()
        alice = Person(fake)
        await alice.connect()
        with pytest.raises(TransportError) as refused:  # 唐僧叨叨's person whitelist
            await bob.send("alice", {"type": 1, "content": "x"}, f"{line}-1", red_dot=True)
        assert (refused.value.kind, refused.value.code) == ("rejected", 13)
        fake.whitelist["alice"] = {"bob"}
        await bob.send("alice", {"type": 1, "content": "over"}, f"{line}-2", red_dot=False)
        assert json.loads(fake.history("alice", "bob")[-1].payload) == {"type": 1, "content": "over"}  # an object
        fake.whitelist["bob"] = {"alice"}
        if line == "compat":
            await alice.client.send("bob", 1, {"type": 1, "content": "back"}, header={"redDot": False})
        else:
            await alice.client.send("bob", {"type": 1, "content": "back"}, "a-1", red_dot=False)
        await until(lambda: got, 5, "a message")
        assert got[0].payload == {"type": 1, "content": "back"} and got[0].from_uid == "alice"
        pinged = count_pings(fake, "bob")
        await until(lambda: pinged[0] >= 4, 30, "several of bob's pings answered")  # pongs of either shape
        assert not bob._ended.done()
        found = await probe(fake.ws_url, "bob", "bob-token", "p", 0, 3)
        assert found.line == line and found.auth_code is None
        refused_probe = await probe(fake.ws_url, "bob", "nope", "p", 0, 3)
        assert (refused_probe.line, refused_probe.auth_code) == (line, 2)
        with pytest.raises(TransportError) as auth:
            await V2Transport(fake.ws_url, "bob", "nope", "x", 0, on, ping_interval_s=1, connect_timeout_s=3,
                              request_timeout_s=3).connect()
        assert auth.value.kind == "auth" and auth.value.terminal
        await bob.close()
        await alice.close()
    other = await fakes("other")
    assert (await probe(other.ws_url, "bob", "t", "p", 0, 3)).line is None


def test_text_replies_are_read_in_english_and_chinese() -> None:
    approval = {"type": "approval", "title": "Deploy?", "options": [
        {"id": "approve", "label": "Approve"}, {"id": "reject", "label": "Reject", "style": "danger"}]}
    assert textreply.parse(approval, "1").response == {"optionId": "approve"}
    assert textreply.parse(approval, "２").response == {"optionId": "reject"}  # a full-width digit
    assert textreply.parse(approval, "拒绝").response == {"optionId": "reject"}
    assert textreply.parse(approval, "同意。").response == {"optionId": "approve"}
    assert textreply.parse(approval, "Approve").response == {"optionId": "approve"}
    assert textreply.parse(approval, "2 too risky").response is None  # no answer read out of a sentence
    assert textreply.parse(approval, "3").problem == "out_of_range"
    assert textreply.parse(approval, "maybe later").problem == "not_understood"
    choice = {"type": "choice", "title": "Which?", "multiple": True, "options": [
        {"id": "a", "label": "A"}, {"id": "b", "label": "B"}, {"id": "c", "label": "C"}]}
    assert textreply.parse(choice, "1, 3").response == {"optionIds": ["a", "c"]}
    assert textreply.parse({"type": "input", "title": "Name?"}, " Ada ").response == {"text": "Ada"}
    assert textreply.parse({"type": "review", "title": "PR"}, "修改").response == {"decision": "request_changes"}
    assert textreply.split_reference("#12 approve") == (12, "approve")
    text = textreply.render_question(approval, 4, several_open=True)
    assert "#4 Deploy?" in text and "1. Approve" in text and "2. Reject" in text and "#4 " in text.splitlines()[-1]


# ---- the hub end to end ---------------------------------------------------------------------------------------

async def test_an_agent_asks_and_a_person_answers_by_text_through_wukongim(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER, whitelist_off_of_person=False)
    hub, token = await relay_hub(hub_factory, fake)
    await cli(hub, "relay", "provision")  # the hub's token, system user, whitelists (唐僧叨叨 setup)
    status = await connected(hub)
    assert status["line"] == "compat"  # probed, and served through the official SDK
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        await agent.ok("message.create", {"content": "Hello Alice"}, conversationId=conversation)
        assert (await alice.text("Hello Alice")) == "Builder: Hello Alice"
        await alice.say("Hi agent, what are you doing?")
        delivered = await agent.event("message.delivered", content="Hi agent, what are you doing?")
        assert delivered["payload"]["author"]["kind"] == "user"
        await agent.ok("interaction.requested", {"interaction": {
            "type": "approval", "title": "Deploy to production?", "risk": "high"}}, conversationId=conversation)
        question = await alice.text("#1 Deploy to production?")
        assert "1. Approve" in question and "2. Reject" in question
        await alice.say("perhaps")
        assert "could not read that" in await alice.text("could not read")  # asked again
        await alice.say("1")
        await alice.text("confirm 1")  # high risk: a second, explicit step (docs/security.md)
        await alice.say("confirm 1")
        resolved = await agent.event("interaction.resolved")
        assert resolved["payload"]["outcome"] == "answered" and resolved["payload"]["response"]["optionId"] == "approve"
        assert "✓ #1 Deploy to production?: Approve" in await alice.text("recorded")
        app = await LapClient.connect(hub.ws_base, "app", token, last_sequence=0)  # the app sees the uplink's state
        seen = await app.event("relay.status_changed", state="connected")
        assert seen["payload"]["line"] == "compat" and seen["payload"]["people"][0]["uid"] == "alice"
        await app.close()
        await alice.say("1")  # no question open any more: plain chat, not a second answer
        await agent.event("message.delivered", content="1")
        # the LineUp app's view: every workspace event as a LAP envelope, in order, each once
        sequences = lap_sequences(fake)
        assert sequences == sorted(set(sequences))
        assert any(p["envelope"]["type"] == "interaction.resolved" for p in fake.payloads(HUB_UID, "alice", HUB_UID)
                   if p.get("type") == 5201)
    finally:
        await agent.close()
        await alice.close()


async def test_lap_envelopes_from_the_app_take_the_socket_path(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER)
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    welcome = json.loads((await cli(hub, "relay", "pair", "alice")).stdout)
    assert welcome["hubUid"] == HUB_UID and welcome["types"]["lap"] == 5201
    env = {"id": "app-msg-1", "type": "message.create", "version": "0.1", "occurredAt": "2026-01-01T00:00:00Z",
           "workspaceId": welcome["workspaceId"], "conversationId": conversation, "payload": {"content": "from the app"}}
    try:
        for _ in range(2):  # a re-send is answered with the first ack, stored once
            await alice.client.send(HUB_UID, 1, {"type": 5201, "envelope": env})
        await agent.event("message.delivered", content="from the app")

        def acks() -> list[dict[str, Any]]:
            return [p["envelope"] for p in alice.inbox if p.get("type") == 5201
                    and p["envelope"]["type"] == "system.ack" and p["envelope"]["payload"]["id"] == "app-msg-1"]
        await until(lambda: len(acks()) == 2, 10, "two acks")
        first, second = acks()
        assert first["payload"]["sequence"] == second["payload"]["sequence"] and second["payload"]["duplicate"]
        bad = {**env, "id": "app-msg-2", "workspaceId": "ws_other"}
        await alice.client.send(HUB_UID, 1, {"type": 5201, "envelope": bad})
        await until(lambda: any(p.get("type") == 5201 and p["envelope"]["type"] == "system.error"
                                and p["envelope"]["payload"]["code"] == "forbidden" for p in alice.inbox), 10)
        # One more message from the app by the same way: a second delivery of the first would have come before it.
        await alice.client.send(HUB_UID, 1, {"type": 5201, "envelope": {**env, "id": "app-msg-3",
                                                                        "payload": {"content": "fence"}}})
        await agent.event("message.delivered", content="fence")
        assert [f["payload"]["content"] for f in agent.frames if f["type"] == "message.delivered"] == [
            "from the app", "fence"]
        # catching up (the app's first connection): the workspace's events in batches, then caught_up, live only
        await alice.client.send(HUB_UID, 1, {"type": 5202, "op": "resume", "lastSequence": 0})
        done = await until(lambda: [p for p in alice.inbox if p.get("op") == "caught_up"], 10, "caught_up")
        replayed = [e["sequence"] for p in alice.inbox if p.get("op") == "replay" for e in p["events"]]
        assert replayed == [s for s in workspace_sequences(hub) if s <= done[0]["sequence"]]
        assert not any(p.get("type") == 5202 for p in fake.payloads(HUB_UID, "alice", HUB_UID))  # not stored
    finally:
        await agent.close()
        await alice.close()


@pytest.mark.hub_process  # kill -9
async def test_disconnects_and_a_restart_lose_nothing_and_repeat_nothing(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER)
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        # the hub's side drops: what the agent says meanwhile goes out after the reconnect, once
        assert fake.drop(HUB_UID) == 1
        for n in range(5):
            await agent.ok("message.create", {"content": f"while cut {n}"}, conversationId=conversation)
        await until(lambda: sum("while cut" in t for t in alice.texts()) == 5, 15, "five texts")
        # the person's side drops: messages wait in WuKongIM, synced when they come back
        await alice.close()
        await agent.ok("message.create", {"content": "while alice is away"}, conversationId=conversation)
        await until(lambda: any(p.get("content") == "Builder: while alice is away"
                                for p in fake.payloads(HUB_UID, "alice", HUB_UID)), 10)
        # kill -9 with sends in flight: after the restart each goes out once (uncertain ones found by clientMsgNo)
        for n in range(10):
            await agent.send("message.create", {"content": f"burst {n}"}, conversationId=conversation)
        await agent.wait_for(lambda f: f["type"] == "system.ack" and sum(
            1 for g in agent.frames if g["type"] == "system.ack") >= 17)  # conversation + 6 before + 10 now
        # alice writes while the hub is down: recovered through /channel/messagesync after the restart
        hub.kill()
        await agent.close()
        alice = await Person(fake).connect()
        for n in range(3):
            await alice.say(f"offline {n}")
        await asyncio.to_thread(hub.start)
        agent = await LapClient.connect(hub.ws_base, "agent", agent_credential(agent), wait_caught_up=True)
        for n in range(3):
            await agent.event("message.delivered", content=f"offline {n}")
        # Counted in what WuKongIM holds for alice, not in her live pushes: a burst text the hub sent before the kill,
        # while she was away, reaches her through messagesync, not live (as with the real server).
        await until(lambda: sum("burst" in p.get("content", "") for p in fake.payloads(HUB_UID, "alice", HUB_UID)
                                if p.get("type") == 1) == 10, 15, "the burst")
        # an answer that arrives live and again through reconciliation is handled once
        fake.drop(HUB_UID)
        await agent.ok("message.create", {"content": "after the restart"}, conversationId=conversation)
        await alice.text("after the restart")
        # The new session reconciled (messagesync) before it sent that text: a message handled again would be
        # stored by now, and delivered to the agent before a message stored after it.
        app = await LapClient.connect(hub.ws_base, "app", token)
        try:
            await fence(app, conversation, agent)
        finally:
            await app.close()
        delivered = [f["payload"]["content"] for f in agent.frames if f["type"] == "message.delivered"]
        assert sorted(delivered) == ["fence"] + [f"offline {n}" for n in range(3)]
        texts = [p["content"] for p in fake.payloads(HUB_UID, "alice", HUB_UID) if p.get("type") == 1]
        assert len(texts) == len(set(texts))  # nothing said twice
        sequences = lap_sequences(fake)
        assert sequences == sorted(set(sequences))  # every envelope once, in order
        stored = [s for s in workspace_sequences(hub) if sequences[0] <= s <= sequences[-1]]
        assert stored == sequences  # no gap
    finally:
        await agent.close()
        await alice.close()


def agent_credential(agent: LapClient) -> str:
    return str(cast(Any, agent).credential)


def workspace_sequences(hub: HubProcess) -> list[int]:
    conn = sqlite3.connect(f"file:{hub.data_dir / 'lineup.db'}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT sequence FROM events WHERE workspace_id IS NOT NULL ORDER BY 1")]
    finally:
        conn.close()


async def test_the_v2_line_end_to_end(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("v2", manager_token=MANAGER)
    hub, token = await relay_hub(hub_factory, fake)
    status = await connected(hub)
    assert status["line"] == "v2"
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        await agent.ok("interaction.requested", {"interaction": {
            "type": "choice", "title": "Which region?", "options": [
                {"id": "eu", "label": "Europe"}, {"id": "cn", "label": "China"}]}}, conversationId=conversation)
        await alice.text("Which region?")
        await alice.say("China")
        resolved = await agent.event("interaction.resolved")
        assert resolved["payload"]["response"]["optionId"] == "cn"
        await alice.text("recorded")
        # on this line payloads are stored as JSON objects, never as Base64 strings
        assert all(json.loads(m.payload)["type"] in (1, 5201) for m in fake.history(HUB_UID, "alice"))
    finally:
        await agent.close()
        await alice.close()


async def test_an_unsupported_server_is_a_diagnostic_not_a_reconnect_loop(hub_factory: HubFactory, fakes: Any) -> None:
    other = await fakes("other")
    hub, _ = await relay_hub(hub_factory, other)

    def errored() -> Any:
        status = relay_state(hub)["status"]
        return status if status and status["state"] == "error" else None
    status = await until(errored, 10, "an error status")
    assert status["code"] == "relay_unsupported_server" and "neither" in status["message"]
    assert "ws_url" in status["nextStep"]
    attempts = other.attempts
    await asyncio.sleep(1.0)
    assert other.attempts == attempts  # no silent retrying
    shown = (await cli(hub, "relay", "status")).stdout
    assert "relay_unsupported_server" in shown and "next step" in shown


async def test_the_whitelist_refusal_is_diagnosed_and_provisioning_fixes_it(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER, whitelist_off_of_person=False)  # 唐僧叨叨's setting
    hub, token = await relay_hub(hub_factory, fake)
    # Not `connected(hub)`: the uplink's own relay.status_changed event goes to alice on the LAP line and may be
    # refused (reason 13) before a poll sees "connected" (CI, under load). The session being open is what counts.
    await until(lambda: fake.connects.get(HUB_UID), 10, "the hub's WuKongIM session")
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        await agent.ok("message.create", {"content": "can you hear me?"}, conversationId=conversation)

        def refused() -> Any:
            status = relay_state(hub)["status"]
            return status if status and status["code"] == "relay_not_in_whitelist" else None
        status = await until(refused, 10, "the reason-13 diagnostic")
        assert "13" in status["message"] and "system user" in status["nextStep"]
        check = (await cli(hub, "relay", "check", check=False)).stdout
        assert "compat line" in check and "reason 13" in check
        await cli(hub, "relay", "provision")
        assert (await alice.text("can you hear me?")) == "Builder: can you hear me?"
        await connected(hub)
    finally:
        await agent.close()
        await alice.close()


async def test_the_sdk_forced_onto_a_v2_server_stops_with_the_fix(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("v2", manager_token=MANAGER)
    hub, _ = await relay_hub(hub_factory, fake, server_line="compat")

    def errored() -> Any:
        status = relay_state(hub)["status"]
        return status if status and status["state"] == "error" else None
    status = await until(errored, 10, "the mismatch")  # at the first pong without `result`
    assert status["code"] == "relay_protocol_mismatch" and '"v2"' in status["nextStep"]
    connects = fake.connects.get(HUB_UID)
    await asyncio.sleep(1.0)
    assert fake.connects.get(HUB_UID) == connects
