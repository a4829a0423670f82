"""The apps process: M app sockets recording receive − intended send time per event, gaps, duplicates, order.

Commands (JSON lines, see bench/ipc.py): connect {fixture, n, lastSequence?, replayToo?, batch?}; disconnect; drain {expected, timeoutS, quietS} (waits until
every app has the expected run-phase events, then reports and resets); exit.
"""

from __future__ import annotations

import asyncio
import resource
import time
from array import array
from typing import Any

from bench.ipc import run_child
from bench.lap import Handshake, decode_app
from bench.stats import summarize_ns
from bench.wsclient import WsClient


class App:
    def __init__(self, pool: Apps) -> None:
        self.pool = pool
        self.client: WsClient | None = None
        self.last_seq = 0
        self.reset()

    def reset(self) -> None:
        self.received = 0          # run-phase bench events, each counted once
        self.gaps = 0              # sequence numbers skipped over
        self.duplicates = 0        # a sequence at or below one already seen
        self.reordered = 0         # per-agent counter going backwards
        self.last_n: dict[int, int] = {}

    async def connect(self, url: str, token: str, last_sequence: int | None, replay_too: bool = False) -> float:
        """Open the socket; returns seconds from connect to caught_up. With `replay_too`, replayed events are
        checked and counted like live ones (the sequence must run on from `last_sequence` without a gap)."""
        started = time.monotonic()
        hs = Handshake(self.on_frame, replay_too=replay_too)
        if replay_too:
            self.last_seq = last_sequence or 0
        self.client = await hs.open(url, "app", token, last_sequence=last_sequence)
        if not replay_too:
            self.last_seq = hs.caught_up or 0
        return time.monotonic() - started

    def on_frame(self, data: bytes) -> None:
        now = time.monotonic_ns()
        frame = decode_app(data)
        seq = frame.sequence
        if seq is None:
            return
        if seq <= self.last_seq:
            self.duplicates += 1
            return
        if seq != self.last_seq + 1:
            self.gaps += seq - self.last_seq - 1
        self.last_seq = seq
        bench = frame.payload.bench
        if bench is None:
            return
        last = self.last_n.get(bench.a, -1)
        if bench.n <= last:
            self.reordered += 1
        self.last_n[bench.a] = bench.n
        if bench.p == "r":
            self.received += 1
            self.pool.e2e_ns.append(now - bench.t)


class Apps:
    def __init__(self) -> None:
        self.apps: list[App] = []
        self.e2e_ns = array("q")

    async def connect(self, cmd: dict[str, Any]) -> dict[str, Any]:
        fixture = cmd["fixture"]
        self.apps = [App(self) for _ in range(cmd["n"])]
        batch = cmd.get("batch", 50)  # connect in groups: a real crowd does not arrive in one instant either
        durations: list[float] = []
        for i in range(0, len(self.apps), batch):
            durations += await asyncio.gather(*(a.connect(fixture["url"], fixture["token"], cmd.get("lastSequence"),
                                                          cmd.get("replayToo", False))
                                                for a in self.apps[i:i + batch]))
        return {"connected": len(self.apps), "head": max((a.last_seq for a in self.apps), default=0),
                "catchUp": summarize_ns(int(d * 1e9) for d in durations)}

    async def disconnect(self, cmd: dict[str, Any]) -> dict[str, Any]:
        await asyncio.gather(*(a.client.close() for a in self.apps if a.client), return_exceptions=True)
        return {"closed": len(self.apps), "lastSequence": max((a.last_seq for a in self.apps), default=0)}

    async def drain(self, cmd: dict[str, Any]) -> dict[str, Any]:
        expected = cmd["expected"]
        deadline = time.monotonic() + cmd.get("timeoutS", 30.0)
        quiet_s = cmd.get("quietS", 5.0)
        last_total, last_change = -1, time.monotonic()
        while time.monotonic() < deadline:
            total = sum(a.received for a in self.apps)
            if all(a.received >= expected for a in self.apps):
                break
            if total != last_total:
                last_total, last_change = total, time.monotonic()
            elif time.monotonic() - last_change > quiet_s:
                break
            await asyncio.sleep(0.02)
        r = resource.getrusage(resource.RUSAGE_SELF)
        result = {
            "apps": len(self.apps), "expectedPerApp": expected,
            "delivered": sum(a.received for a in self.apps),
            "lost": sum(max(0, expected - a.received) for a in self.apps),
            "extra": sum(max(0, a.received - expected) for a in self.apps),
            "duplicates": sum(a.duplicates for a in self.apps),
            "gaps": sum(a.gaps for a in self.apps),
            "reordered": sum(a.reordered for a in self.apps),
            "closed": sum(1 for a in self.apps if a.client is None or not a.client.is_open),
            "closeCodes": sorted({a.client.close_code for a in self.apps if a.client and a.client.close_code}),
            "e2e": summarize_ns(self.e2e_ns),
            "cpuTotalS": round(r.ru_utime + r.ru_stime, 3),
        }
        self.e2e_ns = array("q")
        for a in self.apps:
            a.reset()
        return result

    async def exit(self, cmd: dict[str, Any]) -> None:
        await asyncio.gather(*(a.client.close() for a in self.apps if a.client), return_exceptions=True)


def main() -> None:
    def handlers() -> dict[str, Any]:
        apps = Apps()
        return {"connect": apps.connect, "disconnect": apps.disconnect, "drain": apps.drain, "exit": apps.exit}
    run_child(handlers)


if __name__ == "__main__":
    main()
