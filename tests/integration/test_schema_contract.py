"""The test clients hold every frame to `lineup schema`: a frame that breaks it fails the test, saying which.

With a real hub: the refusal of a `failed` status without `error` and the schema agree. With a stand-in hub on
a loopback socket (so it can send what the real one never does): a broken frame from the hub, and an ack for a
frame the schema refuses, each fail the test at its next wait with the frame and the rule named.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import websockets
from websockets.asyncio.server import ServerConnection

from tests.integration.conftest import Connect
from tests.support import contract
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient, envelope
from tests.support.live import make_team

Script = Callable[[ServerConnection, dict[str, Any]], Awaitable[None]]


def hub_frame(type_: str, payload: dict[str, Any], **fields: Any) -> str:
    return json.dumps(envelope(type_, payload, "ws1", **fields))


@asynccontextmanager
async def stand_in_hub(after_hello: Script) -> AsyncIterator[str]:
    """A loopback WebSocket server that welcomes the client properly, then runs `after_hello` on each frame."""
    async def serve(ws: ServerConnection) -> None:
        hello = json.loads(await ws.recv())
        await ws.send(hub_frame("system.welcome", {"workspaceId": "ws1", "heartbeatIntervalMs": 25000,
                                                   "epoch": "e", "headSequence": 0, "userId": "u1",
                                                   "deviceId": "d1"}))
        await ws.send(hub_frame("system.caught_up", {"sequence": 0}))
        assert hello["type"] == "app.hello"
        async for message in ws:
            await after_hello(ws, json.loads(message))

    async with websockets.serve(serve, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def contract_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contract, "ENABLED", True)  # whatever LINEUP_TEST_CONTRACT says


async def test_a_frame_from_the_hub_that_breaks_the_schema_fails_the_next_wait() -> None:
    async def send_a_failed_task_without_error(ws: ServerConnection, frame: dict[str, Any]) -> None:
        await ws.send(hub_frame("system.ack", {"id": frame["id"], "sequence": 1, "duplicate": False}))
        await ws.send(hub_frame("task.status_changed", {"status": "failed", "previousStatus": "running"},
                                id="evt_bad", taskId="t1", sequence=2))
        await ws.send(hub_frame("system.caught_up", {"sequence": 2}))

    async with stand_in_hub(send_a_failed_task_without_error) as base:
        client = await LapClient.connect(base, "app", "token")
        await client.send("task.create", {"title": "t"}, taskId="t1")
        with pytest.raises(AssertionError) as failure:
            await client.wait_for(lambda f: f["type"] == "system.caught_up" and f["payload"]["sequence"] == 2)
        message = str(failure.value)
        assert "hub → app" in message and "'task.status_changed'" in message and "'evt_bad'" in message
        assert "/payload" in message and "A `failed` status needs `error" in message
        await client.ws.close()
        with pytest.raises(AssertionError):
            await client.close()  # also at teardown, for a test that never waits again


async def test_an_ack_for_a_frame_the_schema_refuses_fails_the_next_wait() -> None:
    async def ack_everything(ws: ServerConnection, frame: dict[str, Any]) -> None:
        await ws.send(hub_frame("system.ack", {"id": frame["id"], "sequence": 1, "duplicate": False}))

    async with stand_in_hub(ack_everything) as base:
        client = await LapClient.connect(base, "app", "token")
        good = await client.send("task.create", {"title": "t"})
        assert (await client.answer(good))["type"] == "system.ack"  # nothing to complain about
        bad = await client.send("task.create", {"title": ""})  # an empty title: the schema's minLength
        with pytest.raises(AssertionError) as failure:
            await client.answer(bad)
        message = str(failure.value)
        assert "accepted a frame `lineup schema` refuses" in message and repr(bad) in message
        assert "app → hub" in message and "/payload/title" in message
        client.contract_problems.clear()
        await client.close()


async def test_the_real_hub_and_the_schema_both_refuse_a_failed_status_without_error(
        hub: HubProcess, owner_token: str, lap: Connect) -> None:
    team = await make_team(hub, owner_token, lap)
    await team.new_task("t1")
    await team.agent.ok("task.accepted", {}, taskId="t1")
    answer = await team.agent.request("task.status_changed", {"status": "failed"}, taskId="t1")
    assert answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload"
    assert "lineup schema" in answer["payload"]["hint"]
    sent = next(iter(team.agent.schema_refused.values()))  # the schema refused it before it left
    assert "A `failed` status needs `error" in sent
    await team.agent.ok("task.status_changed", {"status": "failed", "error": {"code": "boom", "message": "x"}},
                        taskId="t1")
    failed = await team.app.event("task.status_changed", taskId="t1", status="failed")
    assert failed["payload"]["error"] == {"code": "boom", "message": "x"}
    team.agent.check_contract()
    team.app.check_contract()
