"""Signing out ends the session on the hub (issue "approve by mistake", item 6): `POST /api/devices/current/revoke`
revokes the device whose token made the request, so its token answers 401 and its live sockets close (4401), and
the relay access that device holds (docs/relay.md, "The app in relay mode") is revoked with it. Before, the app
only forgot its token: the token still answered 200 and a phone signed out at home still reached the hub through
the relay.

Real hubs (uvicorn in this process), real HTTP and WebSocket clients, and the fake WuKongIM of the relay tests.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.conftest import Connect
from tests.support.fake_wukong import FakeWuKong
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess

HUB_UID = "lineup-hub"
MANAGER = "manager-secret"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ---- the device ----------------------------------------------------------------------------------------------

async def test_signing_out_revokes_this_device_and_closes_its_sockets(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory()
    phone, laptop = hub.token(), hub.token()  # two devices of the same person
    phone_socket = await lap(hub, "app", phone)
    laptop_socket = await lap(hub, "app", laptop)
    async with httpx.AsyncClient(base_url=hub.base, timeout=10) as http:
        me = (await http.get("/api/me", headers=auth(phone))).json()
        signed_out = time.monotonic()
        answer = await http.post("/api/devices/current/revoke", json={}, headers=auth(phone))
        assert answer.status_code == 200, answer.text  # before: 404, no device "current"
        assert answer.json() == {"revoked": True, "deviceId": me["deviceId"], "relayAccess": "none"}
        await asyncio.wait_for(phone_socket.closed.wait(), 5)
        assert phone_socket.ws.close_code == 4401 and time.monotonic() - signed_out < 5
        refused = await http.get("/api/me", headers=auth(phone))
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
        # Signing out again with the same token is refused like any revoked token (the app takes 401 as done).
        assert (await http.post("/api/devices/current/revoke", json={}, headers=auth(phone))).status_code == 401
        # The person's other device is still signed in, its socket still live.
        assert (await http.get("/api/me", headers=auth(laptop))).status_code == 200
        devices = {d["id"]: d for d in (await http.get("/api/devices", headers=auth(laptop))).json()["devices"]}
        assert devices[me["deviceId"]]["revokedAt"] is not None
    revoked = await laptop_socket.event("device.revoked", deviceId=me["deviceId"])
    assert revoked["payload"]["deviceId"] == me["deviceId"] and not laptop_socket.closed.is_set()


# ---- the relay access a signed-out device holds ----------------------------------------------------------------

@pytest.fixture
async def fake() -> AsyncIterator[FakeWuKong]:
    server = await FakeWuKong("compat", manager_token=MANAGER).start()
    yield server
    await server.stop()


def relay_toml(fake: FakeWuKong) -> str:
    return "\n".join([
        "[relay]", f'ws_url = "{fake.ws_url}"', f'api_url = "{fake.api_url}"', f'uid = "{HUB_UID}"',
        f'manager_token = "{MANAGER}"', "reconnect_min_s = 0.1", "reconnect_max_s = 0.4",
        'people = [{uid = "alice", user = "owner"}]']) + "\n"


async def relay_hub(hub_factory: HubFactory, fake: FakeWuKong) -> tuple[HubProcess, str, str]:
    """A hub relayed through `fake`, its owner (`owner`, WuKongIM uid `alice`) signed in on a phone and a laptop."""
    hub = hub_factory(start=False)
    hub.data_dir.mkdir(parents=True)
    phone, laptop = hub.token(), hub.token()
    (hub.data_dir / "lineup.toml").write_text(relay_toml(fake))
    await asyncio.to_thread(hub.start)
    return hub, phone, laptop


async def relay_access(http: httpx.AsyncClient, token: str) -> dict[str, Any]:
    """The phone sets up "use this phone away from home": WuKongIM gets its token (device flag 1, web)."""
    async def available() -> bool:
        return bool((await http.get("/api/relay", headers=auth(token))).json()["available"])
    deadline = time.monotonic() + 10
    while not await available():
        assert time.monotonic() < deadline, "the relay never became available"
        await asyncio.sleep(0.05)
    issued = await http.post("/api/relay/devices", json={}, headers=auth(token))
    assert issued.status_code == 201, issued.text
    return dict(issued.json())


async def test_signing_out_revokes_the_relay_access_this_device_holds(hub_factory: HubFactory, fake: FakeWuKong) -> None:
    hub, phone, laptop = await relay_hub(hub_factory, fake)
    async with httpx.AsyncClient(base_url=hub.base, timeout=20) as http:
        issued = await relay_access(http, phone)
        assert fake.tokens[("alice", 1)] == issued["token"]
        answer = await http.post("/api/devices/current/revoke", json={}, headers=auth(phone))
        assert answer.status_code == 200, answer.text
        assert answer.json()["relayAccess"] == "revoked"
        # WuKongIM no longer takes the phone's token (before: it still did), and was asked to sign the web device out.
        assert fake.tokens[("alice", 1)] != issued["token"]
        assert "/user/device_quit" in fake.http_calls
        assert (await http.get("/api/relay", headers=auth(laptop))).json()["paired"] is None
        assert (await http.get("/api/me", headers=auth(phone))).status_code == 401


async def test_revoking_a_lost_phone_revokes_its_relay_access(hub_factory: HubFactory, fake: FakeWuKong) -> None:
    """What a person told "the hub could not be told" does: revoke the device from another one (Settings →
    Devices). Its relay access goes with it; before, it had to be revoked separately, or the lost phone kept
    answering questions through the relay."""
    hub, phone, laptop = await relay_hub(hub_factory, fake)
    async with httpx.AsyncClient(base_url=hub.base, timeout=20) as http:
        issued = await relay_access(http, phone)
        phone_id = (await http.get("/api/me", headers=auth(phone))).json()["deviceId"]
        answer = await http.post(f"/api/devices/{phone_id}/revoke", json={}, headers=auth(laptop))
        assert answer.status_code == 200 and answer.json()["relayAccess"] == "revoked", answer.text
        assert fake.tokens[("alice", 1)] != issued["token"]
        assert (await http.get("/api/relay", headers=auth(laptop))).json()["paired"] is None


async def test_signing_out_leaves_another_devices_relay_access_alone(hub_factory: HubFactory, fake: FakeWuKong) -> None:
    hub, phone, laptop = await relay_hub(hub_factory, fake)
    async with httpx.AsyncClient(base_url=hub.base, timeout=20) as http:
        issued = await relay_access(http, laptop)
        answer = await http.post("/api/devices/current/revoke", json={}, headers=auth(phone))
        assert answer.status_code == 200 and answer.json()["relayAccess"] == "none", answer.text
        assert fake.tokens[("alice", 1)] == issued["token"]
        assert (await http.get("/api/relay", headers=auth(laptop))).json()["paired"]["current"] is True


async def test_signing_out_when_wukongim_does_not_answer_still_revokes_the_device(hub_factory: HubFactory,
                                                                                  fake: FakeWuKong) -> None:
    hub, phone, laptop = await relay_hub(hub_factory, fake)
    async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
        await relay_access(http, phone)
        await fake.stop()  # WuKongIM's API is gone
        answer = await http.post("/api/devices/current/revoke", json={}, headers=auth(phone))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["revoked"] is True and body["relayAccess"] == "failed"
        assert "WuKongIM" in body["relayError"]["message"] and body["relayError"]["hint"]
        assert (await http.get("/api/me", headers=auth(phone))).status_code == 401
        # The record stays, so the person sees which device still holds the access and can revoke it again.
        paired = (await http.get("/api/relay", headers=auth(laptop))).json()["paired"]
        assert paired is not None and paired["current"] is False
