"""Reads of the tool projections: registrations, calls, app instances."""

from __future__ import annotations

import sqlite3


def registered_tools_json(conn: sqlite3.Connection, owner_kind: str, owner_id: str) -> str | None:
    """The JSON list of tools an owner registered last, or None when it registered none."""
    row = conn.execute("SELECT tools FROM tool_registrations WHERE owner_kind = ? AND owner_id = ?",
                       (owner_kind, owner_id)).fetchone()
    return None if row is None else str(row["tools"])


def call_id_used(conn: sqlite3.Connection, caller_id: str, call_id: str, workspace_id: str) -> bool:
    """Whether this caller already used this call_id in this workspace."""
    return conn.execute("SELECT 1 FROM tool_calls WHERE caller_id = ? AND call_id = ? AND workspace_id = ?",
                        (caller_id, call_id, workspace_id)).fetchone() is not None


def tool_instance(conn: sqlite3.Connection, instance_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The tool_instances row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM tool_instances WHERE id = ? AND workspace_id = ?",
                                           (instance_id, workspace_id)).fetchone()
    return row


def tool_call(conn: sqlite3.Connection, call_event_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The tool_calls row with this event id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM tool_calls WHERE id = ? AND workspace_id = ?",
                                           (call_event_id, workspace_id)).fetchone()
    return row


def pending_call_for(conn: sqlite3.Connection, workspace_id: str, call_id: str, target_kind: str, target_id: str,
                     call_event_id: str | None) -> sqlite3.Row | None:
    """The oldest pending tool_calls row with this call_id routed to this target (and this event id, if given)."""
    sql = ("SELECT * FROM tool_calls WHERE workspace_id = ? AND call_id = ? AND status = 'pending' "
           "AND target_kind = ? AND target_id = ?")
    params: list[str] = [workspace_id, call_id, target_kind, target_id]
    if call_event_id:
        sql += " AND id = ?"
        params.append(call_event_id)
    row: sqlite3.Row | None = conn.execute(sql + " ORDER BY created_at LIMIT 1", params).fetchone()
    return row
