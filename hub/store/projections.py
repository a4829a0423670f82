"""Projections: how each stored event changes the state tables, for live writes and rebuilds alike.

A projector reads only the event (never the clock or other input), so replaying the log rebuilds the
same rows (`lineup db rebuild`, `lineup db check`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from hub.store.events import StoredEvent

Projector = Callable[[sqlite3.Connection, StoredEvent], None]
PROJECTORS: dict[str, Projector] = {}


def projects(*types: str) -> Callable[[Projector], Projector]:
    def register(fn: Projector) -> Projector:
        for type_ in types:
            PROJECTORS[type_] = fn
        return fn
    return register


def apply(conn: sqlite3.Connection, event: StoredEvent) -> None:
    """Update the projections for one event; event types without a projector change nothing."""
    projector = PROJECTORS.get(event.type)
    if projector is not None:
        projector(conn, event)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


@projects("workspace.created")
def _workspace_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    conn.execute("INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)",
                 (ev.workspace_id, ev.payload["name"], ev.recorded_at))


@projects("user.created")
def _user_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO users (id, workspace_id, username, display_name, role, password_hash, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)", (p["userId"], ev.workspace_id, p["username"],
                                                  p["displayName"], p["role"], p["_passwordHash"], ev.recorded_at))


@projects("user.claimed")
def _user_claimed(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    # First-run setup taking over the passwordless owner the CLI made (hub/domain/accounts.py::create_owner).
    p = ev.payload
    conn.execute("UPDATE users SET username = ?, display_name = ?, password_hash = ? WHERE id = ?",
                 (p["username"], p["displayName"], p["_passwordHash"], p["userId"]))
    conn.execute("UPDATE workspaces SET name = ? WHERE id = ?", (p["workspaceName"], ev.workspace_id))


@projects("device.created")
def _device_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO devices (id, workspace_id, user_id, name, token_hash, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (p["deviceId"], ev.workspace_id, p["userId"], p["name"], p["_tokenHash"], ev.recorded_at))
    if p.get("signInLinkId"):
        conn.execute("UPDATE sign_in_links SET used_at = ?, device_id = ? WHERE id = ?",
                     (ev.recorded_at, p["deviceId"], p["signInLinkId"]))


@projects("sign_in_link.created")
def _sign_in_link_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO sign_in_links (id, workspace_id, user_id, code_hash, created_at, expires_at) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (p["linkId"], ev.workspace_id, p["userId"], p["_codeHash"],
                                               ev.recorded_at, p["expiresAt"]))


@projects("hub.renamed")
def _hub_renamed(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    # The hub's display name (mDNS, the app's title) is configuration kept beside the log's own meta rows.
    conn.execute("INSERT INTO meta (key, value) VALUES ('hub_name', ?) ON CONFLICT (key) DO UPDATE SET "
                 "value = excluded.value", (ev.payload["name"],))


@projects("device.revoked")
def _device_revoked(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    conn.execute("UPDATE devices SET revoked_at = ? WHERE id = ?", (ev.recorded_at, ev.payload["deviceId"]))


@projects("pairing_code.created")
def _pairing_code_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO pairing_codes (id, workspace_id, code_hash, name, created_by, created_at, expires_at, "
                 "replaces_agent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (p["codeId"], ev.workspace_id, p["_codeHash"], p.get("name"), ev.actor, ev.recorded_at,
                  p["expiresAt"], p.get("replacesAgentId")))


@projects("agent.paired")
def _agent_paired(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO agents (id, workspace_id, name, runtime, agent_version, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (p["agentId"], ev.workspace_id, p["name"], p["runtime"], p["agentVersion"], ev.recorded_at))
    conn.execute("INSERT INTO credentials (id, workspace_id, agent_id, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                 (p["credentialId"], ev.workspace_id, p["agentId"], p["_credentialHash"], ev.recorded_at))
    conn.execute("UPDATE pairing_codes SET used_at = ?, agent_id = ? WHERE id = ?",
                 (ev.recorded_at, p["agentId"], p["codeId"]))


@projects("agent.credential_rotated")
def _agent_credential_rotated(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    # The same agent paired again (hub/domain/accounts.py::pair_agent): its earlier credentials stop working, the new
    # one starts; its conversations, tasks and questions are untouched (they hang on the agent id).
    p = ev.payload
    conn.execute("UPDATE credentials SET revoked_at = ? WHERE agent_id = ? AND revoked_at IS NULL",
                 (ev.recorded_at, p["agentId"]))
    conn.execute("INSERT INTO credentials (id, workspace_id, agent_id, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                 (p["credentialId"], ev.workspace_id, p["agentId"], p["_credentialHash"], ev.recorded_at))
    conn.execute("UPDATE agents SET name = ?, runtime = ?, agent_version = ? WHERE id = ?",
                 (p["name"], p["runtime"], p["agentVersion"], p["agentId"]))
    conn.execute("UPDATE pairing_codes SET used_at = ?, agent_id = ? WHERE id = ?",
                 (ev.recorded_at, p["agentId"], p["codeId"]))


@projects("agent.revoked")
def _agent_revoked(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    agent_id = ev.payload["agentId"]
    conn.execute("UPDATE agents SET status = 'revoked', status_reason = 'revoked', revoked_at = ? WHERE id = ?",
                 (ev.recorded_at, agent_id))
    conn.execute("UPDATE credentials SET revoked_at = ? WHERE agent_id = ? AND revoked_at IS NULL",
                 (ev.recorded_at, agent_id))


@projects("agent.renamed")
def _agent_renamed(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    conn.execute("UPDATE agents SET name = ? WHERE id = ?", (ev.payload["name"], ev.payload["agentId"]))


@projects("agent.status_changed")
def _agent_status_changed(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    agent_id, status = p["agentId"], p["status"]
    conn.execute("UPDATE agents SET status = ?, status_reason = ?, last_heartbeat_at = ?, "
                 "runtime = COALESCE(?, runtime), agent_version = COALESCE(?, agent_version), "
                 "capabilities = COALESCE(?, capabilities) WHERE id = ? AND status != 'revoked'",
                 (status, p.get("reason"), p.get("lastHeartbeatAt"), p.get("runtime"), p.get("agentVersion"),
                  _json(p.get("capabilities")), agent_id))
    if status == "offline":
        conn.execute("UPDATE tasks SET connection_lost_at = ? WHERE agent_id = ? AND connection_lost_at IS NULL "
                     "AND status IN ('running', 'waiting_for_human')",
                     (p.get("lastHeartbeatAt") or ev.occurred_at, agent_id))
    elif status == "online":
        conn.execute("UPDATE tasks SET connection_lost_at = NULL WHERE agent_id = ? AND connection_lost_at IS NOT NULL",
                     (agent_id,))


@projects("conversation.created")
def _conversation_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO conversations (id, workspace_id, title, agent_ids, created_by, created_at, updated_at, "
                 "last_sequence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (ev.conversation_id, ev.workspace_id, p["title"], _json(p.get("agentIds", [])), ev.actor,
                  ev.recorded_at, ev.recorded_at, ev.sequence))


class _Deferred(threading.local):
    """The writer's batch, in the writer's thread: conversation touches wait for its end (`flush_touches`)."""

    touches: dict[tuple[str, str | None], tuple[str, int]] | None = None


deferred = _Deferred()
_TOUCH = "UPDATE conversations SET updated_at = ?, last_sequence = ? WHERE id = ? AND workspace_id = ?"


def _touch_conversation(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    if ev.conversation_id:
        touches = deferred.touches
        if touches is None:
            conn.execute(_TOUCH, (ev.recorded_at, ev.sequence, ev.conversation_id, ev.workspace_id))
        else:
            # In a batch the last touch of a conversation is all that is left at its COMMIT: one UPDATE each.
            touches[(ev.conversation_id, ev.workspace_id)] = (ev.recorded_at, ev.sequence)


def flush_touches(conn: sqlite3.Connection) -> None:
    """Write the batch's deferred conversation touches (the writer calls it before COMMIT)."""
    touches = deferred.touches
    if touches:
        conn.executemany(_TOUCH, [(at, sequence, conversation_id, workspace_id)
                                  for (conversation_id, workspace_id), (at, sequence) in touches.items()])
        touches.clear()


