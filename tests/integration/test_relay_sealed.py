"""Sealed relay, the hub's side: WuKongIM carries ciphertext and routing only; what does not open is refused.

A device does here what the page does (ui/lib/relay-seal.js): it sends its P-256 public key with POST
/api/relay/devices, derives the same two keys, and talks to the hub's uid through the fake WuKongIM, which records
every byte it carries.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any, cast

import httpx
from cryptography.hazmat.primitives.asymmetric import ec

from hub.relay import seal
from hub.relay.seal import TO_DEVICE, TO_HUB, DeviceKeys, SealError
from hub.relay.transport import Inbound
from hub.relay.v2_transport import V2Transport
from tests.integration.test_relay import HUB_UID, connected, fakes, relay_hub, relay_state  # noqa: F401
from tests.support.fake_wukong import FakeWuKong
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient
from tests.support.polling import eventually as until

SECRETS = {
    "title": "Nightingale quarterly plan",
    "agent message": "The launch phrase is tangerine-alpaca",
    "question": "Ship the walrus release?",
    "command": "deploy --target=penguin-prod",
    "file name": "blueprint-heron.pdf",
    "answer": "quokka-marmalade",
    "person's message": "Bring the zebra crossing forward",
}


class Device:
    """The person's phone, sealed: the page's construction, in Python."""

    def __init__(self, fake: FakeWuKong, hub: HubProcess, token: str) -> None:
        self.fake, self.hub, self.auth = fake, hub, {"Authorization": f"Bearer {token}"}
        self.inbox: list[dict[str, Any]] = []
        self.raw: list[dict[str, Any]] = []
        self.keys: DeviceKeys | None = None
        self.sent = self.received = 0
        self.transport: V2Transport | None = None

    async def set_up(self) -> Device:
        private = ec.generate_private_key(ec.SECP256R1())
        public = seal.public_raw(private)
        answer = await asyncio.to_thread(httpx.post, self.hub.base + "/api/relay/devices", headers=self.auth,
                                         json={"publicKey": seal.b64(public)})
        assert answer.status_code == 201, answer.text
        pairing = answer.json()
        info = pairing["seal"]
        hub_public = seal.unb64(info["hubPublicKey"])
        shared = private.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), hub_public))
        self.keys = seal.derive(shared, public, hub_public, hub_id=pairing["hubId"], uid=pairing["uid"],
                                device_id=info["deviceId"], kid=info["kid"])
        self.token = pairing["token"]
        return self

    async def connect(self) -> Device:
        async def on(message: Inbound) -> None:
            if message.from_uid == HUB_UID and message.payload is not None:
                self.raw.append(message.payload)
                self.open(message.payload)
        self.transport = V2Transport(self.fake.ws_url, "alice", self.token, "alice-phone", 1, on,
                                     ping_interval_s=0.5, connect_timeout_s=3, request_timeout_s=3)
        await self.transport.connect()
        return self

    def open(self, payload: dict[str, Any]) -> None:
        if payload.get("type") != 5203:
            return
        try:
            opened, self.received = seal.open_sealed(self.keys, TO_DEVICE, payload, self.received)
        except SealError:
            return
        self.inbox.append(opened)

    def sealed(self, payload: dict[str, Any], counter: int | None = None) -> dict[str, Any]:
        assert self.keys is not None
        self.sent = counter if counter is not None else self.sent + 1
        return seal.seal(self.keys, TO_HUB, payload, self.sent)

    async def send(self, payload: dict[str, Any]) -> None:
        assert self.transport is not None
        await self.transport.send(HUB_UID, payload, f"dev-{time.monotonic_ns()}", red_dot=False)

    async def envelope(self, type_: str, payload: dict[str, Any], env_id: str, workspace: str, **extra: Any) -> None:
        await self.send(self.sealed({"type": 5201, "envelope": {
            "id": env_id, "type": type_, "version": "0.1", "occurredAt": "2026-01-01T00:00:00Z",
            "workspaceId": workspace, "payload": payload, **extra}}))

    def events(self, type_: str) -> list[dict[str, Any]]:
        found = [p["envelope"] for p in self.inbox if p.get("type") == 5201]
        found += [e for p in self.inbox if p.get("op") == "replay" for e in p["events"]]
        return [e for e in found if e.get("type") == type_]

    async def event(self, type_: str, check: Callable[[dict[str, Any]], bool] = lambda e: True) -> dict[str, Any]:
        return cast(dict[str, Any], await until(lambda: next((e for e in self.events(type_) if check(e)), None), 15,
                                                f"{type_} opened by the device"))

    async def close(self) -> None:
        if self.transport is not None:
            await self.transport.close()


async def setting_up(hub_factory: HubFactory, fakes: Any) -> tuple[FakeWuKong, HubProcess, str, str]:
    fake = await fakes("v2", manager_token="manager-secret")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    me = (await asyncio.to_thread(httpx.get, hub.base + "/api/me", headers={"Authorization": f"Bearer {token}"})).json()
    return fake, hub, token, me["workspace"]["id"]


def warnings(hub: HubProcess) -> str:
    return " ".join((relay_state(hub)["status"] or {}).get("warnings", []))


def relay_done_through(hub: HubProcess, uid: str, sequence: int) -> bool:
    """The uplink has turned every event up to `sequence` into what it sends `uid` (its cursor moves in the same
    step), and has sent all of it (nothing pending): anything it was going to send them is in the fake by now."""
    conn = sqlite3.connect(f"file:{hub.data_dir / 'lineup.db'}?mode=ro", uri=True, timeout=10)
    try:
        row = conn.execute("SELECT cursor FROM relay_people WHERE uid = ?", (uid,)).fetchone()
        pending = conn.execute("SELECT COUNT(*) FROM relay_outbox WHERE person = ? AND status = 'pending'",
                               (uid,)).fetchone()[0]
    finally:
        conn.close()
    return row is not None and row[0] >= sequence and pending == 0


def refusals(hub: HubProcess) -> list[str]:
    """The hub's log lines about refused messages."""
    return [line for line in hub.log().splitlines() if "refused message" in line]


