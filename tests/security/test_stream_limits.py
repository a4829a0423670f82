"""Against a real `lineup serve`: an agent cannot keep unfinished streamed messages in the hub's
memory. Beyond `max_open_streams_per_agent` its least recently active stream is stored and closed; a stream idle
for `stream_idle_s` is stored and closed; either way the text streamed so far is kept and the agent can go on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, Team, eventually, make_team


@pytest.fixture
async def opened() -> AsyncIterator[list[LapClient]]:
    clients: list[LapClient] = []
    yield clients
    for client in clients:
        await client.close()


async def team_on(hub: HubProcess, opened: list[LapClient], name: str = "agent", conversation: str = "c1") -> Team:
    async def connect(hub: HubProcess, kind: str, secret: str, **kwargs: Any) -> LapClient:
        client = await LapClient.connect(hub.ws_base, kind, secret, **kwargs)
        opened.append(client)
        return client

    return await make_team(hub, await asyncio.to_thread(hub.token), connect, agent_name=name,
                           conversation_id=conversation)


async def open_streams(hub: HubProcess) -> int:
    async with httpx.AsyncClient() as http:
        return int((await http.get(hub.base + "/-/metrics")).json()["openStreams"])


async def stored(api: Api, conversation_id: str, message_id: str) -> dict[str, Any] | None:
    messages = (await api.get(f"/api/conversations/{conversation_id}/messages?limit=500"))["messages"]
    return next((m for m in messages if m["id"] == message_id), None)


async def delta(agent: LapClient, conversation_id: str, message_id: str, offset: int, text: str) -> None:
    ack = await agent.request("message.delta", {"messageId": message_id, "offset": offset, "text": text},
                              conversationId=conversation_id)
    assert ack["type"] == "system.ack", ack


async def test_one_agent_keeps_at_most_16_streams_open(hub_factory: HubFactory, opened: list[LapClient]) -> None:
    hub = hub_factory("streams")
    team = await team_on(hub, opened)
    other = await team_on(hub, opened, name="neighbour", conversation="c2")
    await delta(other.agent, "c2", "theirs", 0, "another agent's stream")
    text = "x" * 4000
    for n in range(100):
        await delta(team.agent, "c1", f"s{n}", 0, f"{n}:{text}")
    assert await open_streams(hub) == 16 + 1  # the agent's newest 16, and the other agent's one, untouched

    # The closed streams kept what was streamed, and the agent can go on with one as if nothing happened.
    first = await stored(team.api, "c1", "s0")
    assert first is not None and first["state"] == "streaming" and first["content"] == f"0:{text}"
    await delta(team.agent, "c1", "s0", len(f"0:{text}"), " and more")
    await team.agent.ok("message.create", {"messageId": "s0", "content": f"0:{text} and more."}, conversationId="c1")
    final = await stored(team.api, "c1", "s0")
    assert final is not None and final["state"] == "complete" and final["content"] == f"0:{text} and more."
    assert await open_streams(hub) <= 16 + 1


async def test_an_idle_stream_is_stored_and_closed(hub_factory: HubFactory, opened: list[LapClient]) -> None:
    hub = hub_factory("idle", env={"LINEUP_STREAM_IDLE_S": "1", "LINEUP_STREAM_SNAPSHOT_S": "3600"})
    team = await team_on(hub, opened)
    await delta(team.agent, "c1", "m1", 0, "half a thought")
    assert await open_streams(hub) == 1
    await eventually(lambda: _closed(hub), timeout=10)
    kept = await stored(team.api, "c1", "m1")
    assert kept is not None and kept["content"] == "half a thought" and kept["state"] == "streaming"
    # The agent comes back later: the stream reopens from what was stored.
    await delta(team.agent, "c1", "m1", len("half a thought"), ", finished")
    await team.agent.ok("message.create", {"messageId": "m1", "content": "half a thought, finished"},
                        conversationId="c1")
    done = await stored(team.api, "c1", "m1")
    assert done is not None and done["state"] == "complete"


async def _closed(hub: HubProcess) -> bool:
    return await open_streams(hub) == 0
