"""Reads of the interactions projection (questions for the person)."""

from __future__ import annotations

import sqlite3


def interaction(conn: sqlite3.Connection, interaction_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The interactions row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM interactions WHERE id = ? AND workspace_id = ?",
                                           (interaction_id, workspace_id)).fetchone()
    return row


def interactions_of_task(conn: sqlite3.Connection, task_id: str, workspace_id: str, limit: int) -> list[sqlite3.Row]:
    """A task's interactions rows, oldest first, `limit` of them."""
    return conn.execute("SELECT * FROM interactions WHERE task_id = ? AND workspace_id = ? "
                        "ORDER BY created_at LIMIT ?", (task_id, workspace_id, limit)).fetchall()


def pending_of_task(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> list[sqlite3.Row]:
    """A task's pending interactions rows."""
    return conn.execute("SELECT * FROM interactions WHERE task_id = ? AND workspace_id = ? AND status = 'pending'",
                        (task_id, workspace_id)).fetchall()


def pending_of_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> list[sqlite3.Row]:
    """An agent's pending interactions rows."""
    return conn.execute("SELECT * FROM interactions WHERE agent_id = ? AND workspace_id = ? "
                        "AND status = 'pending'", (agent_id, workspace_id)).fetchall()


def pending_count_of_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> int:
    """How many of an agent's interactions are pending."""
    row = conn.execute("SELECT COUNT(*) AS n FROM interactions WHERE agent_id = ? AND workspace_id = ? "
                       "AND status = 'pending'", (agent_id, workspace_id)).fetchone()
    return int(row["n"])


def oldest_pending(conn: sqlite3.Connection, workspace_id: str, limit: int, after: int = 0) -> list[sqlite3.Row]:
    """A workspace's pending interactions rows, the longest waiting first, `limit` of them past the cursor
    `after` (the `last_sequence` of the previous page's last row)."""
    return conn.execute("SELECT * FROM interactions WHERE workspace_id = ? AND status = 'pending' "
                        "AND last_sequence > ? ORDER BY last_sequence LIMIT ?", (workspace_id, after, limit)).fetchall()


def pending_count(conn: sqlite3.Connection, workspace_id: str) -> int:
    """How many of a workspace's interactions are pending."""
    return int(conn.execute("SELECT COUNT(*) FROM interactions WHERE workspace_id = ? AND status = 'pending'",
                            (workspace_id,)).fetchone()[0])


def latest_interactions(conn: sqlite3.Connection, workspace_id: str, status: str | None, limit: int = 200,
                        before: int | None = None) -> list[sqlite3.Row]:
    """A workspace's newest interactions rows (the order they were made in, newest first), of one status when
    given, `limit` of them before the cursor `before` (the previous page's last `page_cursor`)."""
    sql = "SELECT rowid AS page_cursor, * FROM interactions WHERE workspace_id = ?"
    params: list[object] = [workspace_id]
    if status:
        sql += " AND status = ?"
        params.append(status)
    if before is not None:
        sql += " AND rowid < ?"
        params.append(before)
    return conn.execute(sql + " ORDER BY rowid DESC LIMIT ?", [*params, limit]).fetchall()