async def test_wukongim_carries_ciphertext_and_routing_only(hub_factory: HubFactory, fakes: Any) -> None:
    fake, hub, token, workspace = await setting_up(hub_factory, fakes)
    # What the hub sent before any device of alice's was set up: its status, "connected".
    await until(lambda: [p for p in fake.payloads(HUB_UID, "alice", HUB_UID) if p.get("type") == 5201
                         and p["envelope"]["type"] == "relay.status_changed"
                         and p["envelope"]["payload"].get("state") == "connected"], 30, "the hub's status sent to alice")
    before = len(fake.history(HUB_UID, "alice"))
    device = await (await Device(fake, hub, token).set_up()).connect()
    agent = await LapClient.connect(hub.ws_base, "agent", pair_agent(hub, token, name="Builder")["credential"])
    try:
        await agent.ok("conversation.create", {"title": SECRETS["title"], "agentIds": []}, conversationId="conv-s")
        await agent.ok("message.create", {"content": SECRETS["agent message"]}, conversationId="conv-s")
        await agent.ok("artifact.created", {"name": SECRETS["file name"], "url": "https://example.com/x"},
                       conversationId="conv-s")
        await agent.ok("interaction.requested", {"interaction": {
            "id": "int-ship", "type": "approval", "title": SECRETS["question"], "risk": "low",
            "description": f"Runs `{SECRETS['command']}`"}}, conversationId="conv-s")
        await agent.ok("interaction.requested", {"interaction": {
            "id": "int-name", "type": "input", "title": "Name the release"}}, conversationId="conv-s")
        asked = await device.event("interaction.requested", lambda e: e["payload"]["interaction"]["id"] == "int-name")
        assert asked["conversationId"] == "conv-s"  # opened on the device: the events travelled, sealed

        await device.envelope("interaction.respond", {"interactionId": "int-name",
                                                      "response": {"text": SECRETS["answer"]}}, "env-answer", workspace)
        await device.envelope("interaction.respond", {"interactionId": "int-ship",
                                                      "response": {"optionId": "approve"}}, "env-ship", workspace)
        await device.envelope("message.create", {"content": SECRETS["person's message"]}, "env-say", workspace,
                              conversationId="conv-s")
        resolved = await agent.event("interaction.resolved")
        assert resolved["payload"]["interactionId"] in ("int-name", "int-ship")
        await device.event("message.created", lambda e: e["payload"].get("content") == SECRETS["person's message"])
        await device.send(device.sealed({"type": 5202, "op": "resume", "lastSequence": 0}))
        caught = await until(lambda: [p for p in device.inbox if p.get("op") == "caught_up"], 15, "caught_up")
        assert caught and device.events("artifact.created")[0]["payload"]["name"] == SECRETS["file name"]
        acks = [p["envelope"]["payload"]["id"] for p in device.inbox
                if p.get("type") == 5201 and p["envelope"]["type"] == "system.ack"]
        assert {"env-answer", "env-ship", "env-say"} <= set(acks)

        carried = fake.carried_text()
        assert len(carried) > 10_000  # the whole conversation went through it, several times
        for what, secret in SECRETS.items():
            assert secret not in carried, f"WuKongIM could read the {what}: {secret!r}"
        kinds = {(m.from_uid, json.loads(m.payload).get("type")) for m in fake.history(HUB_UID, "alice")[before:]}
        assert kinds == {(HUB_UID, 5203), ("alice", 5203)}, kinds  # no IM text either: off for a sealed person
        assert "tangerine" not in hub.log() and device.keys is not None and device.keys.to_hub.hex() not in hub.log()
    finally:
        await agent.close()
        await device.close()


