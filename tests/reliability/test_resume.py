"""R1: the resume table (docs/quality.md#reliability-drills, docs/protocol.md#hello-welcome-resume).

One hub for each window size (below) holds a log of ~1,500 events: agent A is in conversation c-a (1,300 app messages, so a
replay from 0 takes more than one 1,000-row page), agent B in c-b. Each case connects with a cursor and checks
what arrives against the log read behind the hub's back: every event after the cursor once, in order, then
`system.caught_up`, then live events; or `system.resync_required` where the cursor cannot be served.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.drills import (
    assert_resumed_stream,
    log_rows,
    make_workspace,
    recipient_sequences,
    stored_frames,
    wait_acks,
)
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient
from tests.support.polling import eventually
from tests.support.rawclient import RawClient

MESSAGES_A = 1300
MESSAGES_B = 40


class Log:
    """The module's hub and what it holds."""

    def __init__(self, hub: HubProcess, token: str, agent_a: dict[str, str], agent_b: dict[str, str]) -> None:
        self.hub = hub
        self.token = token
        self.agent_a = agent_a
        self.agent_b = agent_b

    @property
    def db_path(self) -> Path:
        return self.hub.data_dir / "lineup.db"

    def rows(self) -> list[dict[str, Any]]:
        return log_rows(self.db_path)

    def workspace_sequences(self, workspace_id: str, after: int, upto: int | None = None) -> list[int]:
        return [r["sequence"] for r in self.rows() if r["workspaceId"] == workspace_id and r["sequence"] > after
                and (upto is None or r["sequence"] <= upto)]


async def _populate(hub: HubProcess) -> Log:
    space = await make_workspace(hub, agents=1, conversation_id="c-a")
    agent_b = await asyncio.to_thread(pair_agent, hub, space.token, "agent-b")
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    await app.ok("conversation.create", {"title": "b", "agentIds": [agent_b["agentId"]]}, conversationId="c-b")
    ids = [await app.send("message.create", {"content": f"to a {n}"}, conversationId="c-a") for n in range(MESSAGES_A)]
    ids += [await app.send("message.create", {"content": f"to b {n}"}, conversationId="c-b") for n in range(MESSAGES_B)]
    answers = await wait_acks(app, ids, timeout=60)
    assert all(a["type"] == "system.ack" for a in answers.values())
    await app.close()
    return Log(hub, space.token, space.agents[0], agent_b)


# The hub keeps the newest events in memory for replays (hub/gateway/recent.py); with a window of 100 most cases
# start in the log and finish in the window, so both paths and the hand-over between them are checked.
@pytest.fixture(scope="module", params=["window-8192", "window-100"])
def log(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Log]:
    window = request.param.removeprefix("window-")
    hub = HubProcess(tmp_path_factory.mktemp("resume") / "hub", env={"LINEUP_REPLAY_WINDOW_EVENTS": window}).start()
    try:
        # In a thread of its own: the tests' event loop is not running yet and must not be disturbed.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            populated = pool.submit(asyncio.run, _populate(hub)).result(timeout=90)
        yield populated
    finally:
        hub.stop()


async def _head(log: Log) -> int:
    return int(log.rows()[-1]["sequence"])


def _answered(client: LapClient) -> int:
    return sum(1 for f in client.frames if f["type"] in ("system.ack", "system.error"))


def _epoch(log: Log) -> str:
    answer = httpx.get(log.hub.base + "/api/state", headers={"Authorization": f"Bearer {log.token}"})
    return str(answer.json()["epoch"])


