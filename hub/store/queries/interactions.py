"""Reads of the interactions projection (questions for the person)."""

from __future__ import annotations

import sqlite3

from hub.store.queries.records import InteractionRecord, PagedInteractionRecord, fetch_all, fetch_one, select_list

_INTERACTIONS = f"SELECT {select_list(InteractionRecord)} FROM interactions"
# The page key last, as PagedInteractionRecord has it: the rowid keeps the order the interactions were made in.
_PAGED_INTERACTIONS = f"SELECT {select_list(InteractionRecord)}, rowid AS page_cursor FROM interactions"


def interaction(conn: sqlite3.Connection, interaction_id: str, workspace_id: str) -> InteractionRecord | None:
    """The interaction with this id in this workspace."""
    return fetch_one(conn, InteractionRecord, f"{_INTERACTIONS} WHERE id = ? AND workspace_id = ?",
                     (interaction_id, workspace_id))


def interactions_with_id(conn: sqlite3.Connection, interaction_id: str,
                         workspace_id: str | None) -> list[InteractionRecord]:
    """The interactions with this id: the one in this workspace when given, else every workspace's (a timer that
    knows only the id)."""
    if workspace_id is not None:
        return fetch_all(conn, InteractionRecord, f"{_INTERACTIONS} WHERE id = ? AND workspace_id = ?",
                         (interaction_id, workspace_id))
    return fetch_all(conn, InteractionRecord, f"{_INTERACTIONS} WHERE id = ?", (interaction_id,))


def interactions_of_task(conn: sqlite3.Connection, task_id: str, workspace_id: str,
                         limit: int) -> list[InteractionRecord]:
    """A task's interactions, oldest first, `limit` of them."""
    return fetch_all(conn, InteractionRecord, f"{_INTERACTIONS} WHERE task_id = ? AND workspace_id = ? "
                     "ORDER BY created_at LIMIT ?", (task_id, workspace_id, limit))


def pending_of_task(conn: sqlite3.Connection, task_id: str, workspace_id: str) -> list[InteractionRecord]:
    """A task's pending interactions."""
    return fetch_all(conn, InteractionRecord, f"{_INTERACTIONS} WHERE task_id = ? AND workspace_id = ? "
                     "AND status = 'pending'", (task_id, workspace_id))


def pending_of_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> list[InteractionRecord]:
    """An agent's pending interactions."""
    return fetch_all(conn, InteractionRecord, f"{_INTERACTIONS} WHERE agent_id = ? AND workspace_id = ? "
                     "AND status = 'pending'", (agent_id, workspace_id))


def pending_count_of_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> int:
    """How many of an agent's interactions are pending."""
    return int(conn.execute("SELECT COUNT(*) FROM interactions WHERE agent_id = ? AND workspace_id = ? "
                            "AND status = 'pending'", (agent_id, workspace_id)).fetchone()[0])


def oldest_pending(conn: sqlite3.Connection, workspace_id: str, limit: int,
                   after: int = 0) -> list[InteractionRecord]:
    """A workspace's pending interactions, the longest waiting first, `limit` of them past the cursor `after`
    (the `last_sequence` of the previous page's last one)."""
    return fetch_all(conn, InteractionRecord, f"{_INTERACTIONS} WHERE workspace_id = ? AND status = 'pending' "
                     "AND last_sequence > ? ORDER BY last_sequence LIMIT ?", (workspace_id, after, limit))


def pending_count(conn: sqlite3.Connection, workspace_id: str) -> int:
    """How many of a workspace's interactions are pending."""
    return int(conn.execute("SELECT COUNT(*) FROM interactions WHERE workspace_id = ? AND status = 'pending'",
                            (workspace_id,)).fetchone()[0])


def latest_interactions(conn: sqlite3.Connection, workspace_id: str, status: str | None, limit: int = 200,
                        before: int | None = None) -> list[PagedInteractionRecord]:
    """A workspace's newest interactions (the order they were made in, newest first), of one status when given,
    `limit` of them before the cursor `before` (the previous page's last `page_cursor`)."""
    sql = f"{_PAGED_INTERACTIONS} WHERE workspace_id = ?"
    params: list[object] = [workspace_id]
    if status:
        sql += " AND status = ?"
        params.append(status)
    if before is not None:
        sql += " AND rowid < ?"
        params.append(before)
    return fetch_all(conn, PagedInteractionRecord, sql + " ORDER BY rowid DESC LIMIT ?", [*params, limit])
