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


def registrations_of_kind(conn: sqlite3.Connection, workspace_id: str, owner_kind: str) -> list[sqlite3.Row]:
    """(owner_id, tools JSON) of every agent's or app's registration in a workspace, the newest first."""
    return conn.execute("SELECT owner_id, tools FROM tool_registrations WHERE workspace_id = ? AND owner_kind = ? "
                        "ORDER BY updated_at DESC", (workspace_id, owner_kind)).fetchall()


def pending_calls(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Every pending call (id, workspace_id, target_kind, target_id) in every workspace, in log order."""
    return conn.execute("SELECT id, workspace_id, target_kind, target_id FROM tool_calls WHERE status = 'pending' "
                        "ORDER BY last_sequence").fetchall()


def pending_call_of_interaction(conn: sqlite3.Connection, interaction_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The pending call a question tool is waiting on, joined with its interaction: call_event_id, name, action,
    and the interaction's spec, status and response."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT tc.id AS call_event_id, tc.name, tc.action, i.spec, i.status, i.response FROM tool_calls tc "
        "JOIN interactions i ON i.id = tc.target_id AND i.workspace_id = tc.workspace_id "
        "WHERE tc.target_kind = 'interaction' AND tc.target_id = ? AND tc.workspace_id = ? "
        "AND tc.status = 'pending'", (interaction_id, workspace_id)).fetchone()
    return row
