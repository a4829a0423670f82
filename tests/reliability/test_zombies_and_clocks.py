"""Zombie peers and clock jumps (docs/quality.md#targets H1/H2, docs/quality.md#reliability-drills; long forms in
bench/soak.py).

Heartbeats are shortened to 1 s through LINEUP_HEARTBEAT_INTERVAL_S so each drill takes seconds:
- a SIGSTOPped agent is marked offline after two silent intervals, not before, and comes back whole;
- a proxy that black-holes traffic without closing: the hub and the SDK both notice, the SDK reconnects on heal;
- a SIGSTOPped hub: no false offline storm on SIGCONT, apps resume without gap or duplicate, `db check` passes;
- a wall clock that jumps an hour (libfaketime): presence is on the monotonic clock and does not misfire.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from hub.sdk.client import AgentClient
from hub.sdk.credentials import Credential
from tests.support.drills import (
    Workspace,
    assert_db_check,
    log_rows,
    make_workspace,
    recipient_sequences,
    stored_frames,
    wait_acks,
)
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.polling import eventually

INTERVAL = 1.0
FAST = {"LINEUP_HEARTBEAT_INTERVAL_S": str(INTERVAL), "LINEUP_LOG_LEVEL": "info"}
LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")

AGENT_SCRIPT = r"""
import asyncio, json, sys
from hub.sdk.client import AgentClient
from hub.sdk.credentials import Credential

class Printing(AgentClient):
    def _on_frame(self, frame):
        before = self.last_sequence
        super()._on_frame(frame)
        if frame.get("sequence") is not None and frame["sequence"] > before:
            print("EVENT", frame["sequence"], flush=True)
        if frame["type"] == "system.caught_up":
            print("CAUGHT_UP", self.connections, flush=True)

async def main():
    c = Printing(Credential(**json.loads(sys.argv[1])), state_path=sys.argv[2], backoff_initial_s=0.2, backoff_max_s=1.0)
    await c.start()
    await asyncio.Event().wait()

asyncio.run(main())
"""


def _parse_iso(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def _credential(hub: HubProcess, paired: dict[str, str], hub_url: str | None = None) -> Credential:
    return Credential(hub_url=hub_url or hub.base, agent_id=paired["agentId"], workspace_id=paired["workspaceId"],
                      credential=paired["credential"])


def _recorded_at(db_path: Path, sequence: int) -> str:
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        return str(conn.execute("SELECT recorded_at FROM events WHERE sequence = ?", (sequence,)).fetchone()[0])
    finally:
        conn.close()


def _status_events(app: LapClient, agent_id: str, start: int = 0) -> list[dict[str, Any]]:
    return [f for f in app.frames[start:] if f["type"] == "agent.status_changed" and f.get("sequence") is not None
            and f["payload"]["agentId"] == agent_id]


def _silence(offline: dict[str, Any]) -> float:
    """How long the hub had heard nothing when it declared the agent offline (its own two wall stamps)."""
    return _parse_iso(offline["occurredAt"]) - _parse_iso(offline["payload"]["lastHeartbeatAt"])


async def _pinger(client: LapClient, stop: asyncio.Event) -> None:
    """A raw LAP peer's application heartbeat."""
    while not stop.is_set():
        try:
            await client.send("system.ping", {})
        except Exception:  # noqa: BLE001 - whatever ends the wait, the drill goes on
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), INTERVAL)


async def _all_stored_so_far_arrived(app: LapClient, space: Workspace) -> None:
    """Post a message and wait for its event on the app's stream. The log is one sequence and the app receives it
    in order, so an event the hub stored before this one (a false offline, a failed task) has arrived by then: what
    the app has not got at that point, the hub did not store."""
    ack = await app.ok("message.create", {"content": "sentinel"}, conversationId=space.conversation_id)
    await app.wait_for(lambda f: f.get("sequence") == ack["sequence"], timeout=30)


async def _post(app: LapClient, space: Workspace, n: int, tag: str) -> list[str]:
    ids = [await app.send("message.create", {"content": f"{tag} {i}"}, conversationId=space.conversation_id)
           for i in range(n)]
    await wait_acks(app, ids)
    return ids


# ---- 1. a SIGSTOPped agent ----------------------------------------------------------------------------

