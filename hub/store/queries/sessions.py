"""Reads of the sessions projection (docs/sessions.md) and of the terminal agents' conversations shown beside it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from hub.store.queries.records import SessionRecord, TerminalConversationRecord, fetch_all, fetch_one, select_list

_SESSIONS = f"SELECT {select_list(SessionRecord)} FROM sessions"


def session(conn: sqlite3.Connection, session_id: str, workspace_id: str) -> SessionRecord | None:
    """The session with this id in this workspace."""
    return fetch_one(conn, SessionRecord, f"{_SESSIONS} WHERE id = ? AND workspace_id = ?", (session_id, workspace_id))


def session_of_conversation(conn: sqlite3.Connection, conversation_id: str, workspace_id: str) -> SessionRecord | None:
    """The session a conversation belongs to, if it is one."""
    return fetch_one(conn, SessionRecord, f"{_SESSIONS} WHERE conversation_id = ? AND workspace_id = ?",
                     (conversation_id, workspace_id))


def recent_sessions(conn: sqlite3.Connection, workspace_id: str, limit: int) -> list[SessionRecord]:
    """A workspace's sessions, the most recently active first."""
    return fetch_all(conn, SessionRecord, f"{_SESSIONS} WHERE workspace_id = ? ORDER BY last_sequence DESC LIMIT ?",
                     (workspace_id, limit))


def unended_sessions(conn: sqlite3.Connection) -> list[SessionRecord]:
    """Every workspace's sessions not ended yet, oldest first: the ones a starting hub resumes or ends."""
    return fetch_all(conn, SessionRecord, f"{_SESSIONS} WHERE status != 'ended' ORDER BY created_at")


def running_count(conn: sqlite3.Connection) -> int:
    """How many sessions are not ended (each has an agent process, or will have one), hub-wide."""
    return int(conn.execute("SELECT COUNT(*) FROM sessions WHERE status != 'ended'").fetchone()[0])


def latest_by_project(conn: sqlite3.Connection, workspace_id: str, projects: Sequence[str]) -> dict[str, SessionRecord]:
    """Each of these projects' latest session (its remembered choices and when it was last used)."""
    found: dict[str, SessionRecord] = {}
    for start in range(0, len(projects), 500):
        part = list(projects[start:start + 500])
        marks = ", ".join("?" * len(part))
        rows = fetch_all(conn, SessionRecord, f"{_SESSIONS} WHERE workspace_id = ? AND project IN ({marks}) "
                         "ORDER BY created_at", (workspace_id, *part))
        for row in rows:
            found[row.project] = row  # the latest wins
    return found


def recent_projects(conn: sqlite3.Connection, workspace_id: str, limit: int) -> list[str]:
    """The projects of a workspace's sessions, the most recently used first."""
    rows = conn.execute("SELECT project FROM sessions WHERE workspace_id = ? GROUP BY project "
                        "ORDER BY MAX(created_at) DESC LIMIT ?", (workspace_id, limit)).fetchall()
    return [str(row[0]) for row in rows]


def terminal_conversations(conn: sqlite3.Connection, workspace_id: str, runtimes: Sequence[str],
                           limit: int) -> list[TerminalConversationRecord]:
    """The most recently active conversations whose agent runs in the person's own terminal (its runtime is one of
    `runtimes`), with the agent and the count of the conversation's active tasks."""
    marks = ", ".join("?" * len(runtimes))
    return fetch_all(
        conn, TerminalConversationRecord,
        "SELECT c.id, c.title, c.updated_at, a.id, a.name, a.runtime, a.status, "
        "(SELECT COUNT(*) FROM tasks t WHERE t.conversation_id = c.id AND t.workspace_id = c.workspace_id "
        " AND t.status IN ('running', 'waiting_for_human', 'queued') AND t.parent_task_id IS NULL) "
        "FROM conversations c JOIN json_each(c.agent_ids) m JOIN agents a ON a.id = m.value "
        f"WHERE c.workspace_id = ? AND a.workspace_id = c.workspace_id AND a.runtime IN ({marks}) "
        "AND a.revoked_at IS NULL ORDER BY c.last_sequence DESC LIMIT ?",
        (workspace_id, *runtimes, limit))


def agent_runtime(conn: sqlite3.Connection, agent_id: str, workspace_id: str) -> str | None:
    """The runtime an agent of this workspace said it runs (`claude-code`, `mcp`, `acp`, ...)."""
    row = conn.execute("SELECT runtime FROM agents WHERE id = ? AND workspace_id = ?",
                       (agent_id, workspace_id)).fetchone()
    return None if row is None else str(row[0])
