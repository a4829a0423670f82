"""Migrations: applied once each, recorded by name; the epoch is created once and never changes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.core import Hub
from hub.settings import load_settings
from hub.store import database, migrations
from hub.store.migrations import MIGRATIONS, PROJECTION_TABLES, migrate, read_meta


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
