"""S1: a slow consumer (docs/quality.md#targets, hub/gateway/session.py).

An app that stops reading has its outbound buffer bounded in bytes; once the bound is passed the hub closes
it with 4008 while other apps keep receiving everything. The evicted app resumes with `lastSequence` and has
lost nothing. The bound is set small here (LINEUP_OUTBOUND_BUFFER_BYTES) so the drill is quick.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from tests.support.drills import assert_resumed_stream, log_rows, make_workspace, stored_frames, wait_acks
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient, envelope
from tests.support.rawclient import RawClient

BOUND = 128 * 1024
CONTENT = "s" * 8000          # ~8 KB events; a window of 4 keeps each writer batch far below the bound
SEND_CAP_BYTES = 40_000_000   # more than any socket buffers can hide; the drill fails if no eviction by then


async def _stream_until(agent: LapClient, conversation_id: str, done: asyncio.Future[None],
                        sent: list[str]) -> None:
    """Post events with at most 4 unanswered until `done` resolves."""
    base = sum(1 for f in agent.frames if f["type"] in ("system.ack", "system.error"))
    n = 0
    while not done.done():
        while len(sent) - (sum(1 for f in agent.frames if f["type"] in ("system.ack", "system.error")) - base) >= 4:
            await asyncio.sleep(0.0005)
        sent.append(await agent.send("message.create", {"content": f"{CONTENT} {n}"}, conversationId=conversation_id))
        n += 1
        assert n * len(CONTENT) < SEND_CAP_BYTES, "the stalled app was never evicted"


async def test_a_stalled_app_is_evicted_with_4008_and_resumes_losing_nothing(hub_factory: HubFactory) -> None:
    hub: HubProcess = hub_factory(env={"LINEUP_OUTBOUND_BUFFER_BYTES": str(BOUND), "LINEUP_LOG_LEVEL": "info"})
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    fast = [await LapClient.connect(hub.ws_base, "app", space.token) for _ in range(2)]
    slow = await RawClient.connect(hub.ws_base, "app", space.token, rcvbuf=8192)
    await slow.recv_until(lambda f: f["type"] == "system.caught_up")
    epoch = slow.welcome["epoch"]
    # From here on `slow` reads nothing: its TCP window closes and the hub's writes back up.

    evicted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    sent: list[str] = []
    streaming = asyncio.create_task(_stream_until(agent, space.conversation_id, evicted, sent))
    peak_queued = 0
    deadline = time.monotonic() + 60
    async with httpx.AsyncClient(base_url=hub.base) as http:
        while "closing slow consumer" not in hub.log():
            assert time.monotonic() < deadline, "no eviction within 60 s"
            assert not streaming.done() or streaming.exception() is None, streaming.exception()
            peak_queued = max(peak_queued, (await http.get("/-/metrics")).json()["outboundQueuedBytes"])
            await asyncio.sleep(0.02)
    # The bound held: what the hub had queued for its sockets never went far past one socket's bound.
    assert peak_queued <= 3 * BOUND, f"{peak_queued} bytes queued with a bound of {BOUND}"
    # Keep the flow going a little after the eviction: the other apps are unaffected.
    after = len(sent)
    while len(sent) < after + 100:
        await asyncio.sleep(0.01)
    evicted.set_result(None)
    await streaming
    answers = await wait_acks(agent, sent)
    assert all(a["type"] == "system.ack" for a in answers.values())

    head = log_rows(space.db_path)[-1]["sequence"]
    workspace_sequences = [r["sequence"] for r in log_rows(space.db_path) if r["workspaceId"] == agent.workspace_id]
    for app in fast:
        await app.wait_for(lambda f: f.get("sequence") == head, timeout=30)
        assert not app.closed.is_set(), "an app that keeps up was closed"
        assert_resumed_stream(app.frames, workspace_sequences)

    # The stalled app reads again: what was already on its way, then the 4008 close.
    await slow.drain(timeout=30)
    assert slow.close_code == 4008
    got = [f["sequence"] for f in stored_frames(slow.frames)]
    assert got == workspace_sequences[:len(got)], "the stalled app got a gap or a duplicate before its eviction"
    assert len(got) < len(workspace_sequences), "the stalled app got everything: it was not really stalled"

    # It resumes from the last sequence it has and gets the rest, once each, in order.
    resumed = await LapClient.connect(hub.ws_base, "app", space.token, last_sequence=got[-1], epoch=epoch)
    await resumed.wait_for(lambda f: f.get("sequence") == head, timeout=30)
    assert not any(f["type"] == "system.resync_required" for f in resumed.frames)
    assert_resumed_stream(resumed.frames, [s for s in workspace_sequences if s > got[-1]])
    for client in (*fast, resumed, agent):
        await client.close()


async def test_a_stored_event_larger_than_the_bound_does_not_lock_apps_out(hub_factory: HubFactory) -> None:
    """A frame just under the 1 MiB frame limit is accepted; stored, with the hub's fields added, it is larger
    than the default 1 MiB outbound bound. Apps must still receive it live and replay past it (before the fix
    every app resuming from before it was evicted with 4008, every time)."""
    hub: HubProcess = hub_factory()
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    live = await LapClient.connect(hub.ws_base, "app", space.token)
    near = envelope("message.create", {"content": "near the limit", "blob": ""}, agent.workspace_id,
                    conversationId=space.conversation_id)
    near["payload"]["blob"] = "b" * (1024 * 1024 - len(json.dumps(near)) - 64)
    await agent.send_raw(json.dumps(near))
    stored = (await agent.answer(near["id"], timeout=20))["payload"]
    assert stored["sequence"]
    after = await agent.ok("message.create", {"content": "after it"}, conversationId=space.conversation_id)
    frame = await live.wait_for(lambda f: f.get("id") == near["id"], timeout=20)
    assert len(json.dumps(frame)) > 1024 * 1024  # really larger than the bound
    await live.wait_for(lambda f: f.get("sequence") == after["sequence"])
    for cursor in (0, stored["sequence"] - 1):
        app = await LapClient.connect(hub.ws_base, "app", space.token, last_sequence=cursor, wait_caught_up=False)
        await app.wait_for(lambda f: f["type"] == "system.caught_up", timeout=20)
        expected = [r["sequence"] for r in log_rows(space.db_path)
                    if r["workspaceId"] == app.workspace_id and r["sequence"] > cursor]
        assert_resumed_stream(app.frames, expected)
        await app.close()
    for client in (agent, live):
        await client.close()


@pytest.mark.parametrize("bound", [64 * 1024, 200 * 1024])
async def test_a_small_bound_still_lets_a_long_replay_through(hub_factory: HubFactory, bound: int) -> None:
    """Replay is paced below the bound, whatever the bound is configured to, and the events that arrive
    meanwhile are queued only once the replay has left the buffer: a reader that keeps up (if not instantly)
    is never evicted while catching up."""
    hub: HubProcess = hub_factory(env={"LINEUP_OUTBOUND_BUFFER_BYTES": str(bound)})
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    for start in range(0, 1500, 50):  # in windows: a batch's acks alone must stay below a tiny bound
        ids = [await agent.send("message.create", {"content": f"{'r' * 4000} {n}"},
                                conversationId=space.conversation_id) for n in range(start, start + 50)]
        await wait_acks(agent, ids, timeout=60)
    # ~6 MB of replay, more than the socket buffers hold, read at ~16 MB/s: the hub's buffer is full when the
    # replay ends.
    resumed = await RawClient.connect(hub.ws_base, "app", space.token, rcvbuf=65536, lastSequence=0)
    caught = None
    while caught is None:
        frame = await resumed.recv()
        assert frame is not None, f"evicted during the replay with {resumed.close_code}"
        if frame["type"] == "system.caught_up":
            caught = frame
        elif len(resumed.frames) == 100:  # live events while the replay runs: over half the bound, under it
            live = [await agent.send("message.create", {"content": f"{'l' * 4000} {n}"},
                                     conversationId=space.conversation_id) for n in range(bound // 4096 * 6 // 10)]
            await wait_acks(agent, live)
        elif len(resumed.frames) % 20 == 0:
            await asyncio.sleep(0.005)
    await agent.close()
    head = caught["payload"]["sequence"]
    expected = [r["sequence"] for r in log_rows(space.db_path)
                if r["workspaceId"] == agent.workspace_id and r["sequence"] <= head]
    assert_resumed_stream(resumed.frames, expected)
    await resumed.close()
