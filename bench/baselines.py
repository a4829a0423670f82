"""The physical baselines: B_sqlite (raw batched inserts, 100 rows a commit) and an fsync latency probe."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.stats import summarize_ns
from bench.targets import WORK_ROOT

ROW_PAYLOAD = ('{"content":"' + "x" * 250 + '","bench":{"t":1,"a":1,"n":1}}')  # ≈300 bytes, like the load


def fsync_probe(count: int = 300, size: int = 4096, max_s: float = 10.0) -> dict[str, Any]:
    """Append `size` bytes and fsync, `count` times (bounded by `max_s`): the floor under every durable commit."""
    WORK_ROOT.mkdir(parents=True, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix="fsync-", dir=WORK_ROOT)
    samples, fdatasync = [], []
    block = os.urandom(size)
    deadline = time.monotonic() + max_s
    try:
        for i in range(count):
            if time.monotonic() > deadline:
                break
            os.write(fd, block)
            t0 = time.monotonic_ns()
            if i % 2:
                os.fdatasync(fd)
                fdatasync.append(time.monotonic_ns() - t0)
            else:
                os.fsync(fd)
                samples.append(time.monotonic_ns() - t0)
    finally:
        os.close(fd)
        os.unlink(path)
    return {"fsync": summarize_ns(samples), "fdatasync": summarize_ns(fdatasync)}


def sqlite_baseline(rows: int = 100_000, batch: int = 100, synchronous: str = "FULL",
                    max_s: float = 10.0) -> dict[str, Any]:
    """B_sqlite: insert ≈300-byte rows into an events-like table in WAL mode, `batch` rows a commit."""
    WORK_ROOT.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix="bsqlite-", dir=WORK_ROOT))
    conn = sqlite3.connect(str(directory / "b.db"), isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("CREATE TABLE events (sequence INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
                     "type TEXT NOT NULL, workspace_id TEXT, payload TEXT NOT NULL)")
        conn.execute("CREATE INDEX events_by_workspace ON events (workspace_id, sequence)")
        commits = []
        seq = 0
        started = time.monotonic()
        deadline = started + max_s
        while seq < rows and time.monotonic() < deadline:
            t0 = time.monotonic_ns()
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO events VALUES (?,?,?,?,?)",
                             [(seq + k + 1, f"evt-{seq + k + 1}", "message.created", "ws", ROW_PAYLOAD)
                              for k in range(batch)])
            conn.execute("COMMIT")
            commits.append(time.monotonic_ns() - t0)
            seq += batch
        elapsed = time.monotonic() - started
    finally:
        conn.close()
        for child in directory.iterdir():
            child.unlink()
        directory.rmdir()
    return {"rows": seq, "seconds": round(elapsed, 3), "rowsPerS": round(seq / elapsed, 1), "batch": batch,
            "synchronous": synchronous, "commit": summarize_ns(commits)}


def run_baselines() -> dict[str, Any]:
    return {"fsync": fsync_probe(), "sqlite": sqlite_baseline()}


if __name__ == "__main__":
    import json
    print(json.dumps(run_baselines(), indent=2))
