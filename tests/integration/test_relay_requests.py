"""The app's HTTP reads through the relay (hub/relay/requests.py): the same routes answer, as the same device."""
# A hub process with the fake WuKongIM; the owner's device takes relay access on the LAN, then an app client signs in
# to WuKongIM as the person (web device flag) and asks its questions as `request` messages. Each answer must be the
# one HTTP gives the same device: same status, same body; a 2 MB file arrives whole in parts; the relay's own access,
# paths outside /api/ and a revoked device are refused.

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from hub.relay.requests import CHUNK_BYTES, Answer, messages, refusal
from hub.relay.transport import Inbound
from hub.relay.v2_transport import V2Transport
from tests.integration.test_relay import HUB_UID, MANAGER, fakes, relay_hub  # noqa: F401 (fakes: a fixture)
from tests.support.fake_wukong import FakeWuKong
from tests.support.hubproc import HubProcess, pair_agent


class RelayApp:
    """The page's side of the envelope: sends requests to the hub's uid and gathers the `response` parts."""

    def __init__(self, fake: FakeWuKong, uid: str, token: str) -> None:
        self.fake, self.uid, self.token = fake, uid, token
        self.parts: dict[str, list[dict[str, Any]]] = {}
        self._new = asyncio.Event()
        self.client: V2Transport | None = None
        self._n = 0

    async def connect(self) -> RelayApp:
        async def on(message: Inbound) -> None:
            payload = message.payload or {}
            if payload.get("type") == 5202 and payload.get("op") == "response":
                self.parts.setdefault(payload["id"], []).append(payload)
                self._new.set()
        self.client = V2Transport(self.fake.ws_url, self.uid, self.token, "alice-web", 1, on,
                                  ping_interval_s=0.5, connect_timeout_s=5, request_timeout_s=5)
        await self.client.connect()
        return self

    async def ask(self, method: str, path: str, query: str = "", body: Any = None,
                  timeout: float = 30.0) -> tuple[int, str, bytes, list[dict[str, Any]]]:
        assert self.client is not None
        self._n += 1
        request_id = f"req-{self._n}-{time.monotonic_ns()}"
        await self.client.send(HUB_UID, {"type": 5202, "op": "request", "id": request_id, "method": method,
                                         "path": path, "query": query, "body": body},
                               f"app-{request_id}", red_dot=False, no_persist=True)
        deadline = time.monotonic() + timeout
        while True:
            got = self.parts.get(request_id, [])
            first = got[0] if got else None
            if first is not None and (first.get("encoding") != "base64" or len(got) == first["parts"]):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"no whole answer to {method} {path}: {len(got)} parts")
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), max(0.05, deadline - time.monotonic()))
        got.sort(key=lambda p: p.get("part", 0))
        head = got[0]
        if head.get("encoding") == "base64":
            body_bytes = b"".join(base64.b64decode(p["body"]) for p in got)
        else:
            body_bytes = json.dumps(head["body"]).encode()
        return head["status"], head["headers"]["content-type"], body_bytes, got

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()


@pytest.fixture
async def away(hub_factory: Callable[..., HubProcess], fakes: Callable[..., Any]
               ) -> AsyncIterator[tuple[HubProcess, str, RelayApp, FakeWuKong]]:
    fake = await fakes("v2", manager_token=MANAGER)
    hub, token = await relay_hub(hub_factory, fake)
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=hub.base, headers=auth, timeout=30) as http:
        deadline = time.monotonic() + 20
        while (await http.get("/api/relay")).json()["status"]["state"] != "connected":
            assert time.monotonic() < deadline, "the uplink never connected"
            await asyncio.sleep(0.1)
        issued = (await http.post("/api/relay/devices", json={})).json()
    app = await RelayApp(fake, issued["uid"], issued["token"]).connect()
    try:
        yield hub, token, app, fake
    finally:
        await app.close()


async def test_reads_through_the_relay_are_the_http_answers(away: tuple[HubProcess, str, RelayApp, FakeWuKong]) -> None:
    hub, token, app, _ = away
    auth = {"Authorization": f"Bearer {token}"}
    await asyncio.to_thread(pair_agent, hub, token, "Builder")
    async with httpx.AsyncClient(base_url=hub.base, headers=auth, timeout=30) as http:
        for path, query in (("/api/me", ""), ("/api/agents", ""), ("/api/conversations", ""), ("/api/tasks", ""),
                            ("/api/inbox", ""), ("/api/events", "after=0&limit=5"), ("/api/devices", ""),
                            ("/api/tasks/task-nobody", ""), ("/api/relay", "")):
            direct = await http.get(path + (f"?{query}" if query else ""))
            status, kind, body, _ = await app.ask("GET", path, query)
            assert (status, kind.split(";")[0]) == (direct.status_code, direct.headers["content-type"].split(";")[0])
            assert json.loads(body) == direct.json(), path
        me = json.loads((await app.ask("GET", "/api/me"))[2])
        assert me["deviceId"] == (await http.get("/api/me")).json()["deviceId"]  # the device that holds the access


