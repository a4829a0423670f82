"""Reads of the tool projections: registrations, calls, app instances."""

from __future__ import annotations

import sqlite3

from hub.store.queries.records import (
    PendingCallRecord,
    QuestionCallRecord,
    RegistrationRecord,
    ToolCallRecord,
    ToolInstanceRecord,
    fetch_all,
    fetch_one,
    select_list,
)

_CALLS = f"SELECT {select_list(ToolCallRecord)} FROM tool_calls"


def registered_tools_json(conn: sqlite3.Connection, owner_kind: str, owner_id: str) -> str | None:
    """The JSON list of tools an owner registered last, or None when it registered none."""
    row = conn.execute("SELECT tools FROM tool_registrations WHERE owner_kind = ? AND owner_id = ?",
                       (owner_kind, owner_id)).fetchone()
    return None if row is None else str(row["tools"])


def call_id_used(conn: sqlite3.Connection, caller_id: str, call_id: str, workspace_id: str) -> bool:
    """Whether this caller already used this call_id in this workspace."""
    return conn.execute("SELECT 1 FROM tool_calls WHERE caller_id = ? AND call_id = ? AND workspace_id = ?",
                        (caller_id, call_id, workspace_id)).fetchone() is not None


def tool_instance(conn: sqlite3.Connection, instance_id: str, workspace_id: str) -> ToolInstanceRecord | None:
    """The app instance with this id in this workspace."""
    return fetch_one(conn, ToolInstanceRecord, f"SELECT {select_list(ToolInstanceRecord)} FROM tool_instances "
                     "WHERE id = ? AND workspace_id = ?", (instance_id, workspace_id))


def tool_call(conn: sqlite3.Connection, call_event_id: str, workspace_id: str) -> ToolCallRecord | None:
    """The call with this event id in this workspace."""
    return fetch_one(conn, ToolCallRecord, f"{_CALLS} WHERE id = ? AND workspace_id = ?", (call_event_id, workspace_id))


def pending_call_for(conn: sqlite3.Connection, workspace_id: str, call_id: str, target_kind: str, target_id: str,
                     call_event_id: str | None) -> ToolCallRecord | None:
    """The oldest pending call with this call_id routed to this target (and this event id, if given)."""
    sql = (f"{_CALLS} WHERE workspace_id = ? AND call_id = ? AND status = 'pending' AND target_kind = ? "
           "AND target_id = ?")
    params: list[str] = [workspace_id, call_id, target_kind, target_id]
    if call_event_id:
        sql += " AND id = ?"
        params.append(call_event_id)
    return fetch_one(conn, ToolCallRecord, sql + " ORDER BY created_at LIMIT 1", params)


def registrations_of_kind(conn: sqlite3.Connection, workspace_id: str, owner_kind: str) -> list[RegistrationRecord]:
    """Every agent's or app's registration in a workspace (who, and the tools JSON), the newest first."""
    return fetch_all(conn, RegistrationRecord, f"SELECT {select_list(RegistrationRecord)} FROM tool_registrations "
                     "WHERE workspace_id = ? AND owner_kind = ? ORDER BY updated_at DESC", (workspace_id, owner_kind))


def pending_calls(conn: sqlite3.Connection) -> list[PendingCallRecord]:
    """Every pending call (and where it was routed) in every workspace, in log order."""
    return fetch_all(conn, PendingCallRecord, f"SELECT {select_list(PendingCallRecord)} FROM tool_calls "
                     "WHERE status = 'pending' ORDER BY last_sequence")


def pending_call_of_interaction(conn: sqlite3.Connection, interaction_id: str,
                                workspace_id: str) -> QuestionCallRecord | None:
    """The pending call a question tool is waiting on, with its interaction's spec, status and response."""
    # In QuestionCallRecord's order: the call's event id, name and action, then the interaction's columns.
    return fetch_one(conn, QuestionCallRecord,
                     "SELECT tc.id, tc.name, tc.action, i.spec, i.status, i.response FROM tool_calls tc "
                     "JOIN interactions i ON i.id = tc.target_id AND i.workspace_id = tc.workspace_id "
                     "WHERE tc.target_kind = 'interaction' AND tc.target_id = ? AND tc.workspace_id = ? "
                     "AND tc.status = 'pending'", (interaction_id, workspace_id))
