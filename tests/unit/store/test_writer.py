"""The one writer: gap-free commit-ordered sequences, group commit, isolation of refused commands, dedupe,
disk full, and rows another connection (the CLI) appended."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any, cast

import aiosqlite

from hub.core import Hub
from hub.protocol.errors import LapError
from hub.settings import load_settings
from hub.store import chain, database
from hub.store.events import StoredEvent
from hub.store.migrations import migrate
from hub.store.writer import Command, Outcome, Tx, Writer, request_digest
from tests.unit.scenario import WriterRig, append, command, executor, populate, second_writer_appends


def refuse_after_append(code: str = "forbidden") -> Command:
    """Appends an event (and a projection row), then refuses: neither may survive."""
    def run(tx: Tx) -> None:
        tx.append("workspace.created", {"name": "ghost"}, workspace_id="ws_ghost", actor="hub", id="ghost-event")
        raise LapError(code, "refused after appending")
    return Command(run=run)


def stored_sequences(conn: sqlite3.Connection) -> list[int]:
    return [row[0] for row in conn.execute("SELECT sequence FROM events ORDER BY sequence")]


async def test_concurrent_submits_get_gap_free_commit_ordered_sequences(rig: WriterRig) -> None:
    tasks, per_task = 50, 40
    visible_on_ack: list[bool] = []
    check_conn = rig.reader()

    async def client(n: int) -> list[int]:
        sequences = []
        for i in range(per_task):
            outcome = await rig.writer.execute(append(f"c{n}-{i}"))
            assert outcome.error is None and not outcome.duplicate
            sequences.append(cast(int, outcome.sequence))
            if i % 10 == 0:  # "stored" means committed: another connection already sees the row
                row = check_conn.execute("SELECT sequence FROM events WHERE id = ?", (f"c{n}-{i}",)).fetchone()
                visible_on_ack.append(row is not None and row[0] == outcome.sequence)
        return sequences

    try:
        results = await asyncio.gather(*(client(n) for n in range(tasks)))
        total = tasks * per_task
        assert all(visible_on_ack)
        for sequences in results:  # each client's commands were stored in the order it sent them
            assert sequences == sorted(sequences)
        assert sorted(s for seqs in results for s in seqs) == list(range(1, total + 1))
        assert stored_sequences(check_conn) == list(range(1, total + 1))
        # Published once each, after commit, in commit order.
        assert rig.published_sequences == list(range(1, total + 1))
        assert rig.writer.head == total
        assert rig.writer.stats.commands == total
        # Group commit: commands queued while a batch commits share the next transaction.
        assert rig.writer.stats.max_batch_size > 1
        assert rig.writer.stats.batches < total
    finally:
        check_conn.close()


async def test_one_batch_commits_many_commands_in_one_transaction(rig: WriterRig) -> None:
    futures = [rig.writer.submit(append(f"b{i}")) for i in range(300)]
    outcomes = await asyncio.gather(*futures)
    assert [o.sequence for o in outcomes] == list(range(1, 301))
    assert rig.writer.stats.batches == 1 and rig.writer.stats.max_batch_size == 300
    assert len(rig.published) == 1


async def test_refused_command_leaves_no_trace_and_spares_its_batch_neighbours(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    futures = [rig.writer.submit(append("before")), rig.writer.submit(refuse_after_append()),
               rig.writer.submit(append("after"))]
    before, refused, after = await asyncio.gather(*futures)
    assert rig.writer.stats.last_batch_size == 3  # really one batch
    assert refused.error is not None and refused.error.code == "forbidden"
    assert refused.sequence is None and refused.events == []
    # Its sequence number was handed on: no hole where the refused event would have been.
    assert (before.sequence, after.sequence) == (1, 2)
    assert stored_sequences(reader) == [1, 2]
    assert reader.execute("SELECT COUNT(*) FROM events WHERE id = 'ghost-event'").fetchone()[0] == 0
    assert reader.execute("SELECT COUNT(*) FROM workspaces").fetchone()[0] == 0  # its projection row too
    assert [e.id for e in rig.published[0]] == ["before", "after"]


async def test_unexpected_exception_and_integrity_error_are_contained(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    def boom(tx: Tx) -> None:
        tx.append("test.noted", {}, workspace_id="ws1", actor="hub")
        raise RuntimeError("bug in a handler")

    def duplicate_id(tx: Tx) -> None:
        tx.append("test.noted", {}, workspace_id="ws1", actor="hub", id="taken")

    first = await rig.writer.execute(append("taken"))
    futures = [rig.writer.submit(Command(run=boom)), rig.writer.submit(Command(run=duplicate_id)),
               rig.writer.submit(append("fine"))]
    crashed, clashed, fine = await asyncio.gather(*futures)
    assert crashed.error is not None and crashed.error.code == "internal"
    assert clashed.error is not None and clashed.error.code == "conflict"
    assert fine.error is None and fine.sequence == cast(int, first.sequence) + 1
    assert stored_sequences(reader) == [1, 2]


async def test_dedupe_answers_with_the_first_sequence(rig: WriterRig, reader: sqlite3.Connection) -> None:
    digest = request_digest("user:u1", "test.noted", {"a": 1})

    def noted(tx: Tx) -> None:
        tx.append("test.noted", {"a": 1}, workspace_id="ws1", actor="hub", id="env-1")

    first = await rig.writer.execute(Command(run=noted, dedupe_id="env-1", request_hash=digest))
    await rig.writer.execute(append("other"))
    again = await rig.writer.execute(Command(run=noted, dedupe_id="env-1", request_hash=digest))
    assert first.error is None and not first.duplicate
    assert again.error is None, again.error and again.error.message
    assert (again.sequence, again.duplicate) == (first.sequence, True)
    assert again.events == []
    assert reader.execute("SELECT COUNT(*) FROM events WHERE id = 'env-1'").fetchone()[0] == 1
    assert rig.published_sequences == [1, 2]  # nothing published again


async def test_dedupe_within_one_batch(rig: WriterRig) -> None:
    futures = [rig.writer.submit(append("same")) for _ in range(3)]
    outcomes = await asyncio.gather(*futures)
    assert rig.writer.stats.last_batch_size == 3
    assert [(o.sequence, o.duplicate) for o in outcomes] == [(1, False), (1, True), (1, True)]


async def test_same_id_with_a_different_request_is_a_conflict_and_the_first_stays(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    def noted(payload: dict[str, Any]) -> Command:
        return Command(run=lambda tx: tx.append("test.noted", payload, workspace_id="ws1", actor="hub", id="env-1"),
                       dedupe_id="env-1", request_hash=request_digest(payload))

    first = await rig.writer.execute(noted({"v": 1}))
    clash = await rig.writer.execute(noted({"v": 2}))
    assert first.error is None
    assert clash.error is not None and clash.error.code == "conflict" and clash.error.status == 409
    assert "env-1" in clash.error.message
    assert json.loads(reader.execute("SELECT payload FROM events WHERE id = 'env-1'").fetchone()[0]) == {"v": 1}


async def test_an_envelope_id_is_unique_within_its_workspace(rig: WriterRig, reader: sqlite3.Connection) -> None:
    """The same envelope id in another workspace is a new event there (not a duplicate, not a conflict); each
    workspace's re-send is answered with its own first sequence."""
    def noted(workspace_id: str, payload: dict[str, Any]) -> Command:
        return Command(run=lambda tx: tx.append("test.noted", payload, workspace_id=workspace_id, actor="hub",
                                                id="env-1"),
                       dedupe_id="env-1", request_hash=request_digest(payload), workspace_id=workspace_id)

    first = await rig.writer.execute(noted("ws1", {"v": 1}))
    other = await rig.writer.execute(noted("ws2", {"v": 2}))
    assert first.error is None and other.error is None, (first.error, other.error)
    assert (first.sequence, first.duplicate, other.sequence, other.duplicate) == (1, False, 2, False)
    again = [await rig.writer.execute(noted(ws, {"v": v})) for ws, v in (("ws2", 2), ("ws1", 1))]
    assert [(o.sequence, o.duplicate) for o in again] == [(2, True), (1, True)]
    clash = await rig.writer.execute(noted("ws2", {"v": 1}))
    assert clash.error is not None and clash.error.code == "conflict"
    stored = reader.execute("SELECT workspace_id, payload FROM events WHERE id = 'env-1' ORDER BY sequence")
    assert [tuple(r) for r in stored] == [("ws1", '{"v":1}'), ("ws2", '{"v":2}')]


