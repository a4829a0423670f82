"""Reads the presence loop and the runtime supervisor start from: who was online, what waits on a timer."""

from __future__ import annotations

import sqlite3


def live_agents_status(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Every unrevoked agent's id, status and last heartbeat, in every workspace."""
    return conn.execute("SELECT id, status, last_heartbeat_at FROM agents WHERE revoked_at IS NULL").fetchall()


def open_tasks_with_cancel_requested(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Running or waiting tasks someone asked to cancel (id, workspace_id): their cancel deadline restarts."""
    return conn.execute("SELECT id, workspace_id FROM tasks WHERE status IN ('running', 'waiting_for_human') "
                        "AND cancel_requested_at IS NOT NULL").fetchall()


def pending_interactions_with_expiry(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Pending interactions that expire (id, workspace_id, expires_at), in every workspace."""
    return conn.execute("SELECT id, workspace_id, expires_at FROM interactions WHERE status = 'pending' "
                        "AND expires_at IS NOT NULL").fetchall()


def running_tasks_with_lost_connection(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Running tasks whose agent's connection was lost (id, agent_id, connection_lost_at)."""
    return conn.execute("SELECT id, agent_id, connection_lost_at FROM tasks WHERE status = 'running' "
                        "AND connection_lost_at IS NOT NULL").fetchall()


def running_tasks_of_agent(conn: sqlite3.Connection, agent_id: str) -> list[sqlite3.Row]:
    """This agent's running tasks (id, workspace_id), in any workspace."""
    return conn.execute("SELECT id, workspace_id FROM tasks WHERE agent_id = ? AND status = 'running'",
                        (agent_id,)).fetchall()
