"""Helpers for integration tests against a live hub: HTTP calls, a paired team, heartbeats, time-bounded waits."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import websockets

from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient
from tests.support.polling import eventually as eventually


class Api:
    """Async HTTP calls to one hub as one bearer token (or none)."""

    def __init__(self, hub: HubProcess, token: str | None) -> None:
        self.hub = hub
        self.token = token

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def call(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> httpx.Response:
        async with httpx.AsyncClient(base_url=self.hub.base, timeout=10) as client:
            return await client.request(method, path, json=json, params=params,
                                        headers={**self._headers(), **(headers or {})})

    async def get(self, path: str, expect: int = 200, **params: Any) -> Any:
        """GET with query parameters; insists on the status `expect`."""
        response = await self.call("GET", path, params=params or None)
        assert response.status_code == expect, (path, response.status_code, response.text)
        return response.json()

    async def post(self, path: str, body: Any = None, status: int | None = None) -> httpx.Response:
        response = await self.call("POST", path, json=body if body is not None else {})
        if status is not None:
            assert response.status_code == status, (path, response.status_code, response.text)
        return response

    async def task(self, task_id: str) -> dict[str, Any]:
        return dict(await self.get(f"/api/tasks/{task_id}"))


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


async def pair(hub: HubProcess, token: str, name: str = "agent") -> dict[str, str]:
    return await asyncio.to_thread(pair_agent, hub, token, name)


@dataclass
class Team:
    """A hub with a paired, connected agent, a connected app and one conversation between them."""

    hub: HubProcess
    token: str
    api: Api
    agent_id: str
    credential: str
    agent: LapClient
    app: LapClient
    conversation_id: str

    @property
    def workspace_id(self) -> str:
        return self.app.workspace_id

    async def new_task(self, task_id: str, title: str = "Do something", *, accept: bool = False) -> dict[str, Any]:
        ack = await self.app.ok("task.create", {"title": title}, conversationId=self.conversation_id, taskId=task_id)
        await self.agent.event("task.assigned", taskId=task_id)
        if accept:
            await self.agent.ok("task.accepted", {}, taskId=task_id)
            await self.app.event("task.status_changed", taskId=task_id, status="running")
        return ack

    async def ask(self, task_id: str | None, interaction: dict[str, Any]) -> dict[str, Any]:
        """Agent requests an interaction; returns the stored interaction spec the app received."""
        fields: dict[str, Any] = {"taskId": task_id} if task_id else {"conversationId": self.conversation_id}
        await self.agent.ok("interaction.requested", {"interaction": interaction}, **fields)
        requested = await self.app.wait_for(
            lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
            and f["payload"]["interaction"]["id"] == interaction["id"])
        return dict(requested["payload"]["interaction"])


async def make_team(hub: HubProcess, token: str, connect: Callable[..., Awaitable[LapClient]], *,
                    conversation_id: str = "c1", agent_name: str = "agent") -> Team:
    paired = await pair(hub, token, agent_name)
    agent = await connect(hub, "agent", paired["credential"])
    app = await connect(hub, "app", token)
    await app.ok("conversation.create", {"title": "Work", "agentIds": [paired["agentId"]]},
                 conversationId=conversation_id)
    return Team(hub, token, Api(hub, token), paired["agentId"], paired["credential"], agent, app, conversation_id)


class Heartbeat:
    """Sends system.ping on a socket every `interval_s` until stopped or the socket closes."""

    def __init__(self, client: LapClient, interval_s: float) -> None:
        self.client = client
        self.interval_s = interval_s
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            while not self.client.closed.is_set():
                await self.client.send("system.ping", {})
                await asyncio.sleep(self.interval_s)
        except websockets.ConnectionClosed:
            pass

    async def stop(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def iso_in(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def of_type(client: LapClient, type_: str, **match: Any) -> list[dict[str, Any]]:
    """Stored events of a type already received on a socket whose envelope or payload fields match."""
    return [f for f in client.events() if f["type"] == type_
            and all(f.get(k, f["payload"].get(k)) == v for k, v in match.items())]


def last_sequence(client: LapClient) -> int:
    events = client.events()
    return int(events[-1]["sequence"]) if events else 0


async def request_fresh(client: LapClient, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Like LapClient.request, but only an answer that arrives after this send counts (for re-sent ids)."""
    start = len(client.frames)
    envelope_id = await client.send(type_, payload, **fields)
    return await client.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                 and f["payload"].get("id") == envelope_id, start=start)


# Events the hub appends on its own, some time after what caused them (hub/notify): tests that compare
# exact event lists leave them out.
ASYNC_TYPES = frozenset({"notification.created"})


def without_async(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] not in ASYNC_TYPES]


async def stored_after(api: Api, after: int) -> list[dict[str, Any]]:
    """Events stored after a sequence, apart from the hub's own asynchronous ones."""
    return without_async((await api.get("/api/events", after=after))["events"])
