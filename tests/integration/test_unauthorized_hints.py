"""A refused credential's hint says the way back for who is asking: an app (a signed-in device) signs in again, an
agent is paired again. Before, both got "Sign in again, or pair the agent again with a fresh pairing code (`lineup
pair`)", which sent a person whose phone was signed out towards pairing (seen in a walkthrough)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import websockets

from tests.support.fixtures import HubFactory
from tests.support.hubproc import pair_agent
from tests.support.lap import envelope


async def refused_hello(ws_base: str, kind: str, secret: str) -> dict[str, Any]:
    """The hub's answer to a hello with this secret (its system.error before it closes)."""
    async with websockets.connect(ws_base + ("/ws/agent" if kind == "agent" else "/ws/app")) as ws:
        payload = {"credential": secret, "runtime": "test", "agentVersion": "1"} if kind == "agent" else {"token": secret}
        await ws.send(json.dumps(envelope(f"{kind}.hello", payload)))
        frame: dict[str, Any] = json.loads(await ws.recv())
        return frame


async def test_a_revoked_app_token_is_told_to_sign_in_and_a_revoked_agent_to_pair(hub_factory: HubFactory) -> None:
    hub = hub_factory()
    token = hub.token()
    headers = {"Authorization": f"Bearer {token}"}
    paired = pair_agent(hub, token, "Walker")
    async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
        device = (await http.get("/api/me", headers=headers)).json()["deviceId"]
        assert (await http.post(f"/api/devices/{device}/revoke", json={}, headers=headers)).status_code == 200
        assert (await http.post(f"/api/agents/{paired['agentId']}/revoke", json={},
                                headers={"Authorization": f"Bearer {hub.token()}"})).status_code == 200
        for answer in (await http.get("/api/me", headers=headers), await http.get("/api/me")):
            error = answer.json()["error"]
            assert answer.status_code == 401 and "Sign in again" in error["hint"], error
            assert "pair" not in error["hint"].lower(), error
    app = await refused_hello(hub.ws_base, "app", token)
    assert app["type"] == "system.error" and "Sign in again" in app["payload"]["hint"], app["payload"]
    assert "pair" not in app["payload"]["hint"].lower(), app
    agent = await refused_hello(hub.ws_base, "agent", paired["credential"])
    assert agent["type"] == "system.error" and "Pair the agent again" in agent["payload"]["hint"], agent
    assert "sign in" not in agent["payload"]["hint"].lower(), agent
