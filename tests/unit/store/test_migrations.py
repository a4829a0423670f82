"""Migrations: applied once each, recorded by name; the epoch is created once and never changes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.core import Hub
from hub.settings import load_settings
from hub.store import chain, database, migrations
from hub.store.migrations import MIGRATIONS, PROJECTION_TABLES, migrate, read_meta
from hub.store.rebuild import check
from tests.unit.scenario import World


def open_db(path: Path) -> sqlite3.Connection:
    return database.connect_sync(path)


def test_migrations_apply_once_and_are_recorded(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "x.db")
    try:
        names = [m.__name__ for m in MIGRATIONS]
        assert migrate(conn) == names
        assert migrate(conn) == []
        recorded = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")]
        assert recorded == sorted(names)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"events", "event_recipients", "meta", *PROJECTION_TABLES} <= tables
        assert conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'epoch'").fetchone()[0] == 1
    finally:
        conn.close()


def test_epoch_and_hub_id_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    conn = open_db(path)
    migrate(conn)
    epoch, hub_id = read_meta(conn, "epoch"), read_meta(conn, "hub_id")
    conn.close()
    assert len(epoch) == 32 and len(hub_id) == 16
    conn = open_db(path)
    try:
        assert migrate(conn) == []
        assert (read_meta(conn, "epoch"), read_meta(conn, "hub_id")) == (epoch, hub_id)
    finally:
        conn.close()
    other = open_db(tmp_path / "y.db")
    try:
        migrate(other)
        assert read_meta(other, "epoch") != epoch  # another database, another log
    finally:
        other.close()


def test_read_meta_on_an_unmigrated_database_says_so(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "x.db")
    try:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        with pytest.raises(LookupError, match="epoch"):
            read_meta(conn, "epoch")
    finally:
        conn.close()


def test_a_failing_migration_leaves_nothing_and_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def m003_broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("migration bug")

    def m003_fixed(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")

    conn = open_db(tmp_path / "x.db")
    try:
        migrate(conn)
        m003_fixed.__name__ = m003_broken.__name__ = "m999_add_table"
        monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, m003_broken])
        with pytest.raises(RuntimeError):
            migrate(conn)
        assert not conn.in_transaction
        assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM migrations WHERE name = 'm999_add_table'").fetchone()[0] == 0
        monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, m003_fixed])
        assert migrate(conn) == ["m999_add_table"]
    finally:
        conn.close()


async def test_hub_keeps_its_epoch_across_restarts(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": tmp_path}, environ={})
    epochs = []
    for _ in range(2):
        hub = Hub(settings)
        await hub.start()
        epochs.append((hub.epoch, hub.hub_id))
        await hub.stop()
    assert epochs[0] == epochs[1] and epochs[0][0]


# ---- m007: object and envelope ids unique within a workspace ---------------------------------------------------

COPIED = ("events", "event_recipients", *PROJECTION_TABLES)


def rows(conn: sqlite3.Connection, table: str) -> list[tuple[object, ...]]:
    return sorted((tuple(r) for r in conn.execute(f"SELECT * FROM {table}")), key=repr)


def schema(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return [tuple(r) for r in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")]


def test_m007_keeps_every_row_of_a_database_made_before_it(
        populated: tuple[Path, World], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database of m001–m006 (ids unique hub-wide) filled with the scenario's log: m007 keeps every row, the
    chain and the projections still check, and the schema is then exactly a new database's."""
    source = open_db(populated[0])
    old = open_db(tmp_path / "old.db")
    fresh = open_db(tmp_path / "fresh.db")
    try:
        m007 = MIGRATIONS.index(migrations.m007_scope_ids_to_workspaces)
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:m007])
        migrate(old)
        monkeypatch.undo()
        assert old.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_autoindex_events_1'").fetchone()[0]
        copied = [t for t in COPIED if old.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                                   (t,)).fetchone()]  # not the tables later migrations make
        for table in copied:  # the rows as the old hub wrote them (these ids never repeat across workspaces)
            columns = ", ".join(r[1] for r in old.execute(f"PRAGMA table_info({table})"))
            old.executemany(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(columns.split(', ')))})",
                            source.execute(f"SELECT {columns} FROM {table}").fetchall())
        workspace = old.execute("SELECT id FROM workspaces").fetchone()[0]
        old.execute("INSERT INTO tool_calls (id, workspace_id, call_id, caller_kind, caller_id, name, arguments, "
                    "target_kind, status, created_at, last_sequence) "
                    "VALUES ('call-1', ?, 'c1', 'app', 'dev', 'canvas', '{}', 'hub', 'pending', 'now', 1)", (workspace,))
        old.execute("INSERT INTO tool_instances (id, workspace_id, tool, state, status, created_by, created_at, "
                    "updated_at, last_sequence) VALUES ('inst-1', ?, 'canvas', '{}', 'open', 'hub', 'now', 'now', 1)",
                    (workspace,))
        before = {table: rows(old, table) for table in copied}
        assert all(before[t] for t in ("events", "event_recipients", "conversations", "messages", "tasks",
                                       "interactions", "artifacts", "tool_calls", "tool_instances"))

        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:m007 + 1])  # m007 alone: later ones add columns
        assert migrate(old) == ["m007_scope_ids_to_workspaces"]
        monkeypatch.undo()

        assert {table: rows(old, table) for table in copied} == before
        assert chain.verify(old) is None
        assert migrate(old) == [m.__name__ for m in MIGRATIONS[m007 + 1:]]
        old.execute("DELETE FROM tool_calls")  # put in by hand above, not from the log
        old.execute("DELETE FROM tool_instances")
        report = check(old)
        assert report.ok, report.problems
        migrate(fresh)
        assert schema(old) == schema(fresh)
        # The keys are now per workspace: an id another workspace uses is free, one of the same workspace is not.
        conversation = old.execute("SELECT * FROM conversations").fetchone()
        event = old.execute("SELECT * FROM events WHERE workspace_id IS NOT NULL").fetchone()
        old.execute("INSERT INTO conversations (id, workspace_id, title, created_by, created_at, updated_at, "
                    "last_sequence) VALUES (?, 'ws_other', 't', 'hub', 'now', 'now', 1)", (conversation["id"],))
        old.execute("INSERT INTO events (sequence, id, type, workspace_id, actor, occurred_at, recorded_at, payload) "
                    "VALUES (100000, ?, 'test.noted', 'ws_other', 'hub', 'now', 'now', '{}')", (event["id"],))
        with pytest.raises(sqlite3.IntegrityError):
            old.execute("INSERT INTO conversations (id, workspace_id, title, created_by, created_at, updated_at, "
                        "last_sequence) VALUES (?, ?, 't', 'hub', 'now', 'now', 1)",
                        (conversation["id"], conversation["workspace_id"]))
        with pytest.raises(sqlite3.IntegrityError):
            old.execute("INSERT INTO events (sequence, id, type, workspace_id, actor, occurred_at, recorded_at, "
                        "payload) VALUES (100001, ?, 'test.noted', ?, 'hub', 'now', 'now', '{}')",
                        (event["id"], event["workspace_id"]))
    finally:
        for conn in (source, old, fresh):
            conn.close()
