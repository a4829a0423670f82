"""What the hub itself records: agent presence, the grace period, cancel timeouts, expiries, stream snapshots.

Task and interaction ids are unique within a workspace only. A timer that knows the workspace passes it; one
that knows only the id gets every workspace's object of that id, and each is judged by its own state.
"""

from __future__ import annotations

import json
from typing import Any

from hub.domain.collaboration import change_status, pending_interactions, resolve_interaction, resume_task_if_unblocked
from hub.domain.interactions import is_expired
from hub.domain.tasks import ACTIVE
from hub.protocol.actors import Actor, hub_actor
from hub.protocol.errors import LapError
from hub.store.queries import agents as agent_rows
from hub.store.queries import conversations as conversation_rows
from hub.store.queries import interactions as interaction_rows
from hub.store.queries import tasks as task_rows
from hub.store.writer import Command, Tx


def agent_status(agent_id: str, status: str, *, reason: str, last_heartbeat_at: str | None,
                 hello: dict[str, Any] | None = None) -> Command:
    """agent.status_changed, stored only when the status really changes (or the hello brings new facts)."""
    def run(tx: Tx) -> None:
        agent = agent_rows.agent_by_id(tx.conn, agent_id)
        if agent is None or agent.revoked_at is not None:
            return
        payload: dict[str, Any] = {"agentId": agent_id, "status": status, "reason": reason,
                                   "lastHeartbeatAt": last_heartbeat_at}
        if hello:
            payload.update(hello)
        unchanged = agent.status == status and (
            not hello or (hello.get("runtime") == agent.runtime
                          and hello.get("agentVersion") == agent.agent_version
                          and json.dumps(hello.get("capabilities"), sort_keys=True) == agent.capabilities))
        if unchanged:
            return
        tx.append("agent.status_changed", payload, workspace_id=agent.workspace_id, actor="hub")

    return Command(run=run)


def fail_unreachable(task_id: str, lost_since: str, workspace_id: str | None = None) -> Command:
    """After the grace period a running task whose agent stayed away (since `lost_since`) fails with
    agent_unreachable."""
    def run(tx: Tx) -> None:
        for task in task_rows.tasks_with_id(tx.conn, task_id, workspace_id):
            if task.status != "running" or task.connection_lost_at != lost_since:
                continue
            change_status(tx, hub_actor(task.workspace_id), task, "failed", by="hub", correlation_id=None,
                          cause="agent_unreachable",
                          error={"code": "agent_unreachable",
                                 "message": f"The agent has been unreachable since {lost_since}."})

    return Command(run=run)


def fail_interrupted(task_id: str, workspace_id: str | None = None) -> Command:
    """A supervised agent's task that was running when the hub stopped: its process did not survive."""
    def run(tx: Tx) -> None:
        for task in task_rows.tasks_with_id(tx.conn, task_id, workspace_id):
            if task.status != "running":
                continue
            change_status(tx, hub_actor(task.workspace_id), task, "failed", by="hub", correlation_id=None,
                          cause="runtime_restarted",
                          error={"code": "runtime_restarted",
                                 "message": "The hub stopped while this task ran, and its process with it. "
                                            "Start the task again."})

    return Command(run=run)


def cancel_timed_out(task_id: str, workspace_id: str | None = None) -> Command:
    """A cancel request the agent never confirmed: the policy's timeout makes the task cancelled."""
    def run(tx: Tx) -> None:
        for task in task_rows.tasks_with_id(tx.conn, task_id, workspace_id):
            if task.status not in ACTIVE or task.cancel_requested_at is None:
                continue
            # The agent may have asked the person something after the request; the policy still ends the task.
            actor = hub_actor(task.workspace_id)
            for interaction in pending_interactions(tx, task.workspace_id, task.id):
                resolve_interaction(tx, actor, interaction, "cancelled", {"cause": "task_cancelled"},
                                    correlation_id=None)
            change_status(tx, actor, task, "cancelled", by="hub", correlation_id=None, cause="cancel_timeout")

    return Command(run=run)


def expire_interaction(interaction_id: str, workspace_id: str | None = None) -> Command:
    def run(tx: Tx) -> None:
        for interaction in interaction_rows.interactions_with_id(tx.conn, interaction_id, workspace_id):
            if interaction.status != "pending" or not is_expired(interaction.expires_at):
                continue
            actor = hub_actor(interaction.workspace_id)
            resolve_interaction(tx, actor, interaction, "expired", None, correlation_id=None)
            resume_task_if_unblocked(tx, actor, interaction.task_id, None)

    return Command(run=run)


def snapshot_stream(actor: Actor, conversation_id: str, message_id: str, content: str, task_id: str | None) -> Command:
    """message.updated: what a streaming message holds so far, so a crash loses seconds of text at most."""
    def run(tx: Tx) -> None:
        existing = conversation_rows.message_state_and_author(tx.conn, message_id, actor.workspace_id)
        if existing is not None and (existing.state != "streaming" or existing.author_id != actor.id):
            raise LapError("conflict", f"Message {message_id!r} is complete or belongs to someone else.")
        tx.append("message.updated", {"messageId": message_id, "content": content, "author": actor.as_author(),
                                      "state": "streaming"},
                  workspace_id=actor.workspace_id, actor=actor.ref, conversation_id=conversation_id, task_id=task_id)

    return Command(run=run)
