"""Reads of the tasks projection, with a task's artifacts and the events of its timeline."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence


def task(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The tasks row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM tasks WHERE id = ? AND workspace_id = ?",
                                           (task_id, workspace_id)).fetchone()
    return row


def latest_tasks(conn: sqlite3.Connection, workspace_id: str, statuses: Sequence[str], conversation_id: str | None,
                 limit: int) -> list[sqlite3.Row]:
    """A workspace's tasks rows, the most recently changed first: of these statuses (any when empty), in this
    conversation when given."""
    sql, params = "SELECT * FROM tasks WHERE workspace_id = ?", [workspace_id]
    if statuses:
        sql += f" AND status IN ({','.join('?' * len(statuses))})"
        params += statuses
    if conversation_id:
        sql += " AND conversation_id = ?"
        params.append(conversation_id)
    sql += " ORDER BY last_sequence DESC LIMIT ?"
    return conn.execute(sql, (*params, limit)).fetchall()


def children(conn: sqlite3.Connection, task_id: str, workspace_id: str, limit: int) -> list[sqlite3.Row]:
    """A task's child tasks rows, oldest first, `limit` of them."""
    return conn.execute("SELECT * FROM tasks WHERE parent_task_id = ? AND workspace_id = ? ORDER BY created_at "
                        "LIMIT ?", (task_id, workspace_id, limit)).fetchall()


def open_children(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> list[sqlite3.Row]:
    """A task's child tasks rows that have not ended."""
    return conn.execute("SELECT * FROM tasks WHERE parent_task_id = ? AND workspace_id = ? "
                        "AND status NOT IN ('succeeded', 'failed', 'cancelled')", (task_id, workspace_id)).fetchall()


def open_top_tasks_of_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> list[sqlite3.Row]:
    """An agent's top-level tasks rows that have not ended."""
    return conn.execute("SELECT * FROM tasks WHERE agent_id = ? AND workspace_id = ? AND parent_task_id IS NULL "
                        "AND status NOT IN ('succeeded', 'failed', 'cancelled')", (agent_id, workspace_id)).fetchall()


def artifacts(conn: sqlite3.Connection, task_id: str, workspace_id: str, limit: int) -> list[sqlite3.Row]:
    """A task's artifacts rows, oldest first, `limit` of them."""
    return conn.execute("SELECT * FROM artifacts WHERE task_id = ? AND workspace_id = ? ORDER BY created_at "
                        "LIMIT ?", (task_id, workspace_id, limit)).fetchall()


def timeline(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> list[sqlite3.Row]:
    """A task's events rows (with `actor`), in log order, the first 5000."""
    return conn.execute("SELECT sequence, id, type, workspace_id, conversation_id, task_id, correlation_id, "
                        "actor, occurred_at, recorded_at, payload FROM events "
                        "WHERE task_id = ? AND workspace_id = ? ORDER BY sequence LIMIT 5000",
                        (task_id, workspace_id)).fetchall()


def needing_attention(conn: sqlite3.Connection, workspace_id: str) -> list[sqlite3.Row]:
    """Top-level tasks rows that failed or lost their agent while running or waiting, newest 50."""
    return conn.execute("SELECT * FROM tasks WHERE workspace_id = ? AND parent_task_id IS NULL "
                        "AND (status = 'failed' "
                        "OR (connection_lost_at IS NOT NULL AND status IN ('running', 'waiting_for_human'))) "
                        "ORDER BY last_sequence DESC LIMIT 50", (workspace_id,)).fetchall()


def recently_completed(conn: sqlite3.Connection, workspace_id: str) -> list[sqlite3.Row]:
    """Top-level tasks rows that succeeded or were cancelled, newest 20."""
    return conn.execute("SELECT * FROM tasks WHERE workspace_id = ? AND parent_task_id IS NULL "
                        "AND status IN ('succeeded', 'cancelled') ORDER BY last_sequence DESC LIMIT 20",
                        (workspace_id,)).fetchall()
