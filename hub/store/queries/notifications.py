"""The notifier's durable state (its cursor and outbox), and the reads it chooses and composes notifications with."""
# The cursor and the outbox are the notifier's own bookkeeping, not projections of the log: a migration makes them
# (hub/store/migrations.py, m005_create_notifications) and every write goes through the hub's one writer, the
# outbox rows in the same transaction as the cursor that accounts for them
# (docs/style.md#the-log-and-its-projections). Writes take the writer's Tx; reads take whichever connection the
# caller reads on (the hub's read connection, or the writer's inside a command).

from __future__ import annotations

import sqlite3

from hub.protocol.envelope import new_id, now_iso
from hub.store.events import COLUMNS, StoredEvent, head_sequence, row_to_event
from hub.store.queries.records import (
    OutboxErrorRecord,
    OutboxLogRecord,
    OutboxRecord,
    fetch_all,
    fetch_one,
    select_list,
)
from hub.store.writer import Tx

# ---- the cursor ------------------------------------------------------------------------------------------


def cursor(conn: sqlite3.Connection) -> int:
    """The sequence of the last event the notifier examined."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'notify_cursor'").fetchone()
    assert row is not None  # the migrations insert it
    return int(row[0])


# The events that may notify (hub/notify/compose.py kind_of decides): every event of these types, and a message
# that carries "attention". The partial index events_may_notify (migration m015) holds exactly the rows this
# condition selects, written as the index's own WHERE so SQLite uses it: the cursor passes over the rest (a log of
# ordinary messages) without reading them.
MAY_NOTIFY = ("(type IN ('interaction.requested', 'task.status_changed', 'agent.status_changed') "
              "OR (type = 'message.created' AND instr(payload, '\"attention\"') > 0))")


def may_notify_after(conn: sqlite3.Connection, after: int, limit: int) -> tuple[list[StoredEvent], int]:
    """The events after `after` that may notify, at most `limit`, and the sequence the cursor may move to: the last
    of them when there were `limit`, else the head (every event up to it was looked at)."""
    rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE sequence > ? AND {MAY_NOTIFY} ORDER BY sequence "
                        "LIMIT ?", (after, limit)).fetchall()
    page = [row_to_event(row) for row in rows]
    return page, (page[-1].sequence if len(page) == limit else max(after, head_sequence(conn)))


def set_cursor(tx: Tx, sequence: int) -> None:
    """Record the last event the notifier examined."""
    # meta holds text values: the cursor is stored as the decimal string `cursor` reads back.
    tx.conn.execute("UPDATE meta SET value = ? WHERE key = 'notify_cursor'", (str(sequence),))


# ---- the outbox ------------------------------------------------------------------------------------------


def enqueue(tx: Tx, channel: str, kind: str, subject_key: str, event_sequence: int, workspace_id: str,
            notification: str, now: str) -> None:
    """Queue a notification (JSON) for a channel, due `now`, unless the channel has one for this subject already."""
    # OR IGNORE on the unique (channel, subject_key): a replay, a reconnecting client or a restart that examines an
    # event again never queues its notification twice.
    tx.conn.execute(
        "INSERT OR IGNORE INTO notification_outbox (id, channel, kind, subject_key, event_sequence, "
        "workspace_id, notification, status, next_attempt_at, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
        (new_id("out"), channel, kind, subject_key, event_sequence, workspace_id, notification, now, now))


def enqueue_test(tx: Tx, channel: str, subject_key: str, workspace_id: str, notification: str, now: str) -> None:
    """Queue a test notification (JSON) for a channel, due `now`; it answers no event (event_sequence 0)."""
    # A plain INSERT: the subject key names the test notification's own fresh id, so it never collides.
    tx.conn.execute(
        "INSERT INTO notification_outbox (id, channel, kind, subject_key, event_sequence, workspace_id, "
        "notification, status, next_attempt_at, created_at) "
        "VALUES (?, ?, 'test', ?, 0, ?, ?, 'pending', ?, ?)",
        (new_id("out"), channel, subject_key, workspace_id, notification, now, now))


def pending(conn: sqlite3.Connection, channel: str) -> list[OutboxRecord]:
    """A channel's pending notification_outbox rows, the soonest due first, 100 of them."""
    return fetch_all(conn, OutboxRecord, f"SELECT {select_list(OutboxRecord)} FROM notification_outbox "
                     "WHERE channel = ? AND status = 'pending' ORDER BY next_attempt_at LIMIT 100", (channel,))


