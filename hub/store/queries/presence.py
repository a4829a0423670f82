"""Reads the presence loop and the runtime supervisor start from: who was online, what waits on a timer."""

from __future__ import annotations

import sqlite3

from hub.store.queries.records import (
    AgentPresenceRecord,
    ExpiryRecord,
    LostTaskRecord,
    TaskKeyRecord,
    fetch_all,
    select_list,
)


def live_agents_status(conn: sqlite3.Connection) -> list[AgentPresenceRecord]:
    """Every unrevoked agent's id, status and last heartbeat, in every workspace."""
    return fetch_all(conn, AgentPresenceRecord,
                     f"SELECT {select_list(AgentPresenceRecord)} FROM agents WHERE revoked_at IS NULL")


def open_tasks_with_cancel_requested(conn: sqlite3.Connection) -> list[TaskKeyRecord]:
    """Running or waiting tasks someone asked to cancel: their cancel deadline restarts."""
    return fetch_all(conn, TaskKeyRecord, f"SELECT {select_list(TaskKeyRecord)} FROM tasks "
                     "WHERE status IN ('running', 'waiting_for_human') AND cancel_requested_at IS NOT NULL")


def pending_interactions_with_expiry(conn: sqlite3.Connection) -> list[ExpiryRecord]:
    """Pending interactions that expire, in every workspace."""
    return fetch_all(conn, ExpiryRecord, f"SELECT {select_list(ExpiryRecord)} FROM interactions "
                     "WHERE status = 'pending' AND expires_at IS NOT NULL")


def running_tasks_with_lost_connection(conn: sqlite3.Connection) -> list[LostTaskRecord]:
    """Running tasks whose agent's connection was lost, and since when."""
    return fetch_all(conn, LostTaskRecord, f"SELECT {select_list(LostTaskRecord)} FROM tasks "
                     "WHERE status = 'running' AND connection_lost_at IS NOT NULL")


def running_tasks_of_agent(conn: sqlite3.Connection, agent_id: str) -> list[TaskKeyRecord]:
    """This agent's running tasks, in any workspace."""
    return fetch_all(conn, TaskKeyRecord, f"SELECT {select_list(TaskKeyRecord)} FROM tasks "
                     "WHERE agent_id = ? AND status = 'running'", (agent_id,))

