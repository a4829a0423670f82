"""Connections: the pragmas every hub connection uses, and running a function in the connection's thread."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from hub.store import database


def test_configure_sets_wal_full_sync_and_foreign_keys(tmp_path: Path) -> None:
    conn = database.connect_sync(tmp_path / "x.db")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    finally:
        conn.close()


def test_normal_sync_and_page_cap_are_applied(tmp_path: Path) -> None:
    conn = database.connect_sync(tmp_path / "x.db", synchronous="NORMAL", max_pages=5000)
    try:
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1
        assert conn.execute("PRAGMA max_page_count").fetchone()[0] == 5000
    finally:
        conn.close()


def test_unknown_synchronous_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        database.connect_sync(tmp_path / "x.db", synchronous="OFF")


async def test_run_executes_in_the_connection_thread(tmp_path: Path) -> None:
    conn = await database.connect(tmp_path / "x.db")
    try:
        thread = await database.run(conn, lambda c: threading.current_thread())
        assert thread is not threading.current_thread()
        assert await database.run(conn, lambda c: c.execute("SELECT 40 + 2").fetchone()[0]) == 42
        assert await database.run(conn, lambda c: c.isolation_level) is None  # autocommit: BEGIN is explicit
    finally:
        await conn.close()
