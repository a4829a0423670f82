"""Reads of the agents projection."""

from __future__ import annotations

import sqlite3


def agents_of_workspace(conn: sqlite3.Connection, workspace_id: str) -> list[sqlite3.Row]:
    """A workspace's agents rows (revoked ones too), oldest first."""
    return conn.execute("SELECT * FROM agents WHERE workspace_id = ? ORDER BY created_at", (workspace_id,)).fetchall()


def agent_by_id(conn: sqlite3.Connection, agent_id: str) -> sqlite3.Row | None:
    """The agents row with this id, in any workspace, revoked or not."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM agents WHERE id = ?", (agent_id,)).fetchone()
    return row


def agent_in_workspace(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The agents row with this id in this workspace, revoked or not."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM agents WHERE id = ? AND workspace_id = ?",
                                           (agent_id, workspace_id)).fetchone()
    return row


def live_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The unrevoked agents row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM agents WHERE id = ? AND workspace_id = ? AND revoked_at IS NULL",
        (agent_id, workspace_id)).fetchone()
    return row
