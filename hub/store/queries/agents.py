"""Reads of the agents projection."""

from __future__ import annotations

import sqlite3

from hub.store.queries.records import AgentRecord, fetch_all, fetch_one, select_list

_AGENTS = f"SELECT {select_list(AgentRecord)} FROM agents"


def agents_of_workspace(conn: sqlite3.Connection, workspace_id: str) -> list[AgentRecord]:
    """A workspace's agents (revoked ones too), oldest first."""
    return fetch_all(conn, AgentRecord, f"{_AGENTS} WHERE workspace_id = ? ORDER BY created_at", (workspace_id,))


def agent_by_id(conn: sqlite3.Connection, agent_id: str) -> AgentRecord | None:
    """The agent with this id, in any workspace, revoked or not."""
    return fetch_one(conn, AgentRecord, f"{_AGENTS} WHERE id = ?", (agent_id,))


def agent_in_workspace(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> AgentRecord | None:
    """The agent with this id in this workspace, revoked or not."""
    return fetch_one(conn, AgentRecord, f"{_AGENTS} WHERE id = ? AND workspace_id = ?", (agent_id, workspace_id))


def live_agent(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> AgentRecord | None:
    """The unrevoked agent with this id in this workspace."""
    return fetch_one(conn, AgentRecord, f"{_AGENTS} WHERE id = ? AND workspace_id = ? AND revoked_at IS NULL",
                     (agent_id, workspace_id))


def newest_pairings(conn: sqlite3.Connection, workspace_id: str) -> dict[str, str]:
    """Agent id -> when it last paired (its newest credential): later than its creation once it paired again."""
    rows = conn.execute("SELECT agent_id, MAX(created_at) FROM credentials WHERE workspace_id = ? GROUP BY agent_id",
                        (workspace_id,)).fetchall()
    return {str(agent_id): str(at) for agent_id, at in rows}
