"""M2 / H1-H2 long form: the soak — typical load plus 10 reconnects a minute, sampled every minute.

Run: python -m bench.soak [--minutes 60] [--agents 10] [--rate 10] [--apps 10] [--reconnects-per-minute 10]

A real hub (`lineup serve`) on 127.0.0.1; one process drives `--agents` agent sockets at `--rate` ev/s each
(open loop, ~300-byte message.create carrying the send time) and `--apps` app sockets that check every event
arrives once and in order (the workspace log is dense: each app must see sequence last+1). Every minute
(`--sample-seconds`) it samples the hub's RSS, open FDs, WAL size and the e2e P50/P99 of that minute. Reconnects
alternate between an app (resumes with lastSequence: must get no gap and no duplicate) and an agent (closed
socket: offline then online; its unacked frames are re-sent with the same ids; only a `heartbeat_timeout`
offline would be a false one). At the end: RSS drift
after warm-up (target ≤ 10 %), FDs against the first sample, WAL max (bounded), loss/dup/gap counts, and
`python -m hub db check`. Bounded by --minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import psutil
import websockets

from bench.targets import HubTarget

MARK = re.compile(r"soak\|(\d+)\|")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def envelope(type_: str, payload: dict[str, Any], **fields: Any) -> str:
    env = {"id": str(uuid.uuid4()), "type": type_, "version": "0.1", "occurredAt": now_iso(), "payload": payload}
    env.update({k: v for k, v in fields.items() if v is not None})
    return json.dumps(env)


class Stats:
    def __init__(self) -> None:
        self.latencies_ms: list[float] = []
        self.sent = self.acked = self.errors = 0
        self.received = self.duplicates = self.gaps = self.out_of_order = 0
        self.false_offline = self.offline = 0
        self.reconnects = {"app": 0, "agent": 0}
        self.pending: set[str] = set()


class Peer:
    def __init__(self, url: str, kind: str, secret: str, stats: Stats, spec: dict[str, Any] | None = None) -> None:
        self.url, self.kind, self.secret, self.stats, self.spec = url, kind, secret, stats, spec or {}
        self.ws: Any = None
        self.last_sequence = 0
        self.epoch: str | None = None
        self.ready = asyncio.Event()
        self.interval_s = 25.0
        self.tasks: list[asyncio.Task[None]] = []
        self.outstanding: dict[str, str] = {}  # an agent's unacked frames: re-sent (same ids) after a reconnect

    async def open(self) -> None:
        self.ready.clear()
        self.ws = await websockets.connect(self.url + ("/ws/agent" if self.kind == "agent" else "/ws/app"),
                                           max_size=None, compression=None, ping_interval=None)
        hello: dict[str, Any] = {"credential": self.secret, "runtime": "soak", "agentVersion": "1"} \
            if self.kind == "agent" else {"token": self.secret}
        if self.last_sequence:
            hello.update(lastSequence=self.last_sequence, epoch=self.epoch)
        await self.ws.send(envelope(f"{self.kind}.hello", hello))
        self.tasks = [asyncio.create_task(self._read(self.ws)), asyncio.create_task(self._beat(self.ws))]
        await asyncio.wait_for(self.ready.wait(), 30)
        for raw in list(self.outstanding.values()):  # the hub stores each id once: a re-send is harmless
            await self.ws.send(raw)

    async def close(self) -> None:
        ws, self.ws = self.ws, None
        self.ready.clear()
        if ws is not None:
            await ws.close()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _beat(self, ws: Any) -> None:
        while True:
            await asyncio.sleep(self.interval_s * random.uniform(0.3, 1.0))
            try:
                await ws.send(envelope("system.ping", {}))
            except websockets.ConnectionClosed:
                return

    async def _read(self, ws: Any) -> None:
        s = self.stats
        try:
            async for raw in ws:
                frame = json.loads(raw)
                type_, seq = frame["type"], frame.get("sequence")
                if type_ == "system.welcome":
                    self.interval_s = frame["payload"]["heartbeatIntervalMs"] / 1000
                    self.epoch = frame["payload"]["epoch"]
                elif type_ == "system.caught_up":
                    self.ready.set()
                elif type_ == "system.ack":
                    self.outstanding.pop(frame["payload"].get("id"), None)
                    if frame["payload"].get("id") in s.pending:
                        s.pending.discard(frame["payload"]["id"])
                        s.acked += 1
                elif type_ == "system.error":
                    s.errors += 1
                if seq is None:
                    continue
                if self.kind == "app":
                    if seq <= self.last_sequence:
                        s.duplicates += 1
                        continue
                    if self.last_sequence and seq != self.last_sequence + 1:
                        s.gaps += seq - self.last_sequence - 1
                    self.last_sequence = seq
                    if self.ready.is_set():
                        s.received += 1
                        m = MARK.search(raw)
                        if m:
                            s.latencies_ms.append((time.monotonic_ns() - int(m.group(1))) / 1e6)
                    if type_ == "agent.status_changed" and frame["payload"]["status"] == "offline":
                        s.offline += 1
                        if frame["payload"].get("reason") == "heartbeat_timeout":
                            s.false_offline += 1
                else:
                    self.last_sequence = max(self.last_sequence, seq)
        except websockets.ConnectionClosed:
            pass


async def drive(agent: Peer, rate: float, stop_at: float) -> None:
    """Open loop: event n is due at start + n / rate; skipped-ahead while the agent reconnects."""
    n = 0
    start = time.monotonic()
    filler = "x" * 200
    while time.monotonic() < stop_at:
        due = start + n / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        n += 1
        if agent.ws is None or not agent.ready.is_set():
            continue
        env_id = str(uuid.uuid4())
        raw = json.dumps({"id": env_id, "type": "message.create", "version": "0.1", "occurredAt": now_iso(),
                          "workspaceId": agent.spec["workspaceId"], "conversationId": agent.spec["conversationId"],
                          "payload": {"content": f"soak|{time.monotonic_ns()}| {filler}"}})
        agent.stats.pending.add(env_id)
        agent.outstanding[env_id] = raw
        agent.stats.sent += 1
        with contextlib.suppress(websockets.ConnectionClosed, AttributeError):
            await agent.ws.send(raw)


def wal_bytes(target: HubTarget) -> int:
    wal = target.db_path.with_name(target.db_path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


async def soak(target: HubTarget, fixture: Any, args: argparse.Namespace) -> tuple[list[dict[str, Any]], Stats]:
    stats = Stats()
    agents = [Peer(target.ws_url, "agent", a["credential"], stats,
                   {**a, "workspaceId": fixture.workspace_id}) for a in fixture.agents]
    apps = [Peer(target.ws_url, "app", fixture.token, stats) for _ in range(args.apps)]
    for p in agents + apps:
        await p.open()
    proc = psutil.Process(target.pid)
    started = time.monotonic()
    stop_at = started + args.minutes * 60
    drivers = [asyncio.create_task(drive(a, args.rate, stop_at)) for a in agents]
    samples: list[dict[str, Any]] = []
    reconnect_every = 60.0 / args.reconnects_per_minute if args.reconnects_per_minute else None
    next_reconnect = started + (reconnect_every or 1e9)
    next_sample = started + args.sample_seconds
    turn = 0
    while time.monotonic() < stop_at:
        await asyncio.sleep(0.2)
        now = time.monotonic()
        if now >= next_reconnect:
            next_reconnect += reconnect_every or 1e9
            peer = random.choice(apps if turn % 2 == 0 else agents)
            turn += 1
            await peer.close()
            await asyncio.sleep(random.uniform(0.05, 0.5))
            await peer.open()
            stats.reconnects[peer.kind] += 1
        if now >= next_sample:
            next_sample += args.sample_seconds
            window, stats.latencies_ms = stats.latencies_ms, []
            window.sort()
            def pick(q):
                return (window[min(len(window) - 1, int(q * len(window)))] if window else float("nan"))
            samples.append({"minute": round((now - started) / 60, 2), "rss_mb": proc.memory_info().rss / 2**20,
                            "fds": proc.num_fds(), "wal_mb": wal_bytes(target) / 2**20, "events": len(window),
                            "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": window[-1] if window else float("nan")})
            s = samples[-1]
            print(f"  t={s['minute']:6.2f} min  rss {s['rss_mb']:7.1f} MB  fds {s['fds']:4d}  wal {s['wal_mb']:6.2f} MB  "
                  f"events {s['events']:6d}  e2e p50 {s['p50_ms']:6.2f} ms  p99 {s['p99_ms']:6.2f} ms", flush=True)
    await asyncio.gather(*drivers)
    await asyncio.sleep(2.0)  # drain
    for p in agents + apps:
        await p.close()
    await asyncio.sleep(1.0)
    samples.append({"minute": "end (closed)", "rss_mb": proc.memory_info().rss / 2**20, "fds": proc.num_fds(),
                    "wal_mb": wal_bytes(target) / 2**20})
    return samples, stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--rate", type=float, default=10.0, help="events a second per agent")
    parser.add_argument("--apps", type=int, default=10)
    parser.add_argument("--reconnects-per-minute", type=float, default=10.0)
    parser.add_argument("--sample-seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    random.seed(args.seed)

    target = HubTarget()
    target.start()
    try:
        print(f"soak: {args.agents} agents × {args.rate:g} ev/s, {args.apps} apps, "
              f"{args.reconnects_per_minute:g} reconnects/min, {args.minutes:g} min (hub pid {target.pid})", flush=True)
        fixture = target.prepare(args.agents)
        samples, stats = asyncio.run(soak(target, fixture, args))
        alive = target.proc is not None and target.proc.poll() is None
    finally:
        target.stop()
    log = target.log_path.read_text(errors="replace") if target.log_path and target.log_path.exists() else ""
    tracebacks = log.count("Traceback")
    check = target.cli("db", "check", check=False)

    timed = [s for s in samples if isinstance(s["minute"], float)]
    warm = timed[1:] if len(timed) > 2 else timed  # the first sample is the warm-up
    rss_base, rss_last = warm[0]["rss_mb"], warm[-1]["rss_mb"]
    rss_drift = (rss_last - rss_base) / rss_base * 100
    fd_base, fd_end = timed[0]["fds"], samples[-1]["fds"]
    wal_max = max(s["wal_mb"] for s in samples)
    p99s = [s["p99_ms"] for s in warm if s["events"]]
    lost = len(stats.pending)
    print(f"  RSS after warm-up {rss_base:.1f} → {rss_last:.1f} MB: drift {rss_drift:+.1f} % (target ≤ 10 %)")
    print(f"  FDs: first sample {fd_base}, after all clients closed {fd_end} (hub listening socket etc. only)")
    print(f"  WAL max {wal_max:.2f} MB; e2e P99 per minute {min(p99s, default=float('nan')):.2f}–"
          f"{max(p99s, default=float('nan')):.2f} ms (median {statistics.median(p99s) if p99s else float('nan'):.2f})")
    print(f"  sent {stats.sent}, acked {stats.acked}, unacked {lost}, errors {stats.errors}; app deliveries "
          f"{stats.received}, duplicates {stats.duplicates}, gaps {stats.gaps}")
    print(f"  reconnects {stats.reconnects}; offline events seen by apps {stats.offline}, of them heartbeat_timeout "
          f"{stats.false_offline}; hub tracebacks {tracebacks}; hub alive {alive}")
    print(f"  db check: rc {check.returncode} {check.stdout.strip().splitlines()[-1:] if check.stdout else ''}")
    fd_ok = fd_end <= fd_base  # with every client gone the hub holds no more descriptors than under load
    ok = (abs(rss_drift) <= 10 and fd_ok and stats.duplicates == 0 and stats.gaps == 0 and lost == 0
          and stats.errors == 0 and stats.false_offline == 0 and tracebacks == 0 and alive and check.returncode == 0)
    print("M2 soak:", "PASS" if ok else "FAIL")
    target.cleanup()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
