"""The one writer: commands queue up, each batch runs in one transaction, events are published after commit.

Guarantees (docs/quality.md#design-rules): one task assigns `sequence`, so it is gap-free and insert order
is commit order; a command's events and their projections commit together or not at all; nobody is told
"stored" (ack) before COMMIT returned; a command refused with LapError leaves no trace (a SAVEPOINT, or for a
command that refuses only before writing, nothing written).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
import msgspec

from hub.protocol.envelope import new_id, now_iso
from hub.protocol.errors import LapError
from hub.store import chain, database, projections
from hub.store.events import StoredEvent, head_sequence, read_all_with_recipients

log = logging.getLogger("lineup.store")

MAX_BATCH = 500
_encode_sorted = msgspec.json.Encoder(order="sorted").encode
_encode = msgspec.json.Encoder().encode


def request_digest(*parts: Any) -> str:
    """A digest of what a sender sent, to tell a harmless re-send from a conflicting reuse of its id."""
    return hashlib.sha256(_encode_sorted(parts)).hexdigest()[:32]


def is_disk_full(exc: BaseException) -> bool:
    """SQLite's own result code says the disk (or the LINEUP_DB_MAX_PAGES cap) is full; the message is for people
    (a trigger's "queue is full" is not a full disk). The low byte is the primary code, should an extended one come."""
    code = getattr(exc, "sqlite_errorcode", None) if isinstance(exc, sqlite3.Error) else None
    return code is not None and code & 0xFF == sqlite3.SQLITE_FULL


class Tx:
    """What a command sees inside the batch transaction: reads, and `append` to add an event."""

    def __init__(self, conn: sqlite3.Connection, next_sequence: int, recorded_at: str,
                 prev_chain: str | None = None) -> None:
        self.conn = conn
        self.next_sequence = next_sequence
        self.recorded_at = recorded_at
        self.events: list[StoredEvent] = []
        # The running command's (envelope id, request hash): stored with the event carrying that id, so a
        # re-send of the same envelope is told apart from a conflicting reuse of its id.
        self.dedupe: tuple[str | None, str | None] = (None, None)
        # The chain value of the row before next_sequence: the writer passes the one it remembers, if it may.
        self.prev_chain = chain.previous_chain(conn, next_sequence - 1) if prev_chain is None else prev_chain

    def one(self, sql: str, *params: Any) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
        return row

    def all(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def append(self, type_: str, payload: dict[str, Any], *, workspace_id: str | None, actor: str,
               id: str | None = None,  # noqa: A002 - the event's `id` column, named as every caller passes it
               conversation_id: str | None = None, task_id: str | None = None,
               correlation_id: str | None = None, occurred_at: str | None = None,
               recipients: tuple[str, ...] = (), request_hash: str | None = None) -> StoredEvent:
        event = StoredEvent(
            sequence=self.next_sequence, id=id or new_id("evt"), type=type_, workspace_id=workspace_id,
            conversation_id=conversation_id, task_id=task_id, correlation_id=correlation_id, actor=actor,
            occurred_at=occurred_at or self.recorded_at, recorded_at=self.recorded_at, payload=payload,
            recipients=tuple(dict.fromkeys(recipients)),
        )
        if request_hash is None and event.id == self.dedupe[0]:
            request_hash = self.dedupe[1]
        row = (event.sequence, event.id, type_, workspace_id, conversation_id, task_id, correlation_id, actor,
               event.occurred_at, self.recorded_at, _encode(payload).decode())
        self.prev_chain = chain.link_row(self.prev_chain, row)
        self.conn.execute(
            "INSERT INTO events (sequence, id, type, workspace_id, conversation_id, task_id, correlation_id, actor, "
            "occurred_at, recorded_at, payload, request_hash, chain) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (*row, request_hash, self.prev_chain))
        if event.recipients:
            self.conn.executemany("INSERT INTO event_recipients (agent_id, sequence) VALUES (?, ?)",
                                  [(agent_id, event.sequence) for agent_id in event.recipients])
        projections.apply(self.conn, event)
        self.next_sequence += 1
        self.events.append(event)
        return event


@dataclass(slots=True)
class Command:
    """A unit of work for the writer. `run` validates against current state and appends events."""

    run: Callable[[Tx], Any]
    dedupe_id: str | None = None  # the envelope id: a re-send answers with the first ack
    request_hash: str | None = None
    # The sender's workspace: envelope ids are unique within a workspace (an id another workspace used is new
    # here). None: the id is looked up among all workspaces (hub-generated ids, which are random anyway).
    workspace_id: str | None = None
    # `run` refuses only before its first write (its checks first, then its appends), so it needs no SAVEPOINT
    # and its conversation touches can wait for the batch's end; should it fail after writing all the same, the
    # whole batch fails and nothing of it is stored (as on a full disk).
    writes_last: bool = False


@dataclass(slots=True)
class Outcome:
    sequence: int | None = None
    duplicate: bool = False
    value: Any = None
    error: LapError | None = None
    events: list[StoredEvent] = field(default_factory=list)


@dataclass
class WriterStats:
    batches: int = 0
    commands: int = 0
    last_batch_size: int = 0
    max_batch_size: int = 0
    log_reads: int = 0  # batches that read the log for rows another connection wrote (data_version moved)
    commit_ms: deque[float] = field(default_factory=lambda: deque(maxlen=1000))


class Writer:
    """Owns the write connection and the sequence counter; one asyncio task drains the queue."""

    def __init__(self, conn: aiosqlite.Connection, on_commit: Callable[[list[StoredEvent]], None]) -> None:
        self._conn = conn
        self._on_commit = on_commit
        self._queue: asyncio.Queue[tuple[Command, asyncio.Future[Outcome]] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._next_sequence = 1
        self.head = 0
        self.stats = WriterStats()
        # (PRAGMA data_version, chain value of the row before _next_sequence) as of our last COMMIT; None when
        # unknown (start, after a failed batch). While the version stays put nobody else committed: see _apply.
        self._known: tuple[int, str] | None = None

    async def start(self) -> None:
        self.head = await database.run(self._conn, head_sequence)
        self._next_sequence = self.head + 1
        self._known = None
        self._task = asyncio.create_task(self._loop(), name="lineup-writer")

    async def stop(self) -> None:
        """Finish every queued command (so what was sent is stored and acked), then stop."""
        if self._task is None:
            return
        self._queue.put_nowait(None)
        await self._task
        self._task = None

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    def submit(self, command: Command) -> asyncio.Future[Outcome]:
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        if self._task is None:
            future.set_result(Outcome(error=LapError("internal",
                                                     "The hub is shutting down; resend after it restarts.")))
        else:
            self._queue.put_nowait((command, future))
        return future

    async def execute(self, command: Command) -> Outcome:
        return await self.submit(command)

    async def _loop(self) -> None:
        stopping = False
        while not stopping:
            item = await self._queue.get()
            if item is None:
                break
            batch = [item]
            while len(batch) < MAX_BATCH and not self._queue.empty():
                nxt = self._queue.get_nowait()
                if nxt is None:
                    stopping = True
                    break
                batch.append(nxt)
            await self._process(batch)
        # Drain anything submitted after the stop sentinel.
        while not self._queue.empty():
            nxt = self._queue.get_nowait()
            if nxt is not None:
                await self._process([nxt])

    async def _process(self, batch: list[tuple[Command, asyncio.Future[Outcome]]]) -> None:
        started = time.perf_counter()
        commands = [cmd for cmd, _ in batch]
        try:
            outcomes, events, next_sequence, known = await database.run(self._conn,
                                                                         lambda c: self._apply(c, commands))
        except Exception as exc:  # the thread hop itself failed: nothing was committed
            log.exception("writer batch failed")
            err = LapError("storage_full", "The hub's disk is full; nothing was stored.") if is_disk_full(exc) \
                else LapError("internal", "The hub could not store the batch; nothing was stored.")
            outcomes, events, next_sequence, known = [Outcome(error=err) for _ in commands], [], None, None
        self._known = known
        if next_sequence is not None:
            self._next_sequence = next_sequence
            if events:
                self.head = events[-1].sequence
        self.stats.batches += 1
        self.stats.commands += len(batch)
        self.stats.last_batch_size = len(batch)
        self.stats.max_batch_size = max(self.stats.max_batch_size, len(batch))
        self.stats.commit_ms.append((time.perf_counter() - started) * 1000)
        if events:
            try:
                self._on_commit(events)
            except Exception:
                log.exception("publishing committed events failed")
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if not future.done():
                future.set_result(outcome)

    def _apply(self, conn: sqlite3.Connection, commands: list[Command]
               ) -> tuple[list[Outcome], list[StoredEvent], int | None, tuple[int, str] | None]:
        conn.execute("BEGIN IMMEDIATE")
        projections.deferred.touches = {}
        try:
            # data_version changes only when another connection commits; read under the write lock, nobody can
            # commit before our COMMIT, so this is the version our commit leaves.
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if self._known is not None and self._known[0] == version:
                # Nobody else wrote since our last commit: the log ends where we left it, with the chain we remember.
                tx = Tx(conn, self._next_sequence, now_iso(), self._known[1])
            else:
                # Another process (the `lineup` CLI) may have appended since our last batch: continue after its
                # rows and publish them first, so live receivers see no gap.
                self.stats.log_reads += 1
                foreign = read_all_with_recipients(conn, after=self._next_sequence - 1)
                next_sequence = foreign[-1].sequence + 1 if foreign else self._next_sequence
                tx = Tx(conn, next_sequence, now_iso())
                tx.events.extend(foreign)
            outcomes = [self._apply_one(tx, cmd) for cmd in commands]
            projections.flush_touches(conn)
            conn.execute("COMMIT")
        except Exception as exc:  # whatever failed, the transaction must not stay open for the next batch
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error) and is_disk_full(exc):
                log.warning("disk full: a batch of %d commands was refused with storage_full", len(commands))
                err = LapError("storage_full", "The hub's disk is full; nothing was stored.")
            else:
                log.exception("batch transaction failed")
                err = LapError("internal", "The hub could not store the batch; nothing was stored.")
            # Nothing committed: keep our counter, so the next batch still reads and publishes the rows
            # another process appended (restarting from the head would skip them); forget the chain value.
            return [Outcome(error=err) for _ in commands], [], self._next_sequence, None
        finally:
            projections.deferred.touches = None
        return outcomes, tx.events, tx.next_sequence, (version, tx.prev_chain)

    @staticmethod
    def _apply_one(tx: Tx, cmd: Command) -> Outcome:
        conn = tx.conn
        if cmd.dedupe_id is not None:
            if cmd.workspace_id is None:
                row = conn.execute("SELECT sequence, request_hash FROM events WHERE id = ?",
                                   (cmd.dedupe_id,)).fetchone()
            else:
                row = conn.execute("SELECT sequence, request_hash FROM events WHERE id = ? AND workspace_id = ?",
                                   (cmd.dedupe_id, cmd.workspace_id)).fetchone()
            if row is not None:
                if cmd.request_hash is not None and row[1] != cmd.request_hash:
                    return Outcome(error=LapError(
                        "conflict", f"Envelope id {cmd.dedupe_id!r} was already used for a different envelope."))
                return Outcome(sequence=row[0], duplicate=True)
        first_event, sequence_before, chain_before = len(tx.events), tx.next_sequence, tx.prev_chain
        tx.dedupe = (cmd.dedupe_id, cmd.request_hash)
        changes, deferred = conn.total_changes, projections.deferred.touches
        if not cmd.writes_last:  # exactly as before batches deferred anything: touches written, each one at once
            projections.flush_touches(conn)
            projections.deferred.touches = None
            conn.execute("SAVEPOINT command")
        try:
            value = cmd.run(tx)
        except (LapError, sqlite3.IntegrityError, Exception) as exc:
            if isinstance(exc, sqlite3.Error) and is_disk_full(exc):
                raise  # the whole batch fails with storage_full
            if cmd.writes_last:
                if conn.total_changes != changes:
                    raise  # it wrote, then failed: only the batch's ROLLBACK can take its rows back
            else:
                conn.execute("ROLLBACK TO command")
                conn.execute("RELEASE command")
            del tx.events[first_event:]
            tx.next_sequence = sequence_before
            tx.prev_chain = chain_before
            if isinstance(exc, LapError):
                return Outcome(error=exc)
            if isinstance(exc, sqlite3.IntegrityError):
                return Outcome(error=LapError("conflict", f"That id is already taken: {exc}"))
            log.exception("command failed")
            return Outcome(error=LapError("internal",
                                          f"The hub failed to process this envelope ({type(exc).__name__})."))
        finally:
            if not cmd.writes_last:
                projections.deferred.touches = deferred
        if not cmd.writes_last:
            conn.execute("RELEASE command")
        new_events = tx.events[first_event:]
        sequence = None
        for event in new_events:
            if event.id == cmd.dedupe_id or sequence is None:
                sequence = event.sequence
                if event.id == cmd.dedupe_id:
                    break
        return Outcome(sequence=sequence, value=value, events=new_events)
