"""Opening the SQLite file: pragmas, the writer and reader connections, and running code in their thread."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

T = TypeVar("T")

SYNCHRONOUS_MODES = ("FULL", "NORMAL")


def configure(conn: sqlite3.Connection, *, synchronous: str = "FULL", max_pages: int | None = None) -> None:
    """Pragmas every connection of the hub uses (docs/quality.md#ack-only-after-commit, target M2)."""
    if synchronous not in SYNCHRONOUS_MODES:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, not {synchronous!r}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    # Keeps the WAL file from growing without bound after a burst (M2).
    conn.execute("PRAGMA journal_size_limit=67108864")
    if max_pages:
        conn.execute(f"PRAGMA max_page_count={int(max_pages)}")


def owner_only_files(path: Path | str) -> None:
    """The database, its WAL and its shared-memory index are the owner's alone (0600), whatever the folder's mode.

    SQLite creates `-wal` and `-shm` with the mode of the database file itself, so a database created 0600 keeps
    all three 0600; files left 0644 by an older version are corrected here, each time a connection opens.
    """
    text = str(path)
    if os.name == "nt" or text == ":memory:" or text.startswith("file:"):
        return
    if not os.path.exists(text):
        os.close(os.open(text, os.O_WRONLY | os.O_CREAT, 0o600))  # SQLite takes an empty file as a new database
    for name in (text, text + "-wal", text + "-shm", text + "-journal"):
        try:
            if stat.S_IMODE(os.stat(name).st_mode) != 0o600:
                os.chmod(name, 0o600)
        except FileNotFoundError:
            pass


def connect_sync(path: Path | str, **kwargs: Any) -> sqlite3.Connection:
    """A plain sqlite3 connection, for the CLI (db check, rebuild) and for tests."""
    owner_only_files(path)
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    configure(conn, **kwargs)
    return conn


async def connect(path: Path | str, **kwargs: Any) -> aiosqlite.Connection:
    """An aiosqlite connection in autocommit mode: transactions are opened explicitly with BEGIN."""
    owner_only_files(path)
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    await run(conn, lambda c: configure(c, **kwargs))
    return conn


async def run(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run `fn(sqlite3_connection)` in the connection's own thread: one thread hop for a whole batch.

    aiosqlite costs one hop (~50 µs) per awaited statement, which caps ingest at a few thousand events a
    second (docs/quality.md#one-writer-group-commit). Its `_execute` runs any callable in that thread; it is private
    API, hence the pinned version range in pyproject.toml and this single place that uses it.
    """
    execute: Callable[[Callable[[], T]], Awaitable[T]] = conn._execute  # noqa: SLF001 - typed here: it has no annotations
    return await execute(lambda: fn(conn._conn))  # noqa: SLF001
