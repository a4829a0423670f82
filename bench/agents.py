"""The agents process: N agent sockets sending message.create on an open-loop schedule, recording acks.

Commands (JSON lines, see bench/ipc.py): connect {fixture, n}; run {startNs, rate, warmupS, runS, drainS};
fill {count, window} (as fast as acks allow, for catch-up data); exit.
"""

from __future__ import annotations

import asyncio
import os
import resource
import time
from array import array
from collections import Counter
from typing import Any

from bench.ipc import run_child
from bench.lap import CONTENT, Handshake, decode_ack, encode, now_iso
from bench.stats import summarize_ns
from bench.wsclient import WsClient

HARD_OVERRUN_S = 10.0     # stop sending this long after the schedule's end, however far behind
MIN_SLEEP_S = 0.001
YIELD_EVERY = 200         # sends between yields, so acks are read while catching up


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Agent:
    def __init__(self, pool: Agents, index: int, credential: str, conversation_id: str) -> None:
        self.pool = pool
        self.index = index
        self.credential = credential
        self.conversation_id = conversation_id
        self.client: WsClient | None = None
        self.counter = 0

    async def connect(self, url: str) -> None:
        hs = Handshake(self.pool.on_frame)
        self.client = await hs.open(url, "agent", self.credential)

    def send(self, intended_ns: int, phase: str) -> None:
        pool = self.pool
        n = self.counter
        self.counter += 1
        env_id = f"{pool.tag}{self.index}-{n}"
        frame = encode({"id": env_id, "type": "message.create", "version": "0.1", "occurredAt": pool.iso(),
                        "workspaceId": pool.workspace_id, "conversationId": self.conversation_id,
                        "payload": {"content": CONTENT, "bench": {"t": intended_ns, "a": self.index, "n": n,
                                                                  "p": phase}}})
        pool.pending[env_id] = (intended_ns, phase)
        assert self.client is not None
        self.client.send_text(frame)


class Agents:
    def __init__(self) -> None:
        self.agents: list[Agent] = []
        self.workspace_id = ""
        self.tag = os.urandom(3).hex()
        self.pending: dict[str, tuple[int, str]] = {}
        self.reset()
        self._iso_ms = -1
        self._iso = ""

    def reset(self) -> None:
        self.acked: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.duplicates = 0
        self.ack_ns = array("q")
        self.acked_ids: list[str] | None = None

    def iso(self) -> str:
        ms = time.time_ns() // 1_000_000
        if ms != self._iso_ms:
            self._iso_ms, self._iso = ms, now_iso()
        return self._iso

    def on_frame(self, data: bytes) -> None:
        frame = decode_ack(data)
        if frame.type == "system.ack":
            entry = self.pending.pop(frame.payload.id or "", None)
            if entry is None:
                return
            self.acked[entry[1]] += 1
            if frame.payload.duplicate:
                self.duplicates += 1
            if entry[1] == "r":
                self.ack_ns.append(time.monotonic_ns() - entry[0])
        elif frame.type == "system.error" and self.pending.pop(frame.payload.id or "", None) is not None:
            self.errors[frame.payload.code or "?"] += 1

    # ---- commands ------------------------------------------------------------------------------------

    async def connect(self, cmd: dict[str, Any]) -> dict[str, Any]:
        fixture = cmd["fixture"]
        self.workspace_id = fixture["workspaceId"]
        specs = fixture["agents"][: cmd.get("n", len(fixture["agents"]))]
        self.agents = [Agent(self, i, s["credential"], s["conversationId"]) for i, s in enumerate(specs)]
        await asyncio.gather(*(a.connect(fixture["url"]) for a in self.agents))
        return {"connected": len(self.agents)}

    async def run(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Event j goes to agent j % N at start + j / (N * rate): evenly interleaved, open loop."""
        self.reset()
        n_agents = len(self.agents)
        total_rate = cmd["rate"] * n_agents
        start, warm_s, run_s = cmd["startNs"], cmd["warmupS"], cmd["runS"]
        run_from = start + int(warm_s * 1e9)
        total = int(round((warm_s + run_s) * total_rate))
        hard_stop = start + int((warm_s + run_s + HARD_OVERRUN_S) * 1e9)
        sent: Counter[str] = Counter()
        lag = array("q")
        max_buffer = 0
        j = 0
        while time.monotonic_ns() < start:
            await asyncio.sleep(max(0.0, (start - time.monotonic_ns()) / 1e9))
        cpu0, wall0 = cpu_s(), time.monotonic()
        while j < total:
            now = time.monotonic_ns()
            due = start + int(j * 1e9 / total_rate)
            if due > now:
                # Never below the loop's 1 ms timer resolution: shorter sleeps become a busy spin that takes
                # a core from the hub on a 2-core machine. Events due within that millisecond go out together.
                await asyncio.sleep(max(MIN_SLEEP_S, (due - now) / 1e9))
                continue
            if now > hard_stop:
                break
            burst = 0
            while j < total and burst < YIELD_EVERY:
                due = start + int(j * 1e9 / total_rate)
                if due > now:
                    break
                phase = "r" if due >= run_from else "w"
                self.agents[j % n_agents].send(due, phase)
                sent[phase] += 1
                if phase == "r":
                    lag.append(now - due)
                j += 1
                burst += 1
            if burst == YIELD_EVERY:
                max_buffer = max(max_buffer, *(a.client.write_buffer for a in self.agents if a.client))
                await asyncio.sleep(0)
        send_wall = time.monotonic() - wall0
        drain_until = time.monotonic() + cmd.get("drainS", 10.0)
        while self.pending and time.monotonic() < drain_until:
            await asyncio.sleep(0.01)
        return {"sent": sent["r"], "sentWarmup": sent["w"], "unsent": total - j, "acked": self.acked["r"],
                "ackedWarmup": self.acked["w"], "errors": dict(self.errors), "duplicates": self.duplicates,
                "unacked": len(self.pending), "ack": summarize_ns(self.ack_ns), "sendLag": summarize_ns(lag),
                "maxWriteBuffer": max_buffer, "offeredRate": total_rate, "sendWallS": round(send_wall, 3),
                "cpuS": round(cpu_s() - cpu0, 3),
                "closed": sum(1 for a in self.agents if a.client is None or not a.client.is_open)}

    async def fill(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Send `count` events as fast as the hub acks them, at most `window` unacknowledged per agent."""
        self.reset()
        count, window = cmd["count"], cmd.get("window", 500) * len(self.agents)
        started = time.monotonic()
        deadline = started + cmd.get("timeoutS", 600.0)
        j = 0
        while (j < count or self.pending) and time.monotonic() < deadline:
            burst = 0
            while j < count and len(self.pending) < window and burst < YIELD_EVERY:
                self.agents[j % len(self.agents)].send(time.monotonic_ns(), "r")
                j += 1
                burst += 1
            await asyncio.sleep(0 if burst else 0.001)
        elapsed = time.monotonic() - started
        return {"sent": j, "acked": self.acked["r"], "errors": dict(self.errors), "seconds": round(elapsed, 3),
                "rate": round(self.acked["r"] / elapsed, 1) if elapsed else None, "ack": summarize_ns(self.ack_ns)}

    async def exit(self, cmd: dict[str, Any]) -> None:
        await asyncio.gather(*(a.client.close() for a in self.agents if a.client), return_exceptions=True)


def main() -> None:
    def handlers() -> dict[str, Any]:
        agents = Agents()
        return {"connect": agents.connect, "run": agents.run, "fill": agents.fill, "exit": agents.exit}
    run_child(handlers)


if __name__ == "__main__":
    main()