async def test_resent_envelope_through_the_gateway_command_is_a_duplicate(rig: WriterRig) -> None:
    """command_for keys on the envelope id and hashes the request: an identical re-send is not a conflict."""
    world = await populate(executor(rig.writer))
    first = command(world.user, "task.create", {"title": "Again", "targetAgentId": world.agent.id},
                    id="env-task", taskId="t9")
    resend = command(world.user, "task.create", {"title": "Again", "targetAgentId": world.agent.id},
                     id="env-task", taskId="t9")
    changed = command(world.user, "task.create", {"title": "Changed", "targetAgentId": world.agent.id},
                      id="env-task", taskId="t9")
    stored = await rig.writer.execute(first)
    duplicate = await rig.writer.execute(resend)
    conflict = await rig.writer.execute(changed)
    assert stored.error is None
    assert duplicate.error is None and (duplicate.sequence, duplicate.duplicate) == (stored.sequence, True)
    assert conflict.error is not None and conflict.error.code == "conflict"


def big(i: int) -> Command:
    # Bigger than a page: needs new (overflow) pages, which max_page_count forbids.
    return append(f"big-{i}", {"blob": "x" * 20_000})


async def test_disk_full_refuses_the_whole_batch_and_recovers_without_reopening(db_path: Path) -> None:
    setup = await database.connect(db_path)
    await database.run(setup, migrate)
    await setup.close()
    conn = await database.connect(db_path, max_pages=1)  # clamped to the current size: no page may be added
    published: list[list[StoredEvent]] = []
    writer = Writer(conn, published.append)
    await writer.start()
    check = database.connect_sync(db_path)
    try:
        outcomes: list[Outcome] = await asyncio.gather(*[writer.submit(big(i)) for i in range(5)])
        assert writer.stats.last_batch_size == 5
        assert [o.error.code if o.error else None for o in outcomes] == ["storage_full"] * 5
        assert all(o.error is not None and o.error.retryable and o.error.status == 507 for o in outcomes)
        assert check.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
        assert published == [] and writer.head == 0

        await database.run(conn, lambda c: c.execute("PRAGMA max_page_count = 1000000"))
        retried = await asyncio.gather(*[writer.submit(big(i)) for i in range(5)])
        assert [o.sequence for o in retried] == [1, 2, 3, 4, 5]  # the refused batch left no hole
        assert stored_sequences(check) == [1, 2, 3, 4, 5]
        assert [e.sequence for batch in published for e in batch] == [1, 2, 3, 4, 5]
    finally:
        check.close()
        await writer.stop()
        await conn.close()


