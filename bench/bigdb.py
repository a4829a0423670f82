"""A data folder with a million events, made fast, and what a big log costs: `db check`, `db verify`, the first start.

    python -m bench.bigdb fill DIR [--events 1000000]     # through the real Writer, in-process, 500 a transaction
    python -m bench.bigdb measure DIR [--runs 3]          # db check, db check --full, db verify, spawn → health

`fill` writes agent message.create commands the way the gateway builds them (the bench's ~250-character content
and its `bench` field), so the rows, projections and chain are the hub's own; another process than the hub that
later starts on it, as after a long run or an import. `measure` copies nothing: `db check` writes its checkpoint
into the folder, so run it on a copy (`cp -a`) to time a first check again.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.lap import CONTENT
from bench.targets import HubTarget
from bench.writer import _setup
from hub.domain.collaboration import AGENT_HANDLERS, command_for
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, new_id, now_iso
from hub.protocol.payloads import AGENT_INBOUND, parse_payload
from hub.store import database
from hub.store.migrations import migrate
from hub.store.writer import MAX_BATCH, Writer


async def fill(folder: Path, events: int) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    conn = await database.connect(folder / "lineup.db", synchronous="FULL")
    await database.run(conn, migrate)
    writer = Writer(conn, lambda committed: None)
    await writer.start()
    started = time.perf_counter()
    try:
        agent, conversation_id = await _setup(writer)
        spec = AGENT_HANDLERS["message.create"]
        for start in range(0, events, MAX_BATCH):
            futures = []
            for n in range(start, min(events, start + MAX_BATCH)):
                payload = {"content": CONTENT, "bench": {"t": time.monotonic_ns(), "a": 0, "n": n, "p": "run"}}
                env = Envelope(id=new_id("env"), type="message.create", version=PROTOCOL_VERSION,
                               occurredAt=now_iso(), payload=payload, workspaceId=agent.workspace_id,
                               conversationId=conversation_id)
                command = command_for(agent, env, spec, parse_payload(AGENT_INBOUND["message.create"], payload))
                futures.append(writer.submit(command))
            for outcome in await asyncio.gather(*futures):
                if outcome.error is not None:
                    raise RuntimeError(outcome.error.message)
            if start and start % 100_000 == 0:
                print(f"  {start:,} events, {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        await writer.stop()
        await conn.close()
    size = sum(f.stat().st_size for f in folder.iterdir() if f.name.startswith("lineup.db"))
    print(f"filled {folder}: {events:,} events in {time.perf_counter() - started:.1f} s; "
          f"database {size / 1e6:.0f} MB ({size / max(1, events):.0f} bytes per event)")


def _timed(args: list[str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "LINEUP_LOG_LEVEL": "warning"})
    return time.perf_counter() - started, done.returncode, (done.stdout + done.stderr).strip().splitlines()[-1:][0]


def measure(folder: Path, runs: int, what: list[str]) -> None:
    print(f"{folder}, load average {os.getloadavg()[0]:.1f}")
    cli = [sys.executable, "-m", "hub"]
    for _ in range(runs):
        if "check" in what:
            took, code, last = _timed([*cli, "db", "check", "--data-dir", str(folder)])
            print(f"db check          {took:6.2f} s  exit {code}  {last}  (load {os.getloadavg()[0]:.1f})")
        if "full" in what:
            took, code, last = _timed([*cli, "db", "check", "--full", "--data-dir", str(folder)])
            print(f"db check --full   {took:6.2f} s  exit {code}  {last}  (load {os.getloadavg()[0]:.1f})")
        if "verify" in what:
            took, code, last = _timed([*cli, "db", "verify", "--data-dir", str(folder)])
            print(f"db verify         {took:6.2f} s  exit {code}  (load {os.getloadavg()[0]:.1f})")
        if "start" in what:
            target = HubTarget(folder)
            try:
                target.start(timeout_s=120)
            finally:
                target.stop()
            print(f"spawn → health    {target.spawn_to_healthy_s:6.2f} s  (load {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    make = sub.add_parser("fill")
    make.add_argument("dir", type=Path)
    make.add_argument("--events", type=int, default=1_000_000)
    timing = sub.add_parser("measure")
    timing.add_argument("dir", type=Path)
    timing.add_argument("--runs", type=int, default=1)
    timing.add_argument("--what", default="check,verify,start", help="any of check, full, verify, start")
    args = parser.parse_args()
    if args.cmd == "fill":
        asyncio.run(fill(args.dir, args.events))
    else:
        measure(args.dir, args.runs, args.what.split(","))


if __name__ == "__main__":
    main()
