"""Opening the SQLite file: pragmas, the writer and reader connections, and running code in their thread."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable, TypeVar

import aiosqlite

T = TypeVar("T")

SYNCHRONOUS_MODES = ("FULL", "NORMAL")


def configure(conn: sqlite3.Connection, *, synchronous: str = "FULL", max_pages: int | None = None) -> None:
    """Pragmas every connection of the hub uses (shared/QUALITY.md design rules 1 and M2)."""
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


def connect_sync(path: Path | str, **kwargs: Any) -> sqlite3.Connection:
    """A plain sqlite3 connection, for the CLI (db check, rebuild) and for tests."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    configure(conn, **kwargs)
    return conn


async def connect(path: Path | str, **kwargs: Any) -> aiosqlite.Connection:
    """An aiosqlite connection in autocommit mode: transactions are opened explicitly with BEGIN."""
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    await run(conn, lambda c: configure(c, **kwargs))
    return conn


async def run(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run `fn(sqlite3_connection)` in the connection's own thread: one thread hop for a whole batch.

    aiosqlite costs one hop (~50 µs) per awaited statement, which caps ingest at a few thousand events a
    second (shared/QUALITY.md rule 2). Its `_execute` runs any callable in that thread; it is private API,
    hence the pinned version range in pyproject.toml and this single place that uses it.
    """
    return await conn._execute(lambda: fn(conn._conn))  # noqa: SLF001