async def test_a_stopped_agent_goes_offline_after_two_intervals_and_returns_whole(hub_factory: HubFactory, tmp_path: Path) -> None:
    hub: HubProcess = hub_factory(env=FAST)
    space = await make_workspace(hub, agents=1)
    paired = space.agents[0]
    agent_id = paired["agentId"]
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    stop_ping = asyncio.Event()
    pinging = asyncio.create_task(_pinger(app, stop_ping))
    cred = {"hub_url": hub.base, "agent_id": agent_id, "workspace_id": paired["workspaceId"],
            "credential": paired["credential"]}
    out = open(tmp_path / "agent.out", "w")  # noqa: SIM115 - the agent process writes it while it runs
    proc = subprocess.Popen([sys.executable, "-c", AGENT_SCRIPT, json.dumps(cred), str(tmp_path / "agent.state")],
                            stdout=out, stderr=subprocess.STDOUT, cwd=os.getcwd())
    try:
        online = await app.event("agent.status_changed", timeout=20, agentId=agent_id, status="online")
        await _post(app, space, 5, "before")
        await asyncio.sleep(2.5 * INTERVAL)  # a few beats: the hub must not mark a live agent offline
        await _all_stored_so_far_arrived(app, space)
        mark = len(app.frames)
        assert not [f for f in _status_events(app, agent_id, app.frames.index(online) + 1)
                    if f["payload"]["status"] == "offline"], "a beating agent was marked offline"

        proc.send_signal(signal.SIGSTOP)
        stopped_at = time.monotonic()
        offline = await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence") is not None
                                     and f["payload"]["agentId"] == agent_id and f["payload"]["status"] == "offline",
                                     timeout=10, start=mark)
        detected = time.monotonic() - stopped_at
        silence = _silence(offline)
        assert offline["payload"]["reason"] == "heartbeat_timeout", offline
        assert 2.0 * INTERVAL <= silence <= 2.4 * INTERVAL, f"offline after {silence:.2f} s of silence"
        assert 1.0 * INTERVAL <= detected <= 2.5 * INTERVAL, f"offline {detected:.2f} s after SIGSTOP"

        missed = await _post(app, space, 5, "while stopped")  # addressed to the zombie
        await asyncio.sleep(1.0)  # the scenario: the zombie stays stopped a while with its events waiting
        mark = len(app.frames)
        proc.send_signal(signal.SIGCONT)
        await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence") is not None
                           and f["payload"]["agentId"] == agent_id and f["payload"]["status"] == "online",
                           timeout=15, start=mark)
        assert len(missed) == 5
        expected = recipient_sequences(space.db_path, agent_id)
        deadline = time.monotonic() + 15
        while True:
            got = [int(line.split()[1]) for line in (tmp_path / "agent.out").read_text().splitlines()
                   if line.startswith("EVENT ")]
            if set(expected) <= set(got) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        assert len(got) == len(set(got)), "the agent handled an event twice"
        assert got == sorted(got), "events out of order"
        assert not sorted(set(expected) - set(got)), f"events lost: {sorted(set(expected) - set(got))[:10]}"
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        proc.wait(10)
        out.close()
        stop_ping.set()
        await pinging
        await app.close()
    hub.stop()
    assert_db_check(hub.data_dir)


# ---- 2. a proxy that black-holes the link -------------------------------------------------------------

