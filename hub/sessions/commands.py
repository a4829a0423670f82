"""The writer commands of sessions: what the hub stores when a session starts, changes, commits and ends."""

from __future__ import annotations

from typing import Any

from hub.domain.collaboration import ensure_new, get_agent
from hub.protocol.actors import Actor
from hub.protocol.envelope import new_id
from hub.protocol.errors import LapError
from hub.store.queries import sessions as session_rows
from hub.store.writer import Command, Tx


def start(actor: Actor, session: dict[str, Any], max_running: int) -> Command:
    """The session's conversation (the person and the agent) and `session.started`, in one transaction; refused when
    `max_running` sessions have not ended."""
    def run(tx: Tx) -> None:
        running = session_rows.running_count(tx.conn)
        if running >= max_running:
            raise LapError("rate_limited", f"{running} sessions are running, the most this hub runs at once.",
                           hint="End a session you no longer need, or raise [sessions] max_running in lineup.toml.",
                           details={"limit": "sessions", "max": max_running})
        conversation_id = session["conversationId"]
        ensure_new(tx, actor.workspace_id, "conversations", conversation_id, "conversation")
        get_agent(tx, actor.workspace_id, session["agentId"])
        tx.append("conversation.created", {"title": session["title"], "agentIds": [session["agentId"]],
                                           "createdBy": actor.as_author()},
                  workspace_id=actor.workspace_id, actor=actor.ref, conversation_id=conversation_id)
        tx.append("session.started", session, workspace_id=actor.workspace_id, actor=actor.ref,
                  conversation_id=conversation_id)

    return Command(run=run)


def update(workspace_id: str, session_id: str, conversation_id: str, changes: dict[str, Any]) -> Command:
    """`session.updated`: its status (running / idle), usage, mode or model; nothing once it ended."""
    def run(tx: Tx) -> None:
        row = session_rows.session(tx.conn, session_id, workspace_id)
        if row is None or row.status == "ended":
            return
        tx.append("session.updated", {"sessionId": session_id, **changes}, workspace_id=workspace_id, actor="hub",
                  conversation_id=conversation_id)

    return Command(run=run)


def end(actor: Actor, session_id: str, reason: str, message: str | None = None) -> Command:
    """`session.ended` (once); returns False when it had ended already."""
    def run(tx: Tx) -> bool:
        row = session_rows.session(tx.conn, session_id, actor.workspace_id)
        if row is None:
            raise LapError("not_found", f"No session {session_id!r} in this workspace.")
        if row.status == "ended":
            return False
        payload: dict[str, Any] = {"sessionId": session_id, "reason": reason}
        if message:
            payload["message"] = message
        tx.append("session.ended", payload, workspace_id=actor.workspace_id, actor=actor.ref,
                  conversation_id=row.conversation_id)
        return True

    return Command(run=run)


def commit_requested(workspace_id: str, session_id: str, conversation_id: str, interaction_id: str, message: str,
                     files: list[str]) -> Command:
    def run(tx: Tx) -> None:
        tx.append("session.commit_requested", {"sessionId": session_id, "interactionId": interaction_id,
                                               "message": message, "files": files},
                  workspace_id=workspace_id, actor="hub", conversation_id=conversation_id)

    return Command(run=run)


def commit_resolved(workspace_id: str, session_id: str, conversation_id: str, interaction_id: str, outcome: str,
                    commit: str | None = None, error: str | None = None) -> Command:
    def run(tx: Tx) -> None:
        payload: dict[str, Any] = {"sessionId": session_id, "interactionId": interaction_id, "outcome": outcome}
        if commit:
            payload["commit"] = commit
        if error:
            payload["error"] = error[:4000]
        tx.append("session.commit_resolved", payload, workspace_id=workspace_id, actor="hub",
                  conversation_id=conversation_id)

    return Command(run=run)


def hub_message_id() -> str:
    return new_id("msg")