async def test_a_2_mb_file_arrives_whole_in_parts(away: tuple[HubProcess, str, RelayApp, FakeWuKong]) -> None:
    hub, token, app, fake = away
    data = os.urandom(2 * 1024 * 1024)
    async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
        stored = (await http.post("/api/files", content=data, headers={
            "Authorization": f"Bearer {token}", "X-File-Name": "build.bin",
            "Content-Type": "application/octet-stream"})).json()
    status, kind, body, parts = await app.ask("GET", f"/api/files/{stored['fileId']}")
    assert status == 200 and kind == "application/octet-stream" and body == data
    assert len(parts) == -(-len(data) // CHUNK_BYTES) and all(p["size"] == len(data) for p in parts)
    assert max(len(json.dumps(p)) for p in parts) < 400_000  # each part is one ordinary WuKongIM message
    stored_by_fake = [m for m in fake.history("alice", HUB_UID) if m.from_uid == HUB_UID
                      and b'"response"' in m.payload]
    assert stored_by_fake == []  # noPersist: WuKongIM keeps none of the answers


async def test_the_relay_refuses_its_own_access_and_what_is_not_api(
        away: tuple[HubProcess, str, RelayApp, FakeWuKong]) -> None:
    hub, token, app, fake = away
    for method, path in (("POST", "/api/relay/devices"), ("POST", "/api/relay/devices/revoke"),
                         ("POST", "/api/login"), ("GET", "/-/health"), ("GET", "/api/../-/metrics"),
                         ("DELETE", "/api/me")):
        status, _, body, _ = await app.ask(method, path, body={} if method == "POST" else None)
        assert status in (400, 403, 405), (path, status)
        assert json.loads(body)["error"]["message"]
    token_before = fake.tokens[("alice", 1)]
    assert token_before == app.token  # the refused POST /api/relay/devices changed nothing
    # A POST is validated as over HTTP: a bad body is the route's own invalid_payload.
    status, _, body, _ = await app.ask("POST", "/api/agents/nobody/rename", body={"name": 5})
    async with httpx.AsyncClient(base_url=hub.base, headers={"Authorization": f"Bearer {token}"}) as http:
        direct = await http.post("/api/agents/nobody/rename", json={"name": 5})
    assert (status, json.loads(body)) == (direct.status_code, direct.json())


async def test_the_agents_presets_read_outside_api_travels_too(
        away: tuple[HubProcess, str, RelayApp, FakeWuKong]) -> None:
    hub, _, app, _ = away
    async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
        direct = await http.get("/-/agent-presets.json")
    status, kind, body, _ = await app.ask("GET", "/-/agent-presets.json")
    assert (status, kind.split(";")[0]) == (200, "application/json")
    assert json.loads(body) == direct.json() and json.loads(body)["presets"]  # the Agents screen's list, as at home
    for method, path, query in (("POST", "/-/agent-presets.json", ""), ("GET", "/-/agent-presets.json", "x=1"),
                                ("GET", "/-/plugins.json", ""), ("GET", "/-/agent-presets.json/..", "")):
        status, _, body, _ = await app.ask(method, path, query, body={} if method == "POST" else None)
        assert status in (400, 405), (method, path, query, status)


async def test_a_revoked_device_reads_nothing(away: tuple[HubProcess, str, RelayApp, FakeWuKong]) -> None:
    hub, token, app, fake = away
    # The device's relay token stays in the fake (revoking at WuKongIM is another test's): the hub must refuse on
    # its own, from the device record.
    async with httpx.AsyncClient(base_url=hub.base, headers={"Authorization": f"Bearer {token}"}) as http:
        me = (await http.get("/api/me")).json()
        fake.manager_token = "changed"  # WuKongIM refuses the hub: the relay token stays, the LineUp device goes
        await http.post(f"/api/devices/{me['deviceId']}/revoke", json={})
    status, _, body, _ = await app.ask("GET", "/api/me")
    assert status == 401 and json.loads(body)["error"]["code"] == "unauthorized"


def test_refusal_and_parts() -> None:
    assert refusal("GET", "/api/tasks", "") is None
    assert refusal("GET", "/api/relay", "") is None
    assert refusal("POST", "/api/relay", "") is not None
    assert refusal("GET", "/api/a%2F..%2F..", "") is not None
    assert refusal("GET", "/ui/index.html", "") is not None
    assert refusal("GET", "/-/agent-presets.json", "") is None
    assert refusal("POST", "/-/agent-presets.json", "") is not None
    assert refusal("GET", "/-/metrics", "") is not None
    small = messages("r1", Answer(200, "application/json", b'{"a": 1}'))
    assert small == [{"type": 5202, "op": "response", "id": "r1", "status": 200,
                      "headers": {"content-type": "application/json"}, "body": {"a": 1}}]
    big = messages("r2", Answer(200, "text/plain", b"x" * (CHUNK_BYTES * 2 + 1)))
    assert [p["part"] for p in big] == [0, 1, 2] and {p["parts"] for p in big} == {3}
