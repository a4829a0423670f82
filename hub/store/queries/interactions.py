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


def oldest_pending(conn: sqlite3.Connection, workspace_id: str, limit: int) -> list[sqlite3.Row]:
    """A workspace's pending interactions rows, the longest waiting first, `limit` of them."""
    return conn.execute("SELECT * FROM interactions WHERE workspace_id = ? AND status = 'pending' "
                        "ORDER BY last_sequence LIMIT ?", (workspace_id, limit)).fetchall()


def pending_count(conn: sqlite3.Connection, workspace_id: str) -> int:
    """How many of a workspace's interactions are pending."""
    return int(conn.execute("SELECT COUNT(*) FROM interactions WHERE workspace_id = ? AND status = 'pending'",
                            (workspace_id,)).fetchone()[0])


def latest_interactions(conn: sqlite3.Connection, workspace_id: str, status: str | None) -> list[sqlite3.Row]:
    """A workspace's newest 200 interactions rows, of one status when given."""
    sql, params = "SELECT * FROM interactions WHERE workspace_id = ?", [workspace_id]
    if status:
        sql += " AND status = ?"
        params.append(status)
    return conn.execute(sql + " ORDER BY created_at DESC LIMIT 200", params).fetchall()