def mark(tx: Tx, row_id: str, status: str, error: str | None, attempts: int | None) -> None:
    """Set an outbox row's status, and its last error and attempts when given; stamp delivered_at if delivered."""
    # delivered_at is set for 'delivered' and cleared for any other status, so it always matches the status.
    tx.conn.execute("UPDATE notification_outbox SET status = ?, last_error = COALESCE(?, last_error), "
                    "attempts = COALESCE(?, attempts), delivered_at = ? WHERE id = ?",
                    (status, error, attempts, now_iso() if status == "delivered" else None, row_id))


def reschedule(tx: Tx, row_id: str, next_attempt_at: str, error: str | None, *, count: bool) -> None:
    """Make an outbox row due later, with its last error when given; count an attempt only when `count`."""
    # Quiet hours and the rate limit delay a row without counting an attempt: only failures use up MAX_ATTEMPTS.
    tx.conn.execute("UPDATE notification_outbox SET next_attempt_at = ?, last_error = COALESCE(?, last_error), "
                    "attempts = attempts + ? WHERE id = ?", (next_attempt_at, error, 1 if count else 0, row_id))


def status_counts(conn: sqlite3.Connection, channel: str, workspace_id: str) -> dict[str, int]:
    """How many of a channel's outbox rows for a workspace are in each status."""
    return {r[0]: r[1] for r in conn.execute(
        "SELECT status, COUNT(*) FROM notification_outbox WHERE channel = ? AND workspace_id = ? GROUP BY status",
        (channel, workspace_id))}


def last_error(conn: sqlite3.Connection, channel: str, workspace_id: str) -> OutboxErrorRecord | None:
    """The newest (last_error, created_at) of a channel's outbox rows for a workspace that have an error."""
    return fetch_one(conn, OutboxErrorRecord, f"SELECT {select_list(OutboxErrorRecord)} FROM notification_outbox "
                     "WHERE channel = ? AND workspace_id = ? AND last_error IS NOT NULL ORDER BY created_at DESC "
                     "LIMIT 1", (channel, workspace_id))


def recent(conn: sqlite3.Connection, channel: str, workspace_id: str) -> list[OutboxLogRecord]:
    """A channel's newest 20 outbox rows for a workspace, with what the delivery log shows of each."""
    return fetch_all(conn, OutboxLogRecord, f"SELECT {select_list(OutboxLogRecord)} FROM notification_outbox "
                     "WHERE channel = ? AND workspace_id = ? ORDER BY created_at DESC LIMIT 20",
                     (channel, workspace_id))


# ---- reads of the projections the notifier decides and composes with -------------------------------------


def workspaces(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The hub's workspaces as (id, name), oldest first: the first one is the hub owner's (`lineup token`)."""
    # rowid breaks a tie of created_at, so "the first workspace" is the same one on every read.
    return [(r[0], r[1]) for r in conn.execute("SELECT id, name FROM workspaces ORDER BY created_at, rowid")]


def is_subtask(conn: sqlite3.Connection, task_id: str | None, workspace_id: str) -> bool:
    """Whether this workspace has a task with this id that is a step of a larger task (has a parent)."""
    return conn.execute("SELECT 1 FROM tasks WHERE id = ? AND workspace_id = ? AND parent_task_id IS NOT NULL",
                        (task_id, workspace_id)).fetchone() is not None


def agent_name(conn: sqlite3.Connection, agent_id: str) -> str | None:
    """An agent's name, in any workspace, revoked or not; None when there is no such agent."""
    row = conn.execute("SELECT name FROM agents WHERE id = ?", (agent_id,)).fetchone()
    return None if row is None else str(row[0])


def open_task_count_of_agent(conn: sqlite3.Connection, agent_id: str) -> int:
    """How many of an agent's tasks are running or waiting for a person (they wait for the agent to come back)."""
    return int(conn.execute("SELECT COUNT(*) FROM tasks WHERE agent_id = ? AND status IN ('running', "
                            "'waiting_for_human')", (agent_id,)).fetchone()[0])


def interaction_status(conn: sqlite3.Connection, interaction_id: str, workspace_id: str) -> str | None:
    """An interaction's status, or None when this workspace has no interaction with this id."""
    row = conn.execute("SELECT status FROM interactions WHERE id = ? AND workspace_id = ?",
                       (interaction_id, workspace_id)).fetchone()
    return None if row is None else str(row[0])
