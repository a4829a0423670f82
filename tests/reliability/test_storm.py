"""R2, short form: a reconnect storm. Many apps that fell behind reconnect at the same moment while live events
flow; each gets every event after its cursor once, in order, `caught_up` once, then the live ones.

The long form (200 apps, 500 behind, 200 ev/s, timed) is `python -m bench.storm`.
"""

from __future__ import annotations

import asyncio

from tests.support.drills import assert_db_check, assert_resumed_stream, log_rows, make_workspace, wait_acks
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.polling import eventually

APPS = 40
BEHIND = 300
LIVE = 60


async def test_apps_reconnecting_at_once_during_live_traffic_miss_nothing(hub: HubProcess) -> None:
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    apps = await asyncio.gather(*(LapClient.connect(hub.ws_base, "app", space.token) for _ in range(APPS)))
    cursors = [app.welcome["headSequence"] for app in apps]
    await asyncio.gather(*(app.close() for app in apps))

    behind = [await agent.send("message.create", {"content": f"missed {n} " + "x" * 200},
                               conversationId=space.conversation_id) for n in range(BEHIND)]
    assert all(a["type"] == "system.ack" for a in (await wait_acks(agent, behind)).values())

    async def live_traffic() -> list[str]:
        ids = []
        for n in range(LIVE):
            ids.append(await agent.send("message.create", {"content": f"live {n}"}, conversationId=space.conversation_id))
            await asyncio.sleep(0.01)
        return ids

    acked_before = sum(1 for f in agent.frames if f["type"] == "system.ack")
    live = asyncio.create_task(live_traffic())
    await eventually(lambda: sum(1 for f in agent.frames if f["type"] == "system.ack") > acked_before, timeout=30,
                     what="a live event stored")  # live events are flowing when the storm starts
    storm = await asyncio.gather(*(LapClient.connect(hub.ws_base, "app", space.token, last_sequence=cursor,
                                                     wait_caught_up=False) for cursor in cursors))
    live_ids = await live
    answers = await wait_acks(agent, live_ids, timeout=30)
    assert all(a["type"] == "system.ack" for a in answers.values())
    head = max(a["payload"]["sequence"] for a in answers.values())
    try:
        for app in storm:
            await app.wait_for(lambda f: f.get("sequence") == head, timeout=30)
        rows = log_rows(space.db_path)
        for app, cursor in zip(storm, cursors, strict=False):
            expected = [r["sequence"] for r in rows if r["workspaceId"] == app.workspace_id and cursor < r["sequence"] <= head]
            assert len(expected) >= BEHIND + LIVE
            assert_resumed_stream([f for f in app.frames if f.get("sequence", 0) <= head], expected)
    finally:
        await asyncio.gather(*(app.close() for app in storm))
        await agent.close()
    hub.stop()
    assert_db_check(hub.data_dir)
