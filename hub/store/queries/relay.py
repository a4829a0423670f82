"""Writes to the relay's key/value state beside the ones in hub/relay/store.py (to join them when its tables move)."""

from __future__ import annotations

import sqlite3


def forget_relay_state(conn: sqlite3.Connection, key: str) -> None:
    """Delete one relay_state key (inside the writer's transaction)."""
    conn.execute("DELETE FROM relay_state WHERE key = ?", (key,))
