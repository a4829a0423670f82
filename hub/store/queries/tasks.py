"""Reads of the tasks projection, with a task's artifacts and the events of its timeline."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from hub.store.events import StoredEvent, row_to_event
from hub.store.queries.records import ArtifactRecord, TaskRecord, fetch_all, fetch_one, select_list

_TASKS = f"SELECT {select_list(TaskRecord)} FROM tasks"
_ARTIFACTS = f"SELECT {select_list(ArtifactRecord)} FROM artifacts"


def task(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> TaskRecord | None:
    """The task with this id in this workspace."""
    return fetch_one(conn, TaskRecord, f"{_TASKS} WHERE id = ? AND workspace_id = ?", (task_id, workspace_id))


def titles(conn: sqlite3.Connection, workspace_id: str, task_ids: Sequence[str]) -> dict[str, str]:
    """The titles of these tasks of the workspace, by id (those that exist)."""
    wanted = sorted(set(task_ids))
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(f"SELECT id, title FROM tasks WHERE workspace_id = ? AND id IN ({marks})",
                        (workspace_id, *wanted)).fetchall()
    return {str(row[0]): str(row[1]) for row in rows}


def tasks_with_id(conn: sqlite3.Connection, task_id: str, workspace_id: str | None) -> list[TaskRecord]:
    """The tasks with this id: the one in this workspace when given, else every workspace's (a timer that knows
    only the id)."""
    if workspace_id is not None:
        return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE id = ? AND workspace_id = ?", (task_id, workspace_id))
    return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE id = ?", (task_id,))


def latest_tasks(conn: sqlite3.Connection, workspace_id: str, statuses: Sequence[str], conversation_id: str | None,
                 limit: int) -> list[TaskRecord]:
    """A workspace's tasks, the most recently changed first: of these statuses (any when empty), in this
    conversation when given."""
    sql, params = f"{_TASKS} WHERE workspace_id = ?", [workspace_id]
    if statuses:
        sql += f" AND status IN ({','.join('?' * len(statuses))})"
        params += statuses
    if conversation_id:
        sql += " AND conversation_id = ?"
        params.append(conversation_id)
    sql += " ORDER BY last_sequence DESC LIMIT ?"
    return fetch_all(conn, TaskRecord, sql, (*params, limit))


def children(conn: sqlite3.Connection, task_id: str, workspace_id: str, limit: int) -> list[TaskRecord]:
    """A task's child tasks, oldest first, `limit` of them."""
    return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE parent_task_id = ? AND workspace_id = ? ORDER BY created_at "
                     "LIMIT ?", (task_id, workspace_id, limit))


def open_children(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> list[TaskRecord]:
    """A task's child tasks that have not ended."""
    return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE parent_task_id = ? AND workspace_id = ? "
                     "AND status NOT IN ('succeeded', 'failed', 'cancelled')", (task_id, workspace_id))


def open_top_tasks_of_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> list[TaskRecord]:
    """An agent's top-level tasks that have not ended."""
    return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE agent_id = ? AND workspace_id = ? AND parent_task_id IS NULL "
                     "AND status NOT IN ('succeeded', 'failed', 'cancelled')", (agent_id, workspace_id))


def artifacts(conn: sqlite3.Connection, task_id: str, workspace_id: str, limit: int) -> list[ArtifactRecord]:
    """A task's artifacts, oldest first, `limit` of them."""
    return fetch_all(conn, ArtifactRecord, f"{_ARTIFACTS} WHERE task_id = ? AND workspace_id = ? ORDER BY created_at "
                     "LIMIT ?", (task_id, workspace_id, limit))


def timeline(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> list[StoredEvent]:
    """A task's events (each with its `actor`), in log order, the first 5000."""
    rows = conn.execute("SELECT sequence, id, type, workspace_id, conversation_id, task_id, correlation_id, "
                        "actor, occurred_at, recorded_at, payload FROM events "
                        "WHERE task_id = ? AND workspace_id = ? ORDER BY sequence LIMIT 5000",
                        (task_id, workspace_id)).fetchall()
    return [row_to_event(r) for r in rows]


def needing_attention(conn: sqlite3.Connection, workspace_id: str) -> list[TaskRecord]:
    """Top-level tasks that failed or lost their agent while running or waiting, newest 50."""
    return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE workspace_id = ? AND parent_task_id IS NULL "
                     "AND (status = 'failed' "
                     "OR (connection_lost_at IS NOT NULL AND status IN ('running', 'waiting_for_human'))) "
                     "ORDER BY last_sequence DESC LIMIT 50", (workspace_id,))


def recently_completed(conn: sqlite3.Connection, workspace_id: str) -> list[TaskRecord]:
    """Top-level tasks that succeeded or were cancelled, newest 20."""
    return fetch_all(conn, TaskRecord, f"{_TASKS} WHERE workspace_id = ? AND parent_task_id IS NULL "
                     "AND status IN ('succeeded', 'cancelled') ORDER BY last_sequence DESC LIMIT 20",
                     (workspace_id,))
