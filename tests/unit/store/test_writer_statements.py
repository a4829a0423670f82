"""The writer's statements per message: no SAVEPOINT for a command that refuses only before writing, one UPDATE of
a conversation per batch, and every guarantee of a refused or failing command kept."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, cast

from hub.protocol.errors import LapError
from hub.store import database
from hub.store.rebuild import check
from hub.store.writer import Command, Outcome, Tx
from tests.unit.scenario import World, WriterRig, command, executor, populate


async def statements(rig: WriterRig) -> Counter[str]:
    """Count the writer connection's statements by their first two words, from now on (in its own thread)."""
    seen: Counter[str] = Counter()

    def trace(sql: str) -> None:
        seen[" ".join(sql.split()[:2]).upper()] += 1
    await database.run(rig.conn, lambda c: c.set_trace_callback(trace))
    return seen


async def batch(rig: WriterRig, commands: list[Command]) -> list[Outcome]:
    """Submitted together: one transaction (the queue is drained into one batch)."""
    return list(await asyncio.gather(*(rig.writer.submit(c) for c in commands)))


def say(world: World, text: str, **fields: Any) -> Command:
    return command(world.agent, "message.create", {"content": text}, conversationId="c1", **fields)


async def test_a_batch_of_messages_runs_no_savepoint_and_one_conversation_update(rig: WriterRig) -> None:
    world = await populate(executor(rig.writer))
    seen = await statements(rig)
    outcomes = await batch(rig, [say(world, f"m{i}") for i in range(20)])
    await database.run(rig.conn, lambda c: c.set_trace_callback(None))
    assert all(o.error is None for o in outcomes)
    assert seen["SAVEPOINT COMMAND"] == seen["RELEASE COMMAND"] == 0
    assert seen["UPDATE CONVERSATIONS"] == 1
    assert seen["INSERT INTO"] == 40  # an event and its message each
    reader = rig.reader()
    try:
        last = max(o.sequence for o in outcomes if o.sequence is not None)
        row = reader.execute("SELECT last_sequence, updated_at FROM conversations WHERE id = 'c1'").fetchone()
        recorded = reader.execute("SELECT recorded_at FROM events WHERE sequence = ?", (last,)).fetchone()[0]
        assert tuple(row) == (last, recorded)
        assert check(reader, full=True).ok  # the projections are still exactly a replay of the log
    finally:
        reader.close()


async def test_a_refused_message_in_a_batch_leaves_no_trace_and_the_others_commit(rig: WriterRig) -> None:
    world = await populate(executor(rig.writer))
    elsewhere = command(world.agent, "message.create", {"content": "where?"}, conversationId="nope")
    outcomes = await batch(rig, [say(world, "one"), elsewhere, say(world, "two")])
    assert outcomes[1].error is not None and outcomes[1].error.code == "not_found"
    assert outcomes[0].error is None and outcomes[2].error is None
    assert outcomes[2].sequence == cast(int, outcomes[0].sequence) + 1  # no hole where it was
    reader = rig.reader()
    try:
        assert check(reader, full=True).ok
    finally:
        reader.close()


async def test_a_writes_last_command_that_fails_after_writing_fails_its_whole_batch(rig: WriterRig) -> None:
    world = await populate(executor(rig.writer))
    head = rig.writer.head

    def broken(tx: Tx) -> None:
        tx.append("workspace.created", {"name": "ghost"}, workspace_id="ws_ghost", actor="hub", id="ghost")
        raise LapError("forbidden", "refused after writing, which a writes_last command must not do")

    outcomes = await batch(rig, [say(world, "before"), Command(run=broken, writes_last=True), say(world, "after")])
    assert [o.error.code if o.error else None for o in outcomes] == ["internal"] * 3
    assert rig.writer.head == head
    assert (await rig.writer.execute(say(world, "next"))).sequence == head + 1  # gap-free after it
    reader = rig.reader()
    try:
        assert reader.execute("SELECT COUNT(*) FROM workspaces WHERE id = 'ws_ghost'").fetchone()[0] == 0
        assert check(reader, full=True).ok
    finally:
        reader.close()


async def test_a_command_with_a_savepoint_sees_the_touches_before_it(rig: WriterRig) -> None:
    world = await populate(executor(rig.writer))
    seen_by_it: list[int] = []

    def reads(tx: Tx) -> None:
        row = tx.one("SELECT last_sequence FROM conversations WHERE id = 'c1' AND workspace_id = ?",
                     world.user.workspace_id)
        assert row is not None
        seen_by_it.append(int(row[0]))

    outcomes = await batch(rig, [say(world, "one"), say(world, "two"), Command(run=reads)])
    assert seen_by_it == [outcomes[1].sequence]


async def test_writes_last_is_kept_for_message_create_only() -> None:
    from hub.domain.collaboration import WRITES_LAST, message_create
    assert frozenset({message_create}) == WRITES_LAST
