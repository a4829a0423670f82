"""The writer alone: message.create through the real Writer on a temp SQLite file (WAL, synchronous=FULL).

No sockets, no gateway: the commands are built beforehand the way the gateway builds them
(`collaboration.command_for`), then timed through `Writer.execute` / `Writer.submit`. Two shapes:

- batch 1: one command at a time, awaited (every event pays BEGIN IMMEDIATE, COMMIT and the fsync alone);
- batch 100: 100 commands submitted at once, then awaited (one transaction of 100).

Printed per shape: events/s (wall), CPU µs per event for the whole process (event loop + writer thread) and
for the writer's thread alone, the medians of `--repeats` runs, each on a fresh database file. The machine
may be shared: compare two trees by running both, interleaved, e.g.

    .venv/bin/python -m bench.writer
    cd /tmp/writer-before && /path/to/.venv/bin/python -m bench.writer   # a copy of the other tree

(with `-m` the current folder comes first on the import path, so `cd` into the tree to measure, PYTHONPATH alone
is not enough while the project is installed in editable mode).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from hub.domain import accounts
from hub.domain.collaboration import AGENT_HANDLERS, command_for
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, new_id, now_iso
from hub.protocol.payloads import AGENT_INBOUND, parse_payload
from hub.store import database
from hub.store.migrations import migrate
from hub.store.writer import Command, Writer

FAKE_PASSWORD_HASH = "scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA==$not-a-real-hash"


async def _must(writer: Writer, command: Command) -> Any:
    outcome = await writer.execute(command)
    if outcome.error is not None:
        raise RuntimeError(outcome.error.message)
    return outcome.value


async def _setup(writer: Writer) -> tuple[Actor, str]:
    """An owner, a paired agent and a conversation the agent is a member of."""
    owner = await _must(writer, accounts.create_owner("ada", "Ada", FAKE_PASSWORD_HASH, "Home", "laptop")[0])
    user = Actor("user", owner["userId"], owner["workspaceId"], device_id=owner["deviceId"])
    make_code, code = accounts.create_pairing_code(user, "bot", 600)
    await _must(writer, make_code)
    pair, _ = accounts.pair_agent(code, "bot", "bench", "1.0")
    agent = Actor("agent", (await _must(writer, pair))["agentId"], owner["workspaceId"])
    env = Envelope(id=new_id("env"), type="conversation.create", version=PROTOCOL_VERSION, occurredAt=now_iso(),
                   payload={"title": "bench", "agentIds": []}, workspaceId=agent.workspace_id,
                   conversationId="conv-bench")
    await _must(writer, command_for(agent, env, AGENT_HANDLERS["conversation.create"],
                                    parse_payload(AGENT_INBOUND["conversation.create"], env.payload)))
    return agent, "conv-bench"


def _commands(agent: Actor, conversation_id: str, n: int) -> list[Command]:
    """What the gateway builds for n agent message.create envelopes (~100-byte content, no messageId)."""
    commands = []
    for i in range(n):
        payload = {"content": f"bench message {i}: " + "x" * 80}
        env = Envelope(id=new_id("env"), type="message.create", version=PROTOCOL_VERSION, occurredAt=now_iso(),
                       payload=payload, workspaceId=agent.workspace_id, conversationId=conversation_id)
        commands.append(command_for(agent, env, AGENT_HANDLERS["message.create"],
                                    parse_payload(AGENT_INBOUND["message.create"], payload)))
    return commands


async def _run_once(folder: Path, n: int, batch: int) -> dict[str, float]:
    conn = await database.connect(folder / "lineup.db", synchronous="FULL")
    await database.run(conn, migrate)
    writer = Writer(conn, lambda events: None)
    await writer.start()
    try:
        agent, conversation_id = await _setup(writer)
        commands = _commands(agent, conversation_id, n)
        thread_before = await database.run(conn, lambda c: time.thread_time())
        cpu_before, wall_before = time.process_time(), time.perf_counter()
        if batch == 1:
            for cmd in commands:
                outcome = await writer.execute(cmd)
                assert outcome.error is None, outcome.error
        else:
            for start in range(0, n, batch):
                outcomes = await asyncio.gather(*(writer.submit(cmd) for cmd in commands[start:start + batch]))
                assert all(o.error is None for o in outcomes)
        wall = time.perf_counter() - wall_before
        cpu = time.process_time() - cpu_before
        thread = await database.run(conn, lambda c: time.thread_time()) - thread_before
        # Batches that read the log for another connection's rows (trees before the data_version shortcut: all).
        log_reads = getattr(writer.stats, "log_reads", writer.stats.batches)
    finally:
        await writer.stop()
        await conn.close()
    return {"events_s": n / wall, "cpu_us": cpu / n * 1e6, "writer_us": thread / n * 1e6, "log_reads": log_reads}


async def _main(args: argparse.Namespace) -> None:
    shapes = [(1, args.events_1), (100, args.events_100)]
    print(f"writer bench: message.create through Writer, synchronous=FULL, WAL, {args.repeats} repeats, medians")
    for batch, n in shapes:
        runs = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory(prefix="lineup-bench-writer-", dir=args.dir) as folder:
                runs.append(await _run_once(Path(folder), n, batch))
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        spread = ", ".join(f"{r['cpu_us']:.0f}" for r in runs)
        print(f"batch {batch:>3} ({n} events): {med['events_s']:8.0f} events/s  "
              f"CPU {med['cpu_us']:6.1f} µs/event (runs: {spread})  writer thread {med['writer_us']:6.1f} µs/event  "
              f"log reads {med['log_reads']:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--events-1", type=int, default=1000, help="events in the one-at-a-time runs")
    parser.add_argument("--events-100", type=int, default=20000, help="events in the batches-of-100 runs")
    parser.add_argument("--dir", default=None, help="where the temp database goes (default: the system's temp)")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
