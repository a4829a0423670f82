"""Lookups by id in a table the caller names (a literal of the code, never input), shared by handlers."""

from __future__ import annotations

import sqlite3
from typing import Literal, get_args

# The tables these reads may name; anything else is a programming error, caught before any SQL is built.
Table = Literal["artifacts", "conversations", "interactions", "tasks"]
_TABLES = frozenset(get_args(Table))


def _checked(table: Table) -> str:
    if table not in _TABLES:
        raise ValueError(f"not a projection table: {table!r}")
    return table


def id_taken(conn: sqlite3.Connection, table: Table, object_id: str, workspace_id: str) -> bool:
    """Whether `table` has a row with this id in this workspace."""
    sql = f"SELECT 1 FROM {_checked(table)} WHERE id = ? AND workspace_id = ?"
    return conn.execute(sql, (object_id, workspace_id)).fetchone() is not None