@projects("message.created", "message.updated")
def _message_written(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    # message.updated is the snapshot of a message still streaming; message.created is the whole message. Its text
    # is the payload's `content`, kept in the log alone: `content` stays '' here and reads take the text from the
    # event at last_sequence (hub/store/queries/conversations.py), which every write of the row moves.
    p = ev.payload
    author = p["author"]
    state = "complete" if ev.type == "message.created" else "streaming"
    attachments = p.get("attachments") or None  # files attached (hub/domain/collaboration.py message_create)
    conn.execute(
        "INSERT INTO messages (id, workspace_id, conversation_id, author_kind, author_id, target_agent_id, content, "
        "blocks, state, created_at, updated_at, first_sequence, last_sequence, attachments) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT (id, workspace_id) DO UPDATE SET content = excluded.content, "
        "blocks = COALESCE(excluded.blocks, blocks), state = excluded.state, updated_at = excluded.updated_at, "
        "last_sequence = excluded.last_sequence, attachments = COALESCE(excluded.attachments, attachments)",
        (p["messageId"], ev.workspace_id, ev.conversation_id, author["kind"], author["id"], p.get("targetAgentId"),
         "", _json(p.get("blocks")), state, ev.recorded_at, ev.recorded_at, ev.sequence,
         ev.sequence, _json(attachments)))
    for attached in attachments or ():
        _link_file(conn, ev, attached["fileId"], "message", p["messageId"], p.get("targetAgentId"))
    _touch_conversation(conn, ev)


def _link_file(conn: sqlite3.Connection, ev: StoredEvent, file_id: str, kind: str, object_id: str,
               agent_id: str | None) -> None:
    """Where a file was attached: who may read it follows from it (hub/store/queries/files.py agent_may_read)."""
    conn.execute("INSERT OR IGNORE INTO file_links (workspace_id, file_id, kind, object_id, conversation_id, task_id, "
                 "agent_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (ev.workspace_id, file_id, kind, object_id, ev.conversation_id, ev.task_id, agent_id))


@projects("file.stored")
def _file_stored(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    by = p["uploadedBy"]
    conn.execute("INSERT INTO files (id, workspace_id, name, mime_type, size, sha256, uploaded_by_kind, "
                 "uploaded_by_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (p["fileId"], ev.workspace_id, p["name"], p["mimeType"], p["size"], p["sha256"], by["kind"],
                  by["id"], ev.recorded_at))


@projects("task.created", "task.child_created")
def _task_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute(
        "INSERT INTO tasks (id, workspace_id, conversation_id, parent_task_id, agent_id, title, description, status, "
        "created_by, created_at, updated_at, last_sequence) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (ev.task_id, ev.workspace_id, ev.conversation_id, p.get("parentTaskId"), p.get("agentId"), p["title"],
         p.get("description", ""), p["status"], ev.actor, ev.recorded_at, ev.recorded_at, ev.sequence))
    _touch_conversation(conn, ev)


@projects("task.status_changed")
def _task_status_changed(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute(
        "UPDATE tasks SET status = COALESCE(?, status), progress = COALESCE(?, progress), "
        "summary = COALESCE(?, summary), error = COALESCE(?, error), updated_at = ?, last_sequence = ? "
        "WHERE id = ? AND workspace_id = ?",
        (p.get("status"), p.get("progress"), p.get("summary"), _json(p.get("error")), ev.recorded_at, ev.sequence,
         ev.task_id, ev.workspace_id))


@projects("task.checkpoint")
def _task_checkpoint(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    row = conn.execute("SELECT checkpoints FROM tasks WHERE id = ? AND workspace_id = ?",
                       (ev.task_id, ev.workspace_id)).fetchone()
    kept = json.loads(row[0] or "{}") if row is not None else {}
    kept[ev.payload["name"]] = ev.payload.get("data")
    conn.execute("UPDATE tasks SET checkpoints = ?, updated_at = ?, last_sequence = ? "
                 "WHERE id = ? AND workspace_id = ?",
                 (_json(kept), ev.recorded_at, ev.sequence, ev.task_id, ev.workspace_id))


@projects("task.cancel_requested")
def _task_cancel_requested(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    conn.execute("UPDATE tasks SET cancel_requested_at = COALESCE(cancel_requested_at, ?), cancel_reason = ?, "
                 "updated_at = ?, last_sequence = ? WHERE id = ? AND workspace_id = ?",
                 (ev.recorded_at, ev.payload.get("reason"), ev.recorded_at, ev.sequence, ev.task_id, ev.workspace_id))


@projects("interaction.requested")
def _interaction_requested(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    spec = ev.payload["interaction"]
    conn.execute(
        "INSERT INTO interactions (id, workspace_id, task_id, conversation_id, agent_id, type, title, risk, spec, "
        "status, expires_at, created_at, last_sequence) VALUES (?,?,?,?,?,?,?,?,?, 'pending', ?,?,?)",
        (spec["id"], ev.workspace_id, ev.task_id, ev.conversation_id, ev.actor.partition(":")[2], spec["type"],
         spec["title"], spec.get("risk", "medium"), _json(spec), spec.get("expiresAt"), ev.recorded_at, ev.sequence))


@projects("interaction.resolved", "interaction.expired")
def _interaction_resolved(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    # A person's answer is dated when it was given (`answeredAt`, hub/domain/collaboration.py answered_at), an answer
    # kept offline included; everything else when the hub recorded it.
    conn.execute("UPDATE interactions SET status = ?, response = ?, responded_by = ?, responded_at = ?, "
                 "last_sequence = ? WHERE id = ? AND workspace_id = ?",
                 (p["outcome"], _json(p.get("response")), _json(p.get("respondedBy")),
                  p.get("answeredAt") or ev.recorded_at, ev.sequence, p["interactionId"], ev.workspace_id))


@projects("artifact.created")
def _artifact_created(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("INSERT INTO artifacts (id, workspace_id, task_id, conversation_id, agent_id, name, url, mime_type, "
                 "summary, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (p["artifactId"], ev.workspace_id, ev.task_id, ev.conversation_id, ev.actor.partition(":")[2],
                  p["name"], p["url"], p.get("mimeType"), p.get("summary"), ev.recorded_at))
    if p.get("fileId"):
        _link_file(conn, ev, p["fileId"], "artifact", p["artifactId"], None)


@projects("tools.registered")
def _tools_registered(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    owner = ev.payload["owner"]
    conn.execute("INSERT INTO tool_registrations (owner_kind, owner_id, workspace_id, tools, updated_at) "
                 "VALUES (?, ?, ?, ?, ?) ON CONFLICT (owner_kind, owner_id) DO UPDATE SET tools = excluded.tools, "
                 "updated_at = excluded.updated_at",
                 (owner["kind"], owner["id"], ev.workspace_id, _json(ev.payload["tools"]), ev.recorded_at))


@projects("tool.call")
def _tool_called(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    arguments = p.get("arguments") or {}
    conn.execute(
        "INSERT INTO tool_calls (id, workspace_id, call_id, caller_kind, caller_id, name, action, arguments, "
        "target_kind, target_id, instance_id, status, created_at, last_sequence) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?, 'pending', ?, ?)",
        (ev.id, ev.workspace_id, p["call_id"], p["caller"]["kind"], p["caller"]["id"], p["name"], p.get("action"),
         _json(arguments), p["target"]["kind"], p["target"].get("id"),
         arguments.get("instance_id") if isinstance(arguments.get("instance_id"), str) else None,
         ev.recorded_at, ev.sequence))


@projects("tool.result")
def _tool_answered(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("UPDATE tool_calls SET status = ?, result = ?, error = ?, completed_at = ?, last_sequence = ? "
                 "WHERE id = ? AND workspace_id = ?",
                 ("failed" if p.get("error") else "done", _json(p.get("result")), _json(p.get("error")),
                  ev.recorded_at, ev.sequence, p["callEventId"], ev.workspace_id))
    instance = p.get("instance")
    if instance:
        conn.execute(
            "INSERT INTO tool_instances (id, workspace_id, tool, state, status, created_by, created_at, updated_at, "
            "last_sequence) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (id, workspace_id) DO UPDATE SET "
            "state = excluded.state, status = excluded.status, updated_at = excluded.updated_at, "
            "last_sequence = excluded.last_sequence",
            (instance["id"], ev.workspace_id, p["name"], _json(instance.get("state", {})), instance["status"],
             instance.get("createdBy", ev.actor), ev.recorded_at, ev.recorded_at, ev.sequence))


# ---- sessions started from the phone (docs/sessions.md) ---------------------------------------------------------

@projects("session.started")
def _session_started(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute(
        "INSERT INTO sessions (id, workspace_id, conversation_id, agent_key, agent_id, project, folder, where_kind, "
        "worktree, base_commit, start_snapshot, base_ref, mode, model, title, status, created_by, created_at, "
        "updated_at, last_sequence) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?, 'idle', ?,?,?,?)",
        (p["sessionId"], ev.workspace_id, p["conversationId"], p["agentKey"], p["agentId"], p["project"], p["folder"],
         p["where"], _json(p.get("worktree")), p.get("baseCommit"), p.get("startSnapshot"), p.get("baseRef"),
         p.get("mode"), p.get("model"), p["title"], ev.actor, ev.recorded_at, ev.recorded_at, ev.sequence))


@projects("session.updated")
def _session_updated(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("UPDATE sessions SET status = COALESCE(?, status), usage = COALESCE(?, usage), "
                 "mode = COALESCE(?, mode), model = COALESCE(?, model), updated_at = ?, last_sequence = ? "
                 "WHERE id = ? AND workspace_id = ? AND status != 'ended'",
                 (p.get("status"), _json(p.get("usage")), p.get("mode"), p.get("model"), ev.recorded_at, ev.sequence,
                  p["sessionId"], ev.workspace_id))


@projects("session.ended")
def _session_ended(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    conn.execute("UPDATE sessions SET status = 'ended', end_reason = ?, ended_at = ?, pending_commit = NULL, "
                 "updated_at = ?, last_sequence = ? WHERE id = ? AND workspace_id = ? AND status != 'ended'",
                 (p["reason"], ev.recorded_at, ev.recorded_at, ev.sequence, p["sessionId"], ev.workspace_id))


@projects("session.commit_requested", "session.commit_resolved")
def _session_commit(conn: sqlite3.Connection, ev: StoredEvent) -> None:
    p = ev.payload
    if ev.type == "session.commit_requested":
        conn.execute("UPDATE sessions SET pending_commit = ?, updated_at = ?, last_sequence = ? "
                     "WHERE id = ? AND workspace_id = ?",
                     (p["interactionId"], ev.recorded_at, ev.sequence, p["sessionId"], ev.workspace_id))
    else:
        conn.execute("UPDATE sessions SET pending_commit = NULL, updated_at = ?, last_sequence = ? "
                     "WHERE id = ? AND workspace_id = ? AND pending_commit = ?",
                     (ev.recorded_at, ev.sequence, p["sessionId"], ev.workspace_id, p["interactionId"]))
