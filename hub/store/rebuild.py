"""`lineup db rebuild` and `lineup db check`: the projections must be exactly a replay of the log."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hub.store import chain, database, projections
from hub.store.events import read_all
from hub.store.migrations import PROJECTION_TABLES, migrate


def replay_into(source: sqlite3.Connection, target: sqlite3.Connection) -> int:
    """Apply every event of `source` to the (empty) projections of `target`; returns the events replayed."""
    after, count = 0, 0
    while True:
        page = read_all(source, after)
        if not page:
            return count
        for event in page:
            projections.apply(target, event)
        after = page[-1].sequence
        count += len(page)


def rebuild(conn: sqlite3.Connection) -> int:
    """Empty the projections and replay the log into them, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in PROJECTION_TABLES:
            conn.execute(f"DELETE FROM {table}")
        count = replay_into(conn, conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return count


def _rows(conn: sqlite3.Connection, table: str) -> Counter[tuple[object, ...]]:
    # A multiset: not every projection has an `id` column, and rows may hold NULLs (no sort needed).
    return Counter(tuple(r) for r in conn.execute(f"SELECT * FROM {table}"))


# Up to this many events the default check is the full one (a few seconds); above it, it starts from the checkpoint.
FULL_CHECK_UP_TO = 100_000
CHECKPOINT_KEY = "checked_head"  # in meta: "SEQUENCE:CHAIN", the head the last check found sound


@dataclass
class CheckReport:
    events: int = 0
    head: int = 0
    problems: list[str] = field(default_factory=list)
    checked_from: int = 0  # the chain was linked from this sequence (0: from the first event)
    replayed: bool = False  # the projections were compared with a replay of the whole log

    @property
    def ok(self) -> bool:
        return not self.problems


def read_checkpoint(conn: sqlite3.Connection) -> tuple[int, str] | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (CHECKPOINT_KEY,)).fetchone()
    if row is None:
        return None
    sequence, _, value = str(row[0]).partition(":")
    return (int(sequence), value) if sequence.isdigit() and len(value) == 64 else None


def check(conn: sqlite3.Connection, *, full: bool = False) -> CheckReport:
    """Every invariant of the log: integrity, no holes, unique ids, an unbroken chain, projections equal to a replay.

    A big log (over FULL_CHECK_UP_TO events) is checked from the checkpoint the last sound check stored: the chain
    is linked from there (the checkpoint's own row must still carry the chain value it had, so rewriting any row
    before it and recomputing the chain is found), SQLite's quick_check stands in for integrity_check, and the
    projections are not replayed. `full` checks everything from the first event. A sound check moves the checkpoint
    to the head it checked; it makes the check quick, it is no defence against someone who can write the file (the
    chain's anchor outside the database is: `lineup db verify`).
    """
    report = CheckReport()
    report.events, report.head, low = conn.execute(
        "SELECT COUNT(*), COALESCE(MAX(sequence), 0), COALESCE(MIN(sequence), 1) FROM events").fetchone()
    full = full or report.events <= FULL_CHECK_UP_TO
    integrity = [r[0] for r in conn.execute("PRAGMA integrity_check" if full else "PRAGMA quick_check")]
    if integrity != ["ok"]:
        report.problems.append("SQLite integrity_check: " + "; ".join(integrity[:5]))
    if report.events != report.head or low != 1:
        report.problems.append(f"the log has holes: {report.events} events but sequence runs {low}..{report.head}")
    start = (0, chain.GENESIS)
    checkpoint = None if full else read_checkpoint(conn)
    if checkpoint is not None and checkpoint[0] <= report.head:
        stored = conn.execute("SELECT chain FROM events WHERE sequence = ?", (checkpoint[0],)).fetchone()
        if checkpoint[0] > 0 and (stored is None or stored[0] != checkpoint[1]):
            report.problems.append(f"the chain value of sequence {checkpoint[0]} is not the one the last check found: "
                                   "an event at or before it was changed (`lineup db check --full` names it)")
        start = checkpoint
    elif checkpoint is not None:
        report.problems.append(f"the last check saw sequence {checkpoint[0]}, the log ends at {report.head}: events "
                               "were removed")
    report.checked_from = start[0]
    broken = chain.verify(conn, start)
    if broken is not None:
        report.problems.append(f"the chain breaks at sequence {broken[0]}: {broken[1]}")
    dangling = conn.execute("SELECT COUNT(*) FROM event_recipients r LEFT JOIN events e ON e.sequence = r.sequence "
                            "WHERE r.sequence > ? AND e.sequence IS NULL", (start[0],)).fetchone()[0]
    if dangling:
        report.problems.append(f"{dangling} recipient rows point at missing events")
    if full:
        _compare_projections(conn, report)
    if report.ok:
        head_chain = chain.previous_chain(conn, report.head)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                     (CHECKPOINT_KEY, f"{report.head}:{head_chain}"))
    return report


def _compare_projections(conn: sqlite3.Connection, report: CheckReport) -> None:
    report.replayed = True
    fresh = sqlite3.connect(":memory:")
    fresh.row_factory = sqlite3.Row
    migrate(fresh)
    replay_into(conn, fresh)
    for table in PROJECTION_TABLES:
        live, replayed = _rows(conn, table), _rows(fresh, table)
        if live != replayed:
            live_set, replayed_set = set(live), set(replayed)
            report.problems.append(f"projection {table} differs from a replay of the log: "
                                   f"{len(live_set - replayed_set)} rows only in the table, "
                                   f"{len(replayed_set - live_set)} only in the replay")
    fresh.close()


def open_for_maintenance(db_path: Path) -> sqlite3.Connection:
    if not db_path.exists():
        raise SystemExit(f"lineup: no database at {db_path}; start the hub once, or pass --data-dir.")
    conn = database.connect_sync(db_path)
    migrate(conn)
    return conn