# ---- apps ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["none", "zero", "head", "head-k", "far-behind"])
async def test_app_resume_table(log: Log, case: str) -> None:
    head = await _head(log)
    cursor = {"none": None, "zero": 0, "head": head, "head-k": head - 7, "far-behind": head - 1200}[case]
    epoch = None if cursor is None else _epoch(log)
    started = time.monotonic()
    app = await LapClient.connect(log.hub.ws_base, "app", log.token, last_sequence=cursor, epoch=epoch)
    elapsed = time.monotonic() - started
    # The head may have moved since it was read (an earlier test's agent going offline is stored late).
    assert app.welcome["headSequence"] >= head
    assert not any(f["type"] == "system.resync_required" for f in app.frames)
    caught = await app.wait_for(lambda f: f["type"] == "system.caught_up")
    assert caught["payload"]["sequence"] >= app.welcome["headSequence"]
    expected = log.workspace_sequences(app.workspace_id, cursor or 0, caught["payload"]["sequence"])
    assert_resumed_stream(app.frames, expected)
    by_sequence = {r["sequence"]: r for r in log.rows()}
    for frame in stored_frames(app.frames):  # the replay is the log: same id and type at each sequence
        assert (frame["id"], frame["type"]) == (by_sequence[frame["sequence"]]["id"], by_sequence[frame["sequence"]]["type"])
    assert elapsed < 5, f"replaying {len(expected)} events took {elapsed:.2f} s"
    await app.close()


async def test_app_resume_beyond_head_requires_resync(log: Log) -> None:
    head = await _head(log)
    app = await LapClient.connect(log.hub.ws_base, "app", log.token, last_sequence=head + 1000)
    head = app.welcome["headSequence"]
    resync = await app.wait_for(lambda f: f["type"] == "system.resync_required")
    assert resync["payload"] == {"reason": "beyond_head", "epoch": app.welcome["epoch"], "headSequence": head}
    caught = await app.wait_for(lambda f: f["type"] == "system.caught_up")
    assert caught["payload"]["sequence"] >= head
    assert all(f["sequence"] > head for f in stored_frames(app.frames)), "a cursor beyond the head got a replay"
    await app.close()


async def test_app_resume_from_another_epoch_requires_resync(log: Log) -> None:
    app = await LapClient.connect(log.hub.ws_base, "app", log.token, last_sequence=5, epoch="an-older-log")
    head = app.welcome["headSequence"]
    resync = await app.wait_for(lambda f: f["type"] == "system.resync_required")
    assert resync["payload"]["reason"] == "epoch_changed"
    assert resync["payload"]["epoch"] == app.welcome["epoch"] != "an-older-log"
    assert resync["payload"]["headSequence"] == head
    assert app.frames.index(resync) < app.frames.index(await app.wait_for(lambda f: f["type"] == "system.caught_up"))
    assert all(f["sequence"] > head for f in stored_frames(app.frames)), \
        "an app from another epoch reloads over HTTP, not from a partial replay"
    await app.close()


class _Stream:
    """Agent B posting to c-b with at most `window` envelopes unanswered, until stopped."""

    def __init__(self, sender: LapClient, content: str, window: int, pause_s: float = 0.001) -> None:
        self.sender, self.content, self.window, self.pause_s = sender, content, window, pause_s
        self.sent: list[str] = []
        self.stop = asyncio.Event()
        self.base = _answered(sender)
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        n = 0
        while not self.stop.is_set():
            while len(self.sent) - (_answered(self.sender) - self.base) >= self.window:
                await asyncio.sleep(0.001)
            self.sent.append(await self.sender.send("message.create", {"content": f"{self.content} {n}"},
                                                    conversationId="c-b"))
            n += 1
            await asyncio.sleep(self.pause_s)

    async def flowing(self) -> None:
        """Wait until the hub has answered at least one envelope of this stream."""
        await eventually(lambda: _answered(self.sender) > self.base, timeout=30, what="the stream's first answer")

    async def finish(self) -> None:
        self.stop.set()
        await self.task
        answers = await wait_acks(self.sender, self.sent)
        assert all(a["type"] == "system.ack" for a in answers.values())