async def test_tampered_replayed_reordered_or_unsealed_payloads_are_refused_and_reported(
        hub_factory: HubFactory, fakes: Any) -> None:
    fake, hub, token, workspace = await setting_up(hub_factory, fakes)
    device = await (await Device(fake, hub, token).set_up()).connect()
    agent = await LapClient.connect(hub.ws_base, "agent", pair_agent(hub, token, name="Builder")["credential"])
    auth = {"Authorization": f"Bearer {token}"}

    def said(content: str) -> dict[str, Any]:
        return {"type": 5201, "envelope": {"id": f"env-{content}", "type": "message.create", "version": "0.1",
                                           "occurredAt": "2026-01-01T00:00:00Z", "workspaceId": workspace,
                                           "conversationId": "conv-t", "payload": {"content": content}}}

    async def stored() -> list[str]:
        answer = await asyncio.to_thread(httpx.get, hub.base + "/api/conversations/conv-t/messages", headers=auth)
        return [m["content"] for m in answer.json()["messages"]]

    try:
        await agent.ok("conversation.create", {"title": "t", "agentIds": []}, conversationId="conv-t")
        first = device.sealed(said("first"), 100)
        await device.send(first)
        await device.event("system.ack", lambda e: e["payload"]["id"] == "env-first")

        await device.send(first)  # replayed: the same bytes again
        await until(lambda: len(refusals(hub)) == 1 and "replayed" in warnings(hub), 10, "the replay reported")
        later, earlier = device.sealed(said("later"), 300), device.sealed(said("earlier"), 200)
        await device.send(later)
        await device.event("system.ack", lambda e: e["payload"]["id"] == "env-later")
        await device.send(earlier)  # reordered: sealed before `later`, arriving after it
        await until(lambda: len(refusals(hub)) == 2, 10, "the reorder reported")
        assert "replayed or reordered" in refusals(hub)[1]
        tampered = device.sealed(said("tampered"), 400)
        body = bytearray(seal.unb64(tampered["ct"]))
        body[3] ^= 0x20
        await device.send({**tampered, "ct": seal.b64(bytes(body))})
        await until(lambda: len(refusals(hub)) == 3 and "tag does not hold" in warnings(hub), 10, "the tamper reported")
        await device.send(said("in clear"))  # unsealed, as anyone holding WuKongIM's manager token could send
        await until(lambda: len(refusals(hub)) == 4 and "in clear" in warnings(hub), 10, "the unsealed payload")
        await device.send(device.sealed(said("fine"), 500))
        await device.event("system.ack", lambda e: e["payload"]["id"] == "env-fine")

        assert await stored() == ["first", "later", "fine"]  # nothing refused was acted on
        acked = [e["payload"]["id"] for e in device.events("system.ack")]
        assert acked.count("env-first") == 1 and "env-earlier" not in acked and "env-tampered" not in acked
        log = hub.log()
        assert len(refusals(hub)) == 4 and all("from alice" in line for line in refusals(hub))
        assert device.keys is not None and seal.b64(device.keys.to_hub) not in log and "in clear" not in "".join(
            line.split(": ", 1)[0] for line in refusals(hub))
        status = (await asyncio.to_thread(httpx.get, hub.base + "/api/relay", headers=auth)).json()["status"]
        assert any("Refused a message from alice" in w for w in status["warnings"])
    finally:
        await agent.close()
        await device.close()


