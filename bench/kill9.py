"""R3: `kill -9` of the hub mid-stream, ≥ 20 random runs, each checked for lost, duplicate and missing rows.

Run: python -m bench.kill9 [--runs 20]
Per run: agents stream message.create without waiting for acks; SIGKILL at a random moment; restart and time
spawn → health 200; every acked id must be stored once with its acked sequence; the log must be gap-free;
`python -m hub db check` must pass; re-sending the unacked frames (byte for byte) and some acked ones must be
answered without a second row (R4 across a restart).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import time
from typing import Any

from bench.lap import Handshake, decode_ack, encode, now_iso
from bench.report import Recorder, table
from bench.targets import HubTarget

ACCEPT_LIMIT_S = 1.0


class Streamer:
    """The agents of one run: send as fast as the window allows, record every answer."""

    def __init__(self, fixture: dict[str, Any], run: int, window: int) -> None:
        self.fixture = fixture
        self.run = run
        self.window = window
        self.frames: dict[str, bytes] = {}          # id -> the exact frame sent
        self.acked: dict[str, int] = {}             # id -> acked sequence
        self.duplicates: dict[str, int] = {}        # id -> sequence of a duplicate ack
        self.errors: dict[str, str] = {}
        self.pending: set[str] = set()

    def on_frame(self, data: bytes) -> None:
        frame = decode_ack(data)
        env_id = frame.payload.id or ""
        if frame.type == "system.ack" and env_id in self.frames:
            self.pending.discard(env_id)
            target = self.duplicates if frame.payload.duplicate else self.acked
            target[env_id] = frame.payload.sequence or 0
        elif frame.type == "system.error" and env_id in self.frames:
            self.pending.discard(env_id)
            self.errors[env_id] = frame.payload.code or "?"

    async def connect(self) -> list[Any]:
        clients = []
        for spec in self.fixture["agents"]:
            hs = Handshake(self.on_frame)
            clients.append((await hs.open(self.fixture["url"], "agent", spec["credential"]), spec))
        return clients

    def frame(self, index: int, n: int, conversation_id: str) -> tuple[str, bytes]:
        env_id = f"k{self.run:03d}-{index}-{n}"
        return env_id, encode({"id": env_id, "type": "message.create", "version": "0.1", "occurredAt": now_iso(),
                               "workspaceId": self.fixture["workspaceId"], "conversationId": conversation_id,
                               "payload": {"content": f"kill9 run {self.run} agent {index} #{n}",
                                           "bench": {"t": time.monotonic_ns(), "a": index, "n": n, "p": "k"}}})

    async def stream_until_killed(self, target: HubTarget, kill_after_s: float) -> float:
        clients = await self.connect()
        counters = [0] * len(clients)
        killed_at = asyncio.get_running_loop().time() + kill_after_s
        while asyncio.get_running_loop().time() < killed_at:
            for i, (client, spec) in enumerate(clients):
                while len(self.pending) < self.window * len(clients) and client.is_open:
                    env_id, frame = self.frame(i, counters[i], spec["conversationId"])
                    counters[i] += 1
                    self.frames[env_id] = frame
                    self.pending.add(env_id)
                    client.send_text(frame)
                    if counters[i] % 50 == 0:
                        break
            await asyncio.sleep(0)
        t_kill = time.monotonic()
        target.kill()  # SIGKILL, then reap
        # Acks already in our socket buffers were sent after their commit: read them before counting.
        deadline = time.monotonic() + 3.0
        while any(c.is_open for c, _ in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for c, _ in clients:
            c.abort()
        return t_kill

    async def resend(self, ids: list[str]) -> None:
        """After the restart: send these frames again, byte for byte, and wait for every answer."""
        clients = await self.connect()
        by_agent: dict[str, Any] = {spec["conversationId"]: c for c, spec in clients}
        convs = {i: spec["conversationId"] for i, (_, spec) in enumerate(clients)}
        for env_id in ids:
            self.pending.add(env_id)
            agent_index = int(env_id.split("-")[1])
            by_agent[convs[agent_index]].send_text(self.frames[env_id])
        deadline = time.monotonic() + 20.0
        while self.pending & set(ids) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for c, _ in clients:
            await c.close()


def stored_rows(target: HubTarget, run: int) -> dict[str, list[int]]:
    conn = sqlite3.connect(f"file:{target.db_path}?mode=ro", uri=True)
    try:
        rows: dict[str, list[int]] = {}
        for env_id, seq in conn.execute("SELECT id, sequence FROM events WHERE id LIKE ?", (f"k{run:03d}-%",)):
            rows.setdefault(env_id, []).append(seq)
        return rows
    finally:
        conn.close()


def log_shape(target: HubTarget) -> tuple[int, int, int]:
    conn = sqlite3.connect(f"file:{target.db_path}?mode=ro", uri=True)
    try:
        count, low, high = conn.execute("SELECT COUNT(*), COALESCE(MIN(sequence), 1), COALESCE(MAX(sequence), 0) "
                                        "FROM events").fetchone()
        bench_dups = conn.execute(
            "SELECT COUNT(*) FROM (SELECT json_extract(payload, '$.bench.a') a, json_extract(payload, '$.bench.n') n, "
            "json_extract(payload, '$.content') c FROM events WHERE type = 'message.created' "
            "AND json_extract(payload, '$.bench.p') = 'k' GROUP BY c HAVING COUNT(*) > 1)").fetchone()[0]
        return int(count), int(high) - int(low) + 1 - int(count), int(bench_dups)
    finally:
        conn.close()


def one_run(target: HubTarget, fixture: dict[str, Any], run: int, rng: random.Random, window: int) -> dict[str, Any]:
    streamer = Streamer(fixture, run, window)
    kill_after = rng.uniform(0.2, 2.0)
    asyncio.run(streamer.stream_until_killed(target, kill_after))
    acked_before = dict(streamer.acked)
    target.start()
    accept_s = target.spawn_to_healthy_s or 0.0
    stored = stored_rows(target, run)
    lost = [i for i in acked_before if i not in stored]
    wrong_seq = [i for i, s in acked_before.items() if i in stored and stored[i] != [s]]
    dup_rows = [i for i, seqs in stored.items() if len(seqs) > 1]
    unacked = [i for i in streamer.frames if i not in acked_before and i not in streamer.errors]
    stored_unacked = sum(1 for i in unacked if i in stored)
    # R4 across a restart: the unacked frames and a sample of acked ones, byte for byte.
    sample = rng.sample(sorted(acked_before), min(50, len(acked_before)))
    asyncio.run(streamer.resend(unacked + sample))
    resend_unanswered = [i for i in unacked + sample if i not in streamer.acked and i not in streamer.duplicates]
    dup_mismatch = [i for i in sample if streamer.duplicates.get(i) != acked_before[i]]
    stored_after = stored_rows(target, run)
    missing_after = [i for i in streamer.frames if i not in stored_after and i not in streamer.errors]
    count, holes, bench_dups = log_shape(target)
    check = target.cli("db", "check", check=False)
    problems = []
    for name, items in (("lost acked", lost), ("acked seq differs", wrong_seq), ("duplicate rows", dup_rows),
                        ("resend unanswered", resend_unanswered), ("duplicate ack seq differs", dup_mismatch),
                        ("not stored after resend", missing_after)):
        if items:
            problems.append(f"{name}: {len(items)} e.g. {items[:3]}")
    if holes:
        problems.append(f"{holes} holes in the sequence")
    if bench_dups:
        problems.append(f"{bench_dups} messages stored twice")
    if check.returncode != 0:
        problems.append(f"db check exit {check.returncode}: {check.stderr.strip()[:300]}")
    if accept_s > ACCEPT_LIMIT_S:
        problems.append(f"accepting after {accept_s:.3f} s > {ACCEPT_LIMIT_S} s")
    return {"run": run, "killAfterS": round(kill_after, 3), "sent": len(streamer.frames), "acked": len(acked_before),
            "storedUnacked": stored_unacked, "inFlightAtKill": len(unacked), "lost": len(lost),
            "dupRows": len(dup_rows) + bench_dups, "holes": holes, "events": count,
            "dbCheck": check.returncode, "acceptS": round(accept_s, 3), "problems": problems,
            "result": "pass" if not problems else "FAIL"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.kill9", description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--window", type=int, default=400, help="unacknowledged envelopes per agent")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    rec = Recorder("kill9")
    target = HubTarget()
    rows = []
    try:
        target.start()
        fixture = target.prepare(args.agents).as_dict()
        for run in range(args.runs):
            row = one_run(target, fixture, run, rng, args.window)
            rows.append(row)
            rec.write("kill9", row | {"seed": seed})
            print(json.dumps(row), flush=True)
    finally:
        target.stop()
        target.cleanup()
    print(table(rows, (("run", "run"), ("kill s", "killAfterS"), ("sent", "sent"), ("acked", "acked"),
                       ("stored unacked", "storedUnacked"), ("lost", "lost"), ("dup rows", "dupRows"),
                       ("holes", "holes"), ("db check", "dbCheck"), ("accept s", "acceptS"), ("result", "result"))))
    accepts = [r["acceptS"] for r in rows]
    summary = {"runs": len(rows), "seed": seed, "failed": sum(r["result"] != "pass" for r in rows),
               "acked": sum(r["acked"] for r in rows), "lost": sum(r["lost"] for r in rows),
               "dupRows": sum(r["dupRows"] for r in rows), "holes": sum(r["holes"] for r in rows),
               "acceptMedianS": round(statistics.median(accepts), 3) if accepts else None,
               "acceptMaxS": max(accepts, default=None)}
    rec.write("summary", summary)
    print(json.dumps(summary))
    return 0 if summary["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