async def test_live_events_during_replay_arrive_once_in_order(log: Log) -> None:
    """Events committed while a replay runs are neither lost nor doubled, and caught_up sits between."""
    sender = await LapClient.connect(log.hub.ws_base, "agent", log.agent_b["credential"])
    raced = False
    for attempt in range(6):
        stream = _Stream(sender, f"live {attempt} " + "x" * 200, window=8)
        await stream.flowing()
        app = await LapClient.connect(log.hub.ws_base, "app", log.token, last_sequence=0, wait_caught_up=False)
        caught = await app.wait_for(lambda f: f["type"] == "system.caught_up", timeout=30)
        await eventually(lambda: [f for f in stored_frames(app.frames) if f["sequence"] > caught["payload"]["sequence"]],
                         timeout=30, what="a live event after caught_up")
        await stream.finish()
        head = await _head(log)
        await app.wait_for(lambda f: f.get("sequence") == head, timeout=20)
        assert app.welcome["headSequence"] <= caught["payload"]["sequence"] <= head
        assert_resumed_stream(app.frames, log.workspace_sequences(app.workspace_id, 0, head))
        assert [f for f in stored_frames(app.frames) if f["sequence"] > caught["payload"]["sequence"]], \
            "no live event arrived after caught_up"
        await app.close()
        if caught["payload"]["sequence"] > app.welcome["headSequence"]:
            raced = True  # events committed during this replay were delivered before caught_up
            break
    await sender.close()
    assert raced, "no attempt had events committed during the replay"


async def test_live_events_beyond_the_buffer_during_a_slow_replay(log: Log) -> None:
    """More than the 1 MiB outbound bound is committed while a replay runs: the hub drops what it buffered for
    the socket and reads the log again (hub/gateway/session.py); the receiver gets every event once, in order.

    The replay is made long by ~8 MB of large events the reader takes at ~10 MB/s, while ~200 KB events keep
    arriving at a few MB/s. The reader stops throttling for the last ~5 MB (more than the socket buffers hold),
    so when the hub goes live it reads faster than the live rate and is not a slow consumer.
    """
    sender = await LapClient.connect(log.hub.ws_base, "agent", log.agent_b["credential"])
    app: RawClient | None = None
    try:
        big = "y" * 200_000
        preload = [await sender.send("message.create", {"content": f"{big} preload {n}"}, conversationId="c-b")
                   for n in range(80)]
        await wait_acks(sender, preload)
        stream = _Stream(sender, big, window=1, pause_s=0.03)
        await stream.flowing()
        app = await RawClient.connect(log.hub.ws_base, "app", log.token, rcvbuf=256 * 1024, lastSequence=0)
        unthrottle_at = app.welcome["headSequence"] - 40
        started, read_bytes, caught = time.monotonic(), 0, None
        while caught is None:
            frame = await app.recv()
            assert frame is not None, f"the hub closed the resuming socket with {app.close_code}"
            if frame["type"] == "system.caught_up":
                caught = frame
            elif frame.get("sequence", 0) < unthrottle_at:
                read_bytes += len(json.dumps(frame))
                # 10 MB/s: at 20 a quiet run's replay once ended after 1.0 MB of live events, under the bound.
                ahead = read_bytes / 10e6 - (time.monotonic() - started)
                if ahead > 0:
                    await asyncio.sleep(ahead)
        reader = asyncio.create_task(app.drain())  # keep reading while the stream stops
        await stream.finish()
        head = await _head(log)
        while not any(f.get("sequence") == head for f in app.frames):
            assert not reader.done(), f"the hub closed the socket with {app.close_code}"
            await asyncio.sleep(0.01)
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        expected = log.workspace_sequences(app.welcome["workspaceId"], 0, head)
        assert_resumed_stream(app.frames, expected)
        by_sequence = {r["sequence"]: r for r in log.rows()}
        during = [f for f in stored_frames(app.frames)
                  if app.welcome["headSequence"] < f["sequence"] <= caught["payload"]["sequence"]]
        assert sum(len(json.dumps(by_sequence[f["sequence"]]["payload"])) for f in during) > 1024 * 1024, \
            "less than the outbound bound was committed during the replay; the drill did not overflow it"
    finally:  # a failed check leaves no socket for a later test's garbage collector
        if app is not None:
            await app.close()
        await sender.close()


