"""The tamper-evident chain of the log: each event's `chain` is a SHA-256 over its row and the previous chain.

Editing, deleting or reordering any row breaks every chain value after it, so `lineup db verify` names the
first bad sequence, and an export (`lineup export`) can be checked elsewhere with the same few lines of code:
chain[n] = sha256(chain[n-1] + "\\n" + canonical JSON of the row's fields), chain[0] = 64 zeros.
Deleting the newest rows leaves a chain that still holds: hub/store/anchor.py keeps the head outside the database.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import msgspec

GENESIS = "0" * 64
CHAINED_COLUMNS = ("sequence", "id", "type", "workspace_id", "conversation_id", "task_id", "correlation_id",
                   "actor", "occurred_at", "recorded_at", "payload")


def link(previous: str, row: tuple[Any, ...]) -> str:
    """The chain value of a row (its CHAINED_COLUMNS, the payload as the stored JSON text)."""
    canonical = json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(f"{previous}\n{canonical}".encode()).hexdigest()


_encode = msgspec.json.Encoder().encode


def link_row(previous: str, row: tuple[Any, ...]) -> str:
    """`link`, ~3x cheaper, for the writer's rows: the same value, byte for byte.

    For str (every code point: control characters, quotes, non-ASCII, U+2028, lone surrogates raise the same
    UnicodeEncodeError), int and None, msgspec writes exactly what json.dumps(ensure_ascii=False, separators=
    (",", ":")) writes (tests/unit/store/test_chain.py checks it). Anything else (floats, bools, dicts, str or
    int subclasses) and anything msgspec refuses (ints beyond 64 bits) goes through `link` itself.
    """
    for value in row:
        if value is not None and type(value) is not str and type(value) is not int:
            return link(previous, row)
    try:
        canonical = _encode(row)
    except Exception:  # noqa: BLE001 - whatever msgspec refuses, json.dumps decides (raises the same as before)
        return link(previous, row)
    return hashlib.sha256(b"%s\n%s" % (previous.encode(), canonical)).hexdigest()


def previous_chain(conn: sqlite3.Connection, sequence: int) -> str:
    if sequence <= 0:
        return GENESIS
    row = conn.execute("SELECT chain FROM events WHERE sequence = ?", (sequence,)).fetchone()
    return str(row[0]) if row and row[0] else GENESIS


def rows(conn: sqlite3.Connection, after: int = 0) -> Iterator[sqlite3.Row]:
    while True:
        page = conn.execute(f"SELECT {', '.join(CHAINED_COLUMNS)}, chain FROM events WHERE sequence > ? "
                            "ORDER BY sequence LIMIT 1000", (after,)).fetchall()
        if not page:
            return
        yield from page
        after = page[-1][0]


def verify(conn: sqlite3.Connection, start: tuple[int, str] = (0, GENESIS)) -> tuple[int, str] | None:
    """(first bad sequence, what is wrong), or None when every link after `start` (sequence, its chain) holds."""
    previous, expected_sequence = start[1], start[0] + 1
    for row in rows(conn, start[0]):
        values = tuple(row)[:-1]
        if row[0] != expected_sequence:
            return expected_sequence, f"sequence {expected_sequence} is missing (next row is {row[0]})"
        if link_row(previous, values) != row[-1]:
            return row[0], "the row does not match its chain value (edited, or moved from elsewhere)"
        previous, expected_sequence = row[-1], expected_sequence + 1
    return None


def backfill(conn: sqlite3.Connection) -> None:
    """Compute the chain for rows written before it existed (migration m006)."""
    previous = GENESIS
    for row in list(rows(conn)):
        value = link(previous, tuple(row)[:-1])
        conn.execute("UPDATE events SET chain = ? WHERE sequence = ?", (value, row[0]))
        previous = value