async def test_a_replaced_or_revoked_key_opens_nothing_new(hub_factory: HubFactory, fakes: Any) -> None:
    fake, hub, token, workspace = await setting_up(hub_factory, fakes)
    old = await (await Device(fake, hub, token).set_up()).connect()
    agent = await LapClient.connect(hub.ws_base, "agent", pair_agent(hub, token, name="Builder")["credential"])
    auth = {"Authorization": f"Bearer {token}"}
    try:
        await agent.ok("conversation.create", {"title": "r", "agentIds": []}, conversationId="conv-r")
        await agent.ok("message.create", {"content": "before"}, conversationId="conv-r")
        await old.event("message.created", lambda e: e["payload"]["content"] == "before")
        old_keys = old.keys
        assert old_keys is not None
        await old.close()

        new = await (await Device(fake, hub, token).set_up()).connect()  # setting up again: a new key
        try:
            await agent.ok("message.create", {"content": "after rotation"}, conversationId="conv-r")
            await new.event("message.created", lambda e: e["payload"]["content"] == "after rotation")
            sealed_new = [p for p in new.raw if p.get("type") == 5203]
            assert sealed_new and new.keys is not None and new.keys.kid != old_keys.kid
            for payload in sealed_new:  # the old key opens none of it, even told the new key id
                for forged in (payload, {**payload, "kid": old_keys.kid}):
                    try:
                        seal.open_sealed(old_keys, TO_DEVICE, forged, 0)
                    except SealError:
                        continue
                    raise AssertionError("the replaced key opened a payload sealed after it was replaced")
            old.keys = old_keys  # a message sealed with the old key is refused by the hub
            await new.send(old.sealed({"type": 5201, "envelope": {"id": "env-old", "type": "message.create",
                                                                  "version": "0.1", "occurredAt": "2026-01-01T00:00:00Z",
                                                                  "workspaceId": workspace, "conversationId": "conv-r",
                                                                  "payload": {"content": "from the old key"}}}, 10**15))
            await until(lambda: len(refusals(hub)) == 1 and "a key it does not hold" in warnings(hub), 10,
                        "the old key refused")

            revoked = await asyncio.to_thread(httpx.post, hub.base + "/api/relay/devices/revoke", headers=auth, json={})
            assert revoked.status_code == 200
            mark = len(fake.history(HUB_UID, "alice"))
            await agent.ok("message.create", {"content": "after revoke"}, conversationId="conv-r")
            again = await agent.ok("message.create", {"content": "after revoke, again"}, conversationId="conv-r")
            await until(lambda: relay_done_through(hub, "alice", again["sequence"]), 30,
                        "the uplink past the messages after the revoke")
            after = [json.loads(m.payload) for m in fake.history(HUB_UID, "alice")[mark:] if m.from_uid == HUB_UID]
            assert after == []  # nothing of the app goes to a person whose keys ended: not sealed, not in clear
            assert "after revoke" not in fake.carried_text()
            await new.send(new.sealed({"type": 5202, "op": "resume", "lastSequence": 0}))
            await until(lambda: len(refusals(hub)) == 2, 10, "the resume sealed with an ended key refused")
            assert "a key it does not hold" in refusals(hub)[1]
            messages = (await asyncio.to_thread(httpx.get, hub.base + "/api/conversations/conv-r/messages",
                                                headers=auth)).json()["messages"]
            assert "from the old key" not in [m["content"] for m in messages]
        finally:
            await new.close()
    finally:
        await agent.close()