# ---- agents ----------------------------------------------------------------------------------------------

async def test_agent_replay_holds_only_its_events(log: Log) -> None:
    a = await LapClient.connect(log.hub.ws_base, "agent", log.agent_a["credential"], last_sequence=0)
    b = await LapClient.connect(log.hub.ws_base, "agent", log.agent_b["credential"], last_sequence=0)
    for client, paired in ((a, log.agent_a), (b, log.agent_b)):
        caught = await client.wait_for(lambda f: f["type"] == "system.caught_up")
        expected = [s for s in recipient_sequences(log.db_path, paired["agentId"]) if s <= caught["payload"]["sequence"]]
        assert_resumed_stream(client.frames, expected)
        # An agent sees the app's message.created as message.delivered.
        assert {f["type"] for f in stored_frames(client.frames)} == {"message.delivered"}
    assert len(stored_frames(a.frames)) >= MESSAGES_A  # more than one replay page
    assert all(f["conversationId"] == "c-a" for f in stored_frames(a.frames))
    assert all(f["conversationId"] == "c-b" for f in stored_frames(b.frames))
    await a.close()
    await b.close()


async def test_agent_gets_task_assigned_while_offline_on_resume(log: Log) -> None:
    agent = await LapClient.connect(log.hub.ws_base, "agent", log.agent_a["credential"], last_sequence=0)
    epoch = agent.welcome["epoch"]
    cursor = (await agent.wait_for(lambda f: f["type"] == "system.caught_up"))["payload"]["sequence"]
    await agent.close()
    app = await LapClient.connect(log.hub.ws_base, "app", log.token, last_sequence=cursor)
    await app.ok("task.create", {"title": "while you were away"}, conversationId="c-a", taskId="t-offline")
    await app.ok("message.create", {"content": "and a message"}, conversationId="c-a")
    await app.close()

    agent = await LapClient.connect(log.hub.ws_base, "agent", log.agent_a["credential"], last_sequence=cursor,
                                    epoch=epoch)
    caught = await agent.wait_for(lambda f: f["type"] == "system.caught_up")
    replayed = stored_frames(agent.frames)
    assert [f["type"] for f in replayed] == ["task.assigned", "message.delivered"]
    assert replayed[0]["taskId"] == "t-offline" and replayed[0]["payload"]["title"] == "while you were away"
    assert agent.frames.index(replayed[-1]) < agent.frames.index(caught)
    expected = [s for s in recipient_sequences(log.db_path, log.agent_a["agentId"]) if cursor < s]
    assert_resumed_stream(agent.frames, expected)
    await agent.close()


async def test_agent_from_another_epoch_gets_everything_again(log: Log) -> None:
    agent = await LapClient.connect(log.hub.ws_base, "agent", log.agent_b["credential"], last_sequence=3,
                                    epoch="an-older-log")
    resync = await agent.wait_for(lambda f: f["type"] == "system.resync_required")
    assert resync["payload"]["reason"] == "epoch_changed"
    caught = await agent.wait_for(lambda f: f["type"] == "system.caught_up")
    expected = [s for s in recipient_sequences(log.db_path, log.agent_b["agentId"]) if s <= caught["payload"]["sequence"]]
    assert len(expected) >= MESSAGES_B
    assert_resumed_stream(agent.frames, expected)
    await agent.close()


async def test_agent_resume_beyond_head_requires_resync(log: Log) -> None:
    head = await _head(log)
    agent = await LapClient.connect(log.hub.ws_base, "agent", log.agent_b["credential"], last_sequence=head + 1000)
    resync = await agent.wait_for(lambda f: f["type"] == "system.resync_required")
    assert resync["payload"]["reason"] == "beyond_head"
    await agent.close()
