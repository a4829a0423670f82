"""Reads of the hub's own key/value row (meta) and of SQLite's change counter."""

from __future__ import annotations

import sqlite3


def hub_name(conn: sqlite3.Connection) -> str | None:
    """The hub's name as setup stored it, or None before setup named it."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'hub_name'").fetchone()
    return None if row is None else str(row[0])


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's data_version on this connection: it moves when another connection commits (the `lineup` CLI)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])
