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


def files_of_tasks(conn: sqlite3.Connection, workspace_id: str, task_ids: Sequence[str],
                   per_task: int) -> dict[str, tuple[list[ArtifactRecord], int]]:
    """The artifacts of these tasks that are files the hub stores (their url `/api/files/<id>`): the first `per_task`
    of each task, oldest first, and how many it has in all (by task id; tasks without one are left out)."""
    wanted = sorted(set(task_ids))
    found: dict[str, tuple[list[ArtifactRecord], int]] = {}
    columns = select_list(ArtifactRecord)
    for start in range(0, len(wanted), 500):  # SQLite's bound on parameters, well below
        chunk = wanted[start:start + 500]
        where = f"workspace_id = ? AND task_id IN ({','.join('?' * len(chunk))}) AND url LIKE '/api/files/%'"
        totals = dict(conn.execute(f"SELECT task_id, COUNT(*) FROM artifacts WHERE {where} GROUP BY task_id",
                                   (workspace_id, *chunk)).fetchall())
        rows = fetch_all(conn, ArtifactRecord, f"SELECT {columns} FROM (SELECT {columns}, ROW_NUMBER() OVER "
                         f"(PARTITION BY task_id ORDER BY created_at, id) AS n FROM artifacts WHERE {where}) "
                         "WHERE n <= ? ORDER BY task_id, n", (workspace_id, *chunk, per_task))
        for row in rows:
            found.setdefault(str(row.task_id), ([], int(totals.get(row.task_id, 0))))[0].append(row)
    return found


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
