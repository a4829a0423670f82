"""R1: catch-up after reconnect. Fill the log through agent sockets, then time an app from hello to caught_up.

Run: python -m bench.catchup [--sizes 10000,100000] [--repeats 3]
Each measurement checks that the replay is exactly the workspace's events after the cursor: no gap, no dup.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import time
from array import array
from typing import Any

from bench.ipc import Child
from bench.lap import decode_any, envelope, split_url
from bench.report import Recorder, table
from bench.targets import HubTarget
from bench.wsclient import WsClient

TARGETS_S = {10_000: 0.5, 100_000: 5.0}


async def catch_up(url: str, token: str, last_sequence: int, timeout_s: float = 60.0) -> dict[str, Any]:
    """Connect an app with lastSequence; return seconds until system.caught_up and the sequences replayed."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()
    seqs = array("q")

    def on_text(data: bytes) -> None:
        frame = decode_any(data)
        if frame.sequence is not None:
            seqs.append(frame.sequence)
        elif frame.type == "system.caught_up" and not done.done():
            done.set_result(int(frame.payload["sequence"]))
        elif frame.type in ("system.error", "system.resync_required") and not done.done():
            done.set_exception(RuntimeError(f"{frame.type}: {frame.payload}"))

    host, port = split_url(url)
    t0 = time.monotonic()
    client = await WsClient.connect(host, port, "/ws/app", on_text)
    client.send_text(envelope("app.hello", {"token": token, "lastSequence": last_sequence}))
    caught_up = await asyncio.wait_for(done, timeout_s)
    elapsed = time.monotonic() - t0
    await client.close()
    return {"seconds": elapsed, "caughtUp": caught_up, "seqs": seqs}


def expected_sequences(target: HubTarget, workspace_id: str, after: int, upto: int) -> list[int]:
    conn = sqlite3.connect(f"file:{target.db_path}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT sequence FROM events WHERE workspace_id = ? AND sequence > ? "
                                           "AND sequence <= ? ORDER BY sequence", (workspace_id, after, upto))]
    finally:
        conn.close()


def measure(target: HubTarget, workspace_id: str, last_sequence: int, repeats: int, label: str,
            limit_s: float | None) -> dict[str, Any]:
    times, problems, count = [], [], 0
    for _ in range(repeats):
        r = asyncio.run(catch_up(target.ws_url, target.app_token(), last_sequence))
        got = list(r["seqs"])
        want = expected_sequences(target, workspace_id, last_sequence, r["caughtUp"])
        count = len(got)
        if got != want:
            dups = len(got) - len(set(got))
            missing = len(set(want) - set(got))
            problems.append(f"replay differs: {len(got)} got, {len(want)} expected, {dups} dups, {missing} missing")
        times.append(r["seconds"])
    median = statistics.median(times)
    ok = not problems and (limit_s is None or median <= limit_s)
    return {"case": label, "lastSequence": last_sequence, "events": count, "medianS": round(median, 3),
            "allS": [round(t, 3) for t in times], "rate": round(count / median) if median else None,
            "limitS": limit_s, "problems": problems, "result": "pass" if ok else "MISS"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.catchup", description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    rec = Recorder("catchup")
    target = HubTarget()
    agents = None
    rows = []
    try:
        target.start()
        fixture = target.prepare(4).as_dict()
        agents = Child("bench.agents")
        agents.call({"cmd": "connect", "fixture": fixture}, timeout_s=60)
        written = 0
        for size in sizes:
            fill = agents.call({"cmd": "fill", "count": size - written, "window": 250, "timeoutS": 900},
                               timeout_s=960)
            written += fill["acked"]
            print(f"filled {fill['acked']} events at {fill['rate']} ev/s (total {written})", flush=True)
            if fill["acked"] != fill["sent"]:
                print(f"  warning: {fill['sent'] - fill['acked']} not acked: {fill['errors']}", flush=True)
            rows.append(measure(target, fixture["workspaceId"], 0, args.repeats, f"{size // 1000}k from 0",
                                TARGETS_S.get(size)))
            print(json.dumps(rows[-1]), flush=True)
        head = expected_sequences(target, fixture["workspaceId"], 0, 1 << 62)[-1]
        rows.append(measure(target, fixture["workspaceId"], head - 10_000, args.repeats, f"head-10k of {written // 1000}k",
                            TARGETS_S[10_000]))
        print(json.dumps(rows[-1]), flush=True)
    finally:
        if agents is not None:
            agents.close()
        target.stop()
        target.cleanup()
    for row in rows:
        rec.write("catchup", row)
    print(table(rows, (("case", "case"), ("events", "events"), ("median s", "medianS"), ("runs", "allS"),
                       ("ev/s", "rate"), ("limit s", "limitS"), ("result", "result"), ("problems", "problems"))))
    return 0 if all(r["result"] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