async def test_hub_with_db_max_pages_reports_storage_full_then_recovers(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": tmp_path}, environ={})
    first = Hub(settings)
    await first.start()
    await first.stop()
    hub = Hub(load_settings({"data_dir": tmp_path, "db_max_pages": 1}, environ={}))
    await hub.start()
    try:
        futures = [hub.writer.submit(big(i)) for i in range(4)]
        outcomes = await asyncio.gather(*futures)
        assert {o.error.code for o in outcomes if o.error} == {"storage_full"} and all(o.error for o in outcomes)
        assert await hub.read(lambda c: c.execute("SELECT COUNT(*) FROM events").fetchone()[0]) == 0
        write_conn = hub._write_conn
        assert write_conn is not None
        await database.run(write_conn, lambda c: c.execute("PRAGMA max_page_count = 1000000"))
        assert await hub.execute(big(0)) == "big-0"
        assert await hub.read(lambda c: c.execute("SELECT MAX(sequence) FROM events").fetchone()[0]) == 1
    finally:
        await hub.stop()


async def test_rows_of_another_connection_are_published_before_the_next_batch(rig: WriterRig) -> None:
    await rig.writer.execute(append("mine-1"))
    foreign = await second_writer_appends(rig.path, ["cli-1", "cli-2", "cli-3"])
    assert foreign == [2, 3, 4]
    outcome = await rig.writer.execute(append("mine-2"))
    assert outcome.sequence == 5  # no clash with the rows it did not write
    assert [e.id for e in rig.published[-1]] == ["cli-1", "cli-2", "cli-3", "mine-2"]
    assert rig.published_sequences == [1, 2, 3, 4, 5]
    assert rig.writer.head == 5


async def test_foreign_rows_are_published_even_if_the_batch_that_found_them_failed(
        rig: WriterRig, write_conn: aiosqlite.Connection) -> None:
    await rig.writer.execute(append("mine-1"))
    await second_writer_appends(rig.path, ["cli-1", "cli-2"])
    await database.run(write_conn, lambda c: c.execute("PRAGMA max_page_count = 1"))
    failed = await rig.writer.execute(big(0))
    assert failed.error is not None and failed.error.code == "storage_full"
    await database.run(write_conn, lambda c: c.execute("PRAGMA max_page_count = 1000000"))
    ok = await rig.writer.execute(append("mine-2"))
    assert ok.sequence == 4
    # Live receivers must not see a gap: the CLI's rows are published before mine-2.
    assert rig.published_sequences == [1, 2, 3, 4]


async def test_stop_drains_the_queue_and_later_submits_are_refused(rig: WriterRig) -> None:
    futures = [rig.writer.submit(append(f"q{i}")) for i in range(10)]
    await rig.writer.stop()
    assert all(f.done() and f.result().error is None for f in futures)
    late = await rig.writer.execute(append("late"))
    assert late.error is not None and late.error.code == "internal"
    await rig.writer.start()  # the fixture stops it again
    assert rig.writer.head == 10


# ---- the per-batch shortcut: while PRAGMA data_version stays put, the log is not read again ------------------

def chain_holds(conn: sqlite3.Connection) -> None:
    assert chain.verify(conn) is None


async def test_batches_after_the_first_skip_the_log_read_and_the_chain_holds(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    for i in range(5):
        await rig.writer.execute(append(f"a{i}"))
    await rig.writer.execute(refuse_after_append())  # rolled back to its savepoint: the chain goes on from a4
    await asyncio.gather(*(rig.writer.submit(append(f"b{i}")) for i in range(20)))
    assert rig.writer.stats.log_reads == 1  # only the first batch after start read the log
    assert rig.published_sequences == list(range(1, 26))
    chain_holds(reader)


async def test_a_commit_of_another_connection_between_batches_is_published_in_order_and_chained(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    """A plain second sqlite3 connection appends an event (with a recipient) the way the writer would."""
    await rig.writer.execute(append("mine-1"))
    await rig.writer.execute(append("mine-2"))
    reads = rig.writer.stats.log_reads
    other = rig.reader()
    try:
        other.execute("BEGIN IMMEDIATE")
        row = (3, "other-1", "test.noted", "ws1", None, None, None, "hub", "2026-01-01T00:00:00.000Z",
               "2026-01-01T00:00:00.000Z", '{"by":"other"}')
        other.execute(f"INSERT INTO events ({', '.join(chain.CHAINED_COLUMNS)}, chain) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", (*row, chain.link(chain.previous_chain(other, 2), row)))
        other.execute("INSERT INTO event_recipients (agent_id, sequence) VALUES ('agt_x', 3)")
        other.execute("COMMIT")
    finally:
        other.close()
    outcome = await rig.writer.execute(append("mine-3"))
    assert outcome.sequence == 4
    assert rig.writer.stats.log_reads == reads + 1
    assert [(e.id, e.recipients) for e in rig.published[-1]] == [("other-1", ("agt_x",)), ("mine-3", ())]
    await rig.writer.execute(append("mine-4"))  # nobody else wrote since: the shortcut again
    assert rig.writer.stats.log_reads == reads + 1
    assert rig.published_sequences == [1, 2, 3, 4, 5]
    chain_holds(reader)


async def test_the_cli_writing_between_batches_is_picked_up_each_time(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    await rig.writer.execute(append("mine-1"))
    for round_ in range(3):
        await second_writer_appends(rig.path, [f"cli-{round_}-a", f"cli-{round_}-b"])
        await rig.writer.execute(append(f"mine-{round_}-x"))
        await rig.writer.execute(append(f"mine-{round_}-y"))
    assert [e.id for batch in rig.published for e in batch][-4:] == ["cli-2-a", "cli-2-b", "mine-2-x", "mine-2-y"]
    assert rig.published_sequences == list(range(1, 14))
    assert rig.writer.stats.log_reads == 4  # the start, then once after each CLI run
    chain_holds(reader)


async def test_another_connection_changing_other_tables_costs_a_read_and_changes_nothing(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    await rig.writer.execute(append("mine-1"))
    reader.execute("INSERT INTO meta (key, value) VALUES ('elsewhere', 'x')")
    outcome = await rig.writer.execute(append("mine-2"))
    assert outcome.sequence == 2 and rig.writer.stats.log_reads == 2
    assert [e.id for e in rig.published[-1]] == ["mine-2"]
    chain_holds(reader)


async def test_after_another_connection_edits_the_newest_chain_value_the_next_row_links_to_what_is_stored(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    """As before the shortcut: the writer links to the stored value, not to one it remembers (verify then names
    the edited row)."""
    await rig.writer.execute(append("mine-1"))
    await rig.writer.execute(append("mine-2"))
    reader.execute("UPDATE events SET chain = ? WHERE sequence = 2", ("e" * 64,))
    await rig.writer.execute(append("mine-3"))
    third = reader.execute(f"SELECT {', '.join(chain.CHAINED_COLUMNS)}, chain FROM events "
                           "WHERE sequence = 3").fetchone()
    assert third["chain"] == chain.link("e" * 64, tuple(third)[:-1])
    assert chain.verify(reader) == (2, "the row does not match its chain value (edited, or moved from elsewhere)")


async def test_a_failed_batch_does_not_advance_the_remembered_chain(
        rig: WriterRig, write_conn: aiosqlite.Connection, reader: sqlite3.Connection) -> None:
    await rig.writer.execute(append("mine-1"))
    await rig.writer.execute(append("mine-2"))
    await database.run(write_conn, lambda c: c.execute("PRAGMA max_page_count = 1"))
    # One batch: a small event is appended (the chain moves on in the transaction), then the big one hits the
    # page cap and the whole batch rolls back.
    failed = await asyncio.gather(rig.writer.submit(append("small")), rig.writer.submit(big(0)))
    assert [o.error.code if o.error else None for o in failed] == ["storage_full", "storage_full"]
    reads = rig.writer.stats.log_reads
    await database.run(write_conn, lambda c: c.execute("PRAGMA max_page_count = 1000000"))
    ok = await rig.writer.execute(append("mine-3"))
    assert ok.sequence == 3
    await rig.writer.execute(append("mine-4"))
    assert rig.published_sequences == [1, 2, 3, 4]
    chain_holds(reader)  # mine-3 links to mine-2, not to the rolled-back "small"
    assert rig.writer.stats.log_reads == reads + 1  # the failed batch left nothing to remember


async def test_a_restarted_writer_reads_the_log_again(rig: WriterRig, reader: sqlite3.Connection) -> None:
    await rig.writer.execute(append("mine-1"))
    await rig.writer.stop()
    await second_writer_appends(rig.path, ["cli-1"])
    await rig.writer.start()
    reads = rig.writer.stats.log_reads
    outcome = await rig.writer.execute(append("mine-2"))
    assert outcome.sequence == 3 and rig.writer.stats.log_reads == reads + 1
    chain_holds(reader)


async def test_a_foreign_row_that_cannot_be_read_fails_the_batch_without_leaving_it_open(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    """Another process's row with a payload that is not JSON: the batch fails with `internal` and rolls back, so
    the next batch starts cleanly (a transaction left open made every later batch fail)."""
    await rig.writer.execute(append("mine-1"))
    await second_writer_appends(rig.path, ["cli-1"])
    with sqlite3.connect(rig.path) as other:
        other.execute("UPDATE events SET payload = 'not json' WHERE id = 'cli-1'")
    other.close()
    failed = await rig.writer.execute(append("mine-2"))
    assert failed.error is not None and failed.error.code == "internal"
    with sqlite3.connect(rig.path) as other:  # repaired by hand
        other.execute("UPDATE events SET payload = '{}' WHERE id = 'cli-1'")
    other.close()
    ok = await rig.writer.execute(append("mine-3"))
    assert ok.error is None and ok.sequence == 3
    assert rig.published_sequences == [1, 2, 3]
