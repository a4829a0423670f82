"""`lineup db rebuild` and `lineup db check`: the projections must be exactly a replay of the log."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from hub.store import database, projections
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


def _rows(conn: sqlite3.Connection, table: str) -> list[tuple[object, ...]]:
    # Sorted in Python: not every projection has an `id` column, and rows may hold NULLs.
    return sorted((tuple(r) for r in conn.execute(f"SELECT * FROM {table}")), key=repr)


@dataclass
class CheckReport:
    events: int = 0
    head: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check(conn: sqlite3.Connection) -> CheckReport:
    """Every invariant of the log: integrity, no holes, unique ids, projections equal to a replay."""
    report = CheckReport()
    integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if integrity != ["ok"]:
        report.problems.append("SQLite integrity_check: " + "; ".join(integrity[:5]))
    report.events, report.head, low = conn.execute(
        "SELECT COUNT(*), COALESCE(MAX(sequence), 0), COALESCE(MIN(sequence), 1) FROM events").fetchone()
    if report.events != report.head or low != 1:
        report.problems.append(f"the log has holes: {report.events} events but sequence runs {low}..{report.head}")
    dangling = conn.execute("SELECT COUNT(*) FROM event_recipients r LEFT JOIN events e ON e.sequence = r.sequence "
                            "WHERE e.sequence IS NULL").fetchone()[0]
    if dangling:
        report.problems.append(f"{dangling} recipient rows point at missing events")
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
    return report


def open_for_maintenance(db_path: Path) -> sqlite3.Connection:
    if not db_path.exists():
        raise SystemExit(f"lineup: no database at {db_path}; start the hub once, or pass --data-dir.")
    conn = database.connect_sync(db_path)
    migrate(conn)
    return conn