class BlackHoleProxy:
    """Forwards loopback TCP to the hub; `hole()` stops forwarding both ways without closing anything,
    `heal()` lets the held bytes through again (as a healed partition would)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.accepted = 0  # connections made to the proxy, held or not
        self.open = asyncio.Event()
        self.open.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def hole(self) -> None:
        self.open.clear()

    def heal(self) -> None:
        self.open.set()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await self.open.wait()
                data = await reader.read(65536)
                if not data:
                    break
                await self.open.wait()
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers += [writer, up_writer]
        for a, b in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pump(a, b))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        for w in self._writers:
            w.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()


async def test_a_black_holed_link_is_noticed_by_both_ends_and_heals(hub_factory: HubFactory, tmp_path: Path) -> None:
    hub: HubProcess = hub_factory(env=FAST)
    space = await make_workspace(hub, agents=1)
    paired = space.agents[0]
    agent_id = paired["agentId"]
    proxy = BlackHoleProxy(hub.port)
    await proxy.start()
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    stop_ping = asyncio.Event()
    pinging = asyncio.create_task(_pinger(app, stop_ping))
    client = AgentClient(_credential(hub, paired, f"http://127.0.0.1:{proxy.port}"),
                         state_path=tmp_path / "agent.state", backoff_initial_s=0.2, backoff_max_s=1.0)
    try:
        await client.start(timeout_s=15)
        await app.event("agent.status_changed", timeout=10, agentId=agent_id, status="online")
        await asyncio.sleep(1.5 * INTERVAL)  # the scenario: the link carries a beat or two before the partition
        mark = len(app.frames)
        sessions_before = client.connections

        proxy.hole()
        holed_at = time.monotonic()
        offline = await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence") is not None
                                     and f["payload"]["agentId"] == agent_id and f["payload"]["status"] == "offline",
                                     timeout=10, start=mark)
        assert 2.0 * INTERVAL <= _silence(offline) <= 2.4 * INTERVAL, f"offline after {_silence(offline):.2f} s"
        assert time.monotonic() - holed_at >= 1.0 * INTERVAL
        # The SDK drops a link silent for three intervals (every ping is answered, so silence means a dead link).
        while client.connected:
            assert time.monotonic() - holed_at < 5.0 * INTERVAL, "the SDK kept a dead link"
            await asyncio.sleep(0.05)
        sdk_silence = asyncio.get_running_loop().time() - client._last_heard
        assert 3.0 * INTERVAL <= sdk_silence <= 4.3 * INTERVAL, f"the SDK dropped after {sdk_silence:.2f} s of silence"
        pending = client.send_nowait("message.create", {"content": "sent during the partition"},
                                      conversationId=space.conversation_id)
        answered_at: list[float] = []
        pending.add_done_callback(lambda _: answered_at.append(time.monotonic()))
        tried = proxy.accepted
        await eventually(lambda: proxy.accepted > tried, timeout=30, what="the SDK trying again through the hole")
        assert not pending.done(), "acked through a black hole"

        proxy.heal()
        healed_at = time.monotonic()
        await client.wait_connected(15)
        ack = await asyncio.wait_for(pending, 10)
        # Answered only once the partition healed: the whole time it held, nothing came back through the hole.
        assert answered_at and answered_at[0] >= healed_at, "acked through a black hole"
        reconnect_s = time.monotonic() - healed_at
        assert client.connections > sessions_before
        assert reconnect_s <= 12, f"reconnected {reconnect_s:.1f} s after the heal"
        await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence") is not None
                           and f["payload"]["agentId"] == agent_id and f["payload"]["status"] == "online",
                           timeout=10, start=mark)
        stored = [r for r in log_rows(space.db_path) if r["payload"].get("content") == "sent during the partition"]
        assert len(stored) == 1 and stored[0]["sequence"] == ack["sequence"], "stored once, as acked"
    finally:
        await client.close()
        stop_ping.set()
        await pinging
        await app.close()
        await proxy.close()
    hub.stop()
    assert_db_check(hub.data_dir)


# ---- 3. a SIGSTOPped hub ------------------------------------------------------------------------------

# 5 s in the suite; the long form (`python -m bench.hub_stop`, docs/quality.md#reliability-drills: 30 s) sets this
# variable and reads the recovery figures from the file named by LINEUP_DRILL_REPORT.
HUB_STOP_S = float(os.environ.get("LINEUP_DRILL_HUB_STOP_S", "5"))


async def test_a_stopped_hub_resumes_without_an_offline_storm_or_a_gap(hub_factory: HubFactory, tmp_path: Path) -> None:
    hub: HubProcess = hub_factory(env=FAST, process=True)  # SIGSTOP needs a process
    space = await make_workspace(hub, agents=3)
    raw_ids = [p["agentId"] for p in space.agents[:2]]
    sdk_paired = space.agents[2]
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    raw = [await LapClient.connect(hub.ws_base, "agent", p["credential"]) for p in space.agents[:2]]
    stop_ping = asyncio.Event()
    pingers = [asyncio.create_task(_pinger(c, stop_ping)) for c in (app, *raw)]
    sdk = AgentClient(_credential(hub, sdk_paired), state_path=tmp_path / "sdk.state",
                      backoff_initial_s=0.2, backoff_max_s=1.0)
    assert hub.proc is not None
    try:
        await sdk.start(timeout_s=15)
        for agent_id in [*raw_ids, sdk_paired["agentId"]]:
            await app.event("agent.status_changed", timeout=10, agentId=agent_id, status="online")
        await _post(app, space, 10, "before")
        mark = len(app.frames)

        hub.proc.send_signal(signal.SIGSTOP)
        try:
            # Work queued in the kernel while the hub sleeps: an agent's messages and the heartbeats.
            during = [await raw[0].send("message.create", {"content": f"during {i}"},
                                        conversationId=space.conversation_id) for i in range(5)]
            await asyncio.sleep(HUB_STOP_S)
        finally:
            hub.proc.send_signal(signal.SIGCONT)
        continued = time.monotonic()
        await wait_acks(raw[0], during, timeout=15)
        acked_after_s = time.monotonic() - continued
        await sdk.wait_connected(15)
        sdk_back_after_s = time.monotonic() - continued
        await _post(app, space, 10, "after")
        await asyncio.sleep(3 * INTERVAL)  # the scenario: three intervals in which a misfiring presence tick would act
        await _all_stored_so_far_arrived(app, space)

        for agent_id in raw_ids:  # they kept their sockets and kept beating: no offline
            flips = [f["payload"] for f in _status_events(app, agent_id, mark)]
            assert not flips, f"false offline for an agent that kept its socket: {flips}"
        assert all(not c.closed.is_set() for c in raw), "the hub dropped a beating agent"
        sdk_flips = [f["payload"]["status"] for f in _status_events(app, sdk_paired["agentId"], mark)]
        assert sdk_flips in ([], ["offline", "online"]), sdk_flips  # dropped by its own 3-interval rule: back
        assert sdk.connected

        # The app kept its socket: every event of the log after its caught_up, once, in order.
        assert not app.closed.is_set(), "the hub dropped a beating app"
        caught = next(f for f in app.frames if f["type"] == "system.caught_up")["payload"]["sequence"]
        got = [f["sequence"] for f in stored_frames(app.frames)]
        head = [r["sequence"] for r in log_rows(space.db_path) if r["sequence"] > caught]
        assert got == sorted(set(got)), "gap or duplicate order problem"
        assert [s for s in got if s > caught] == head, "the app missed or repeated an event"
        if os.environ.get("LINEUP_DRILL_REPORT"):
            Path(os.environ["LINEUP_DRILL_REPORT"]).write_text(json.dumps({
                "stoppedS": HUB_STOP_S, "queuedMessagesAckedAfterS": round(acked_after_s, 3),
                "sdkConnectedAfterS": round(sdk_back_after_s, 3), "sdkStatusFlips": sdk_flips,
                "falseOfflineForBeatingAgents": 0, "appEventsChecked": len(got)}))
    finally:
        if hub.proc.poll() is None:
            hub.proc.send_signal(signal.SIGCONT)
        await sdk.close()
        stop_ping.set()
        await asyncio.gather(*pingers)
        for c in (app, *raw):
            await c.close()
    hub.stop()
    assert_db_check(hub.data_dir)


# ---- 4. wall-clock jumps ------------------------------------------------------------------------------

@pytest.mark.skipif(not LIBFAKETIME.exists() or shutil.which("faketime") is None,
                    reason="libfaketime is not installed (apt-get install faketime)")
async def test_wall_clock_jumps_do_not_make_agents_look_silent(hub_factory: HubFactory, tmp_path: Path) -> None:
    clock = tmp_path / "faketime.rc"
    clock.write_text("+0\n")
    hub: HubProcess = hub_factory(env={
        **FAST, "LINEUP_GRACE_PERIOD_S": "2",
        "LD_PRELOAD": str(LIBFAKETIME), "FAKETIME_TIMESTAMP_FILE": str(clock), "FAKETIME_NO_CACHE": "1",
        # a real clock step (NTP, suspend of another process, an admin) leaves CLOCK_MONOTONIC alone
        "FAKETIME_DONT_FAKE_MONOTONIC": "1"}, process=True)  # LD_PRELOAD needs a process of its own
    space = await make_workspace(hub, agents=1)
    agent_id = space.agents[0]["agentId"]
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    stop_ping = asyncio.Event()
    pingers = [asyncio.create_task(_pinger(c, stop_ping)) for c in (app, agent)]
    try:
        await app.ok("task.create", {"title": "Across the jump", "targetAgentId": agent_id},
                     conversationId=space.conversation_id, taskId="t-jump")
        await agent.event("task.assigned", taskId="t-jump")
        await agent.ok("task.accepted", {}, taskId="t-jump")
        await agent.ok("task.status_changed", {"status": "running"}, taskId="t-jump")
        mark = len(app.frames)
        before = time.time()

        clock.write_text("+3600\n")  # an hour forward
        await asyncio.sleep(3 * INTERVAL)  # the scenario: presence runs three intervals on the jumped clock
        ack = await agent.ok("message.create", {"content": "after the jump"}, conversationId=space.conversation_id)
        recorded = _recorded_at(space.db_path, ack["sequence"])  # the hub's own wall stamp: the jump reached it
        assert _parse_iso(recorded) - before > 3000, f"the hub's clock did not jump: {recorded}"
        clock.write_text("+0\n")     # and an hour back
        await asyncio.sleep(4 * INTERVAL)  # the scenario: more than two intervals and the grace period
        await _all_stored_so_far_arrived(app, space)

        flips = [f["payload"] for f in _status_events(app, agent_id, mark)]
        assert not flips, f"presence misfired on a wall-clock jump: {flips}"
        failed = [f for f in app.frames[mark:] if f.get("taskId") == "t-jump" and f["type"] == "task.status_changed"]
        assert not failed, f"the task changed state on a clock jump: {[f['payload'] for f in failed]}"
        assert not agent.closed.is_set()
    finally:
        stop_ping.set()
        await asyncio.gather(*pingers)
        await agent.close()
        await app.close()
    hub.stop()
    assert_db_check(hub.data_dir)
