"""The notifier's cursor reads only the events that may notify, through their own small index."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from hub.notify.compose import kind_of
from hub.notify.config import KINDS
from hub.store.events import StoredEvent
from hub.store.migrations import migrate
from hub.store.queries.notifications import MAY_NOTIFY, may_notify_after

# One event for every kind the notifier knows; a kind added to KINDS needs its sample here, and MAY_NOTIFY (with
# the index's WHERE in a new migration) must select it, or its notifications would never be composed.
SAMPLES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "waiting_for_me": ("interaction.requested", "agent:a", {"title": "May I?"}),
    "failed": ("task.status_changed", "agent:a", {"status": "failed"}),
    "succeeded": ("task.status_changed", "agent:a", {"status": "succeeded"}),
    "agent_offline": ("agent.status_changed", "hub", {"status": "offline", "reason": "heartbeat_timeout"}),
    "agent_waiting": ("message.created", "agent:a", {"content": "Look", "attention": True}),
}
ORDINARY = ("message.created", "agent:a", {"content": "progress: 3 of 9"})


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db)
    yield db
    db.close()


def append(conn: sqlite3.Connection, type_: str, actor: str, payload: dict[str, Any]) -> int:
    sequence = conn.execute("SELECT COALESCE(MAX(sequence), 0) + 1 FROM events").fetchone()[0]
    conn.execute("INSERT INTO events (sequence, id, type, workspace_id, actor, occurred_at, recorded_at, payload) "
                 "VALUES (?, ?, ?, 'ws', ?, 'now', 'now', ?)",
                 (sequence, f"evt{sequence}", type_, actor, json.dumps(payload, separators=(",", ":"))))
    return int(sequence)


def event(type_: str, actor: str, payload: dict[str, Any]) -> StoredEvent:
    return StoredEvent(1, "evt", type_, "ws", None, None, None, actor, "now", "now", payload)


def test_every_kind_has_a_sample_that_the_cursor_reads(conn: sqlite3.Connection) -> None:
    assert set(SAMPLES) == set(KINDS)
    sequences = {}
    for kind, sample in SAMPLES.items():
        assert kind_of(event(*sample)) == kind
        append(conn, *ORDINARY)
        sequences[append(conn, *sample)] = kind
    append(conn, *ORDINARY)
    page, upto = may_notify_after(conn, 0, 500)
    assert [e.sequence for e in page] == sorted(sequences)
    assert upto == 2 * len(SAMPLES) + 1  # the head: every event up to it was looked at


def test_ordinary_messages_move_the_cursor_to_the_head_unread(conn: sqlite3.Connection) -> None:
    assert kind_of(event(*ORDINARY)) is None
    for _ in range(30):
        append(conn, *ORDINARY)
    assert may_notify_after(conn, 0, 500) == ([], 30)
    assert may_notify_after(conn, 30, 500) == ([], 30)


def test_a_full_page_moves_the_cursor_to_its_last_event(conn: sqlite3.Connection) -> None:
    for _ in range(5):
        append(conn, *SAMPLES["failed"])
        append(conn, *ORDINARY)
    page, upto = may_notify_after(conn, 0, 3)
    assert [e.sequence for e in page] == [1, 3, 5] and upto == 5


def test_the_read_uses_the_partial_index(conn: sqlite3.Connection) -> None:
    plan = " ".join(str(row[-1]) for row in conn.execute(
        f"EXPLAIN QUERY PLAN SELECT sequence FROM events WHERE sequence > ? AND {MAY_NOTIFY} ORDER BY sequence "
        "LIMIT 500", (0,)))
    assert "USING INDEX events_may_notify" in plan, plan
