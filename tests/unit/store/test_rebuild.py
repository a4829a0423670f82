"""`lineup db check` and `lineup db rebuild`: invariants of the log and projections equal to a replay."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.store import database
from hub.store.migrations import PROJECTION_TABLES
from hub.store.rebuild import check, open_for_maintenance, rebuild
from tests.unit.scenario import World

Snapshot = dict[str, list[tuple[object, ...]]]


# The projections tests/unit/scenario.py writes rows into; extend both when the scenario grows.
FILLED_BY_SCENARIO = ("workspaces", "users", "devices", "pairing_codes", "agents", "credentials", "conversations",
                      "messages", "tasks", "interactions", "artifacts", "sign_in_links")


def snapshot(conn: sqlite3.Connection) -> Snapshot:
    # Sorted in Python: not every projection has an `id` column.
    return {t: sorted((tuple(r) for r in conn.execute(f"SELECT * FROM {t}")), key=repr) for t in PROJECTION_TABLES}


@pytest.fixture
def maintenance(populated: tuple[Path, World]) -> Iterator[sqlite3.Connection]:
    conn = open_for_maintenance(populated[0])
    yield conn
    conn.close()


def test_check_passes_on_a_healthy_database(maintenance: sqlite3.Connection) -> None:
    report = check(maintenance)
    assert report.ok, report.problems
    head = maintenance.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
    assert report.events == report.head == head > 20
    # The scenario fills every projection, so comparing them with a replay is not vacuous.
    empty = [table for table in FILLED_BY_SCENARIO if not snapshot(maintenance)[table]]
    assert not empty, f"extend tests/unit/scenario.py so it writes rows into {empty}"


def test_check_finds_a_hole_in_the_log(maintenance: sqlite3.Connection) -> None:
    maintenance.execute("DELETE FROM events WHERE sequence = 5")
    report = check(maintenance)
    assert not report.ok
    assert any("holes" in p for p in report.problems), report.problems


def test_check_finds_a_dangling_recipient(maintenance: sqlite3.Connection) -> None:
    sequence = maintenance.execute("SELECT sequence FROM event_recipients LIMIT 1").fetchone()[0]
    maintenance.execute("DELETE FROM events WHERE sequence = ?", (sequence,))
    assert any("recipient rows point at missing events" in p for p in check(maintenance).problems)


def test_check_finds_a_tampered_projection(maintenance: sqlite3.Connection) -> None:
    maintenance.execute("UPDATE tasks SET title = 'tampered' WHERE id = 't1'")
    report = check(maintenance)
    assert [p for p in report.problems if p.startswith("projection ")] == [
        "projection tasks differs from a replay of the log: 1 rows only in the table, 1 only in the replay"]


def test_check_finds_a_missing_and_an_extra_projection_row(maintenance: sqlite3.Connection) -> None:
    maintenance.execute("DELETE FROM artifacts")
    maintenance.execute("INSERT INTO workspaces (id, name, created_at) VALUES ('ws_x', 'forged', 'now')")
    problems = check(maintenance).problems
    assert any(p.startswith("projection artifacts") and "1 only in the replay" in p for p in problems)
    assert any(p.startswith("projection workspaces") and "1 rows only in the table" in p for p in problems)


def corrupt_index(db_path: Path) -> None:
    """Change one key inside the events_by_workspace index page, so the index no longer matches its table."""
    conn = database.connect_sync(db_path)
    root, = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events_by_workspace'").fetchone()
    workspace_id, = conn.execute("SELECT workspace_id FROM events WHERE workspace_id IS NOT NULL LIMIT 1").fetchone()
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db_path.read_bytes())
    page = data[(root - 1) * page_size: root * page_size]
    at = page.find(workspace_id.encode())
    assert at > 0, "the index page holds the workspace id"
    data[(root - 1) * page_size + at + len(workspace_id) - 1] ^= 0x01  # flip the last character of one key
    db_path.write_bytes(bytes(data))


def test_check_reports_failed_integrity(populated: tuple[Path, World]) -> None:
    db_path, _ = populated
    corrupt_index(db_path)
    conn = database.connect_sync(db_path)
    try:
        problems = check(conn).problems
    finally:
        conn.close()
    assert any(p.startswith("SQLite integrity_check:") and "events_by_workspace" in p for p in problems), problems


def test_rebuild_restores_projections_identical_to_before(maintenance: sqlite3.Connection) -> None:
    before = snapshot(maintenance)
    maintenance.execute("UPDATE tasks SET title = 'tampered', status = 'failed'")
    maintenance.execute("DELETE FROM users")
    maintenance.execute("DELETE FROM messages")
    assert not check(maintenance).ok
    events = maintenance.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert rebuild(maintenance) == events
    assert snapshot(maintenance) == before
    assert check(maintenance).ok
    assert not maintenance.in_transaction


def test_open_for_maintenance_refuses_a_missing_database(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no database"):
        open_for_maintenance(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()  # and does not create one
