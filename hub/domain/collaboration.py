"""Turning app and agent envelopes into stored events: conversations, messages, tasks, interactions, artifacts.

Each handler runs inside the writer's transaction (hub/store/writer.py), reads the current projections,
refuses with LapError or appends the events. The first event of a handler carries the envelope's id, so a
re-send is recognised and answered with the first ack.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec

from hub.domain.approvals import AssessedRequest
from hub.domain.command_risk import Assessment
from hub.domain.interactions import check_response, is_expired, normalize_spec
from hub.domain.links import check_link
from hub.domain.tasks import ACTIVE, TERMINAL, check_transition, illegal_transition
from hub.protocol import payloads as P
from hub.protocol.actors import Actor, hub_actor
from hub.protocol.envelope import Envelope, new_id
from hub.protocol.errors import LapError
from hub.store.queries import accounts as people
from hub.store.queries import agents as agent_rows
from hub.store.queries import conversations as conversation_rows
from hub.store.queries import files as file_rows
from hub.store.queries import interactions as interaction_rows
from hub.store.queries import rows
from hub.store.queries import tasks as task_rows
from hub.store.queries.records import AgentRecord, ConversationRecord, InteractionRecord, TaskRecord
from hub.store.writer import Command, Tx, request_digest

Handler = Callable[[Tx, Actor, Envelope, Any], None]


# ---- lookups shared by the handlers ----------------------------------------------------------------

def get_conversation(tx: Tx, actor: Actor, conversation_id: str | None) -> ConversationRecord:
    if conversation_id is None:
        raise LapError("invalid_envelope", "This event needs `conversationId` on the envelope.")
    row = conversation_rows.conversation(tx.conn, conversation_id, actor.workspace_id)
    if row is None:
        raise LapError("not_found", f"No conversation {conversation_id!r} in this workspace.")
    if actor.kind == "agent" and actor.id not in row.members():
        raise LapError("forbidden", "This agent is not a member of that conversation.")
    return row


def get_task(tx: Tx, actor: Actor, task_id: str | None) -> TaskRecord:
    if task_id is None:
        raise LapError("invalid_envelope", "This event needs `taskId`.")
    row = task_rows.task(tx.conn, task_id, actor.workspace_id)
    if row is None:
        raise LapError("not_found", f"No task {task_id!r} in this workspace.")
    if actor.kind == "agent" and row.agent_id != actor.id:
        raise LapError("forbidden", "That task is assigned to another agent.")
    return row


def get_agent(tx: Tx, workspace_id: str, agent_id: str) -> AgentRecord:
    row = agent_rows.live_agent(tx.conn, agent_id, workspace_id)
    if row is None:
        raise LapError("not_found", f"No agent {agent_id!r} in this workspace.")
    return row


def ensure_new(tx: Tx, workspace_id: str, table: rows.Table, object_id: str, what: str) -> None:
    """Ids are unique within a workspace: one another workspace uses is free here, and nothing tells it exists."""
    if rows.id_taken(tx.conn, table, object_id, workspace_id):
        raise LapError("conflict", f"A {what} with id {object_id!r} already exists.")


def change_status(tx: Tx, actor: Actor, task: TaskRecord, status: str, *, by: str, correlation_id: str | None,
                  envelope_id: str | None = None, **extra: Any) -> None:
    """Append task.status_changed after checking the move (the hub's own moves use by='hub')."""
    check_transition(task.status, status, by)
    if status in TERMINAL:  # a question of a finished task can no longer be answered: it ends with the task
        end_pending_interactions(tx, actor, task, {"cause": "task_ended", "taskStatus": status}, correlation_id)
    # The task's agent hears when someone else ended its task (a cancel while queued or waiting, the cancel
    # timeout, agent_unreachable): an agent restarted with the task unfinished then knows not to resume it.
    ended_by_other = status in TERMINAL and by != "agent"
    tx.append("task.status_changed", {"status": status, "previousStatus": task.status, **extra},
              id=envelope_id, workspace_id=actor.workspace_id, actor=actor.ref, task_id=task.id,
              conversation_id=task.conversation_id, correlation_id=correlation_id,
              recipients=(task.agent_id,) if ended_by_other and task.agent_id else ())
    if status in TERMINAL:
        end_open_children(tx, actor, task, status, correlation_id)


def end_pending_interactions(tx: Tx, actor: Actor, task: TaskRecord, cause: dict[str, Any],
                             correlation_id: str | None) -> None:
    """The task's waiting questions end as `cancelled`, their response naming why (docs/protocol.md#interactions)."""
    for interaction in pending_interactions(tx, actor.workspace_id, task.id):
        resolve_interaction(tx, actor, interaction, "cancelled", cause, correlation_id=correlation_id)


def end_open_children(tx: Tx, actor: Actor, parent: TaskRecord, parent_status: str, correlation_id: str | None) -> None:
    """A task that ends takes its unfinished children with it (cancelled, naming the cause), so nothing shows
    "running" under a finished task; an agent killed during a step left such a child behind."""
    for child in task_rows.open_children(tx.conn, parent.id, actor.workspace_id):
        change_status(tx, hub_actor(actor.workspace_id), child, "cancelled", by="hub", correlation_id=correlation_id,
                      cause="parent_ended", parentTaskId=parent.id, parentStatus=parent_status)


def stored_payload(env: Envelope, parsed: Any, **hub_fields: Any) -> dict[str, Any]:
    """What is stored: the sender's payload (unknown fields kept), its normalised known fields, hub fields."""
    return {**env.payload, **msgspec.to_builtins(parsed), **hub_fields}


def pending_interactions(tx: Tx, workspace_id: str, task_id: str) -> list[InteractionRecord]:
    return interaction_rows.pending_of_task(tx.conn, task_id, workspace_id)


def resume_task_if_unblocked(tx: Tx, actor: Actor, task_id: str | None, correlation_id: str | None) -> None:
    """waiting_for_human → running once no pending interaction blocks the task any more."""
    if task_id is None:
        return
    task = task_rows.task(tx.conn, task_id, actor.workspace_id)
    if task is not None and task.status == "waiting_for_human" \
            and not pending_interactions(tx, actor.workspace_id, task_id):
        change_status(tx, actor, task, "running", by="hub", correlation_id=correlation_id, cause="interaction_resolved")


# ---- app (person) handlers -------------------------------------------------------------------------

def conversation_create(tx: Tx, actor: Actor, env: Envelope, p: P.ConversationCreate) -> None:
    conversation_id = env.conversationId or new_id("conv")
    ensure_new(tx, actor.workspace_id, "conversations", conversation_id, "conversation")
    # An agent opens a conversation of its own (the MCP bridge, one per MCP session): it is the member.
    agent_ids = [actor.id] if actor.kind == "agent" else p.agentIds
    for agent_id in agent_ids:
        get_agent(tx, actor.workspace_id, agent_id)
    tx.append("conversation.created", stored_payload(env, p, agentIds=agent_ids, createdBy=actor.as_author()),
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, conversation_id=conversation_id,
              correlation_id=env.correlationId, occurred_at=env.occurredAt)


def message_create(tx: Tx, actor: Actor, env: Envelope, p: P.MessageCreate) -> None:
    conversation = get_conversation(tx, actor, env.conversationId)
    if env.taskId is not None:  # a message shows in that task's timeline: only a task the sender may touch
        get_task(tx, actor, env.taskId)
    if not p.messageId:
        message_id = new_id("msg")  # made here (80 random bits): it cannot exist yet, no need to look
    else:
        message_id = p.messageId
        existing = conversation_rows.message(tx.conn, message_id, actor.workspace_id)
        if existing is not None and not (existing.state == "streaming" and existing.author_id == actor.id
                                         and existing.conversation_id == conversation.id):
            raise LapError("conflict", f"A message with id {message_id!r} already exists.")
    recipients: list[str] = []
    if actor.kind == "user":
        members = conversation.members()
        if p.targetAgentId is not None:
            get_agent(tx, actor.workspace_id, p.targetAgentId)
            recipients = [p.targetAgentId]
        else:
            recipients = members
    if not p.content and not p.blocks and not p.attachments:
        raise LapError("invalid_payload", "A message needs `content`, `blocks` or `attachments`.")
    if p.attention and actor.kind != "agent":
        raise LapError("invalid_payload", "Only an agent's message can ask for attention (`attention`).")
    attached = {"attachments": attached_files(tx, actor, [a.fileId for a in p.attachments])} if p.attachments else {}
    tx.append("message.created", stored_payload(env, p, messageId=message_id, author=actor.as_author(), **attached),
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, conversation_id=conversation.id,
              task_id=env.taskId, correlation_id=env.correlationId, occurred_at=env.occurredAt,
              recipients=tuple(recipients))


def attached_files(tx: Tx, actor: Actor, file_ids: list[str]) -> list[dict[str, Any]]:
    """Each file a message attaches, as it is stored with the message; one that is not the workspace's (or not the
    agent's to read) is `not_found`, as a missing one (docs/protocol.md "Files")."""
    found = file_rows.files(tx.conn, list(dict.fromkeys(file_ids)), actor.workspace_id)
    attached = []
    for file_id in dict.fromkeys(file_ids):
        record = found.get(file_id)
        if record is None or (actor.kind == "agent" and not file_rows.agent_may_read(tx.conn, record, actor.id)):
            raise LapError("not_found", f"No file {file_id!r} in this workspace.",
                           hint="Upload it first (POST /api/files) and attach the fileId it answers.")
        attached.append({"fileId": record.id, "name": record.name, "mimeType": record.mime_type, "size": record.size})
    return attached


def task_create(tx: Tx, actor: Actor, env: Envelope, p: P.TaskCreate) -> None:
    task_id = env.taskId or new_id("task")
    ensure_new(tx, actor.workspace_id, "tasks", task_id, "task")
    conversation = get_conversation(tx, actor, env.conversationId) if env.conversationId is not None else None
    if actor.kind == "agent":
        agent_id = actor.id
    elif p.targetAgentId is not None:
        agent_id = get_agent(tx, actor.workspace_id, p.targetAgentId).id
    else:
        members = conversation.members() if conversation is not None else []
        if len(members) != 1:
            raise LapError("invalid_payload", "Name the agent that should do the task: `targetAgentId`.")
        agent_id = members[0]
    if p.parentTaskId is not None:
        get_task(tx, actor, p.parentTaskId)
    tx.append("task.created", stored_payload(env, p, agentId=agent_id, status="queued", createdBy=actor.as_author()),
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, task_id=task_id,
              conversation_id=conversation.id if conversation is not None else None,
              correlation_id=env.correlationId, occurred_at=env.occurredAt,
              recipients=(agent_id,) if actor.kind == "user" else ())
    agent = agent_rows.live_agent(tx.conn, agent_id, actor.workspace_id)
    if actor.kind == "user" and agent is not None and agent.runtime in TERMINAL_RUNTIMES:
        # A program in the person's own terminal (`lineup connect`) takes no work from the hub: say so at once
        # instead of leaving the task queued for ever (docs/sessions.md "Terminal agents").
        task = task_rows.task(tx.conn, task_id, actor.workspace_id)
        assert task is not None
        why = TERMINAL_RUNTIMES[agent.runtime].format(name=agent.name)
        change_status(tx, hub_actor(actor.workspace_id), task, "cancelled", by="hub",
                      correlation_id=env.correlationId, cause="terminal_agent", summary=why,
                      error={"code": "terminal_agent", "message": why})


# Agents that run in the person's own terminal or program (`lineup connect claude-code`: its hooks; `lineup connect
# codex / gemini`, `lineup mcp`: the MCP bridge): the hub cannot make them start work, so a person's task to one is
# ended at once, saying why (cause `terminal_agent`).
TERMINAL_RUNTIMES = {
    "claude-code": "{name} runs in your terminal (lineup connect): the hub cannot start work there. Type the task "
                   "in its terminal, or start a session from the app (New session), which the hub runs itself.",
    "mcp": "{name} runs in its own program (lineup connect / lineup mcp): the hub cannot start work there. Give it "
           "the task in that program, or start a session from the app (New session), which the hub runs itself.",
}


def task_cancel_requested(tx: Tx, actor: Actor, env: Envelope, p: P.TaskCancelRequested) -> None:
    task = get_task(tx, actor, env.taskId)
    if task.status in TERMINAL:
        raise illegal_transition(f"The task is already {task.status}; there is nothing to cancel.",
                                 task.status, "cancelled")
    recipients = (task.agent_id,) if task.agent_id else ()
    tx.append("task.cancel_requested", stored_payload(env, p, requestedBy=actor.as_author()), id=env.id,
              workspace_id=actor.workspace_id, actor=actor.ref, task_id=task.id,
              conversation_id=task.conversation_id, correlation_id=env.correlationId,
              occurred_at=env.occurredAt, recipients=recipients)
    # docs/design.md#cancel-is-a-request: a queued task or one waiting for the person stops at once; a running one only
    # when its agent confirms or the cancel timeout passes (hub/domain/housekeeping.py).
    if task.status == "waiting_for_human":
        end_pending_interactions(tx, actor, task, {"cause": "task_cancelled"}, env.correlationId)
    if task.status in ("queued", "waiting_for_human"):
        change_status(tx, actor, task, "cancelled", by="user", correlation_id=env.correlationId,
                      cause="cancelled_by_user")


def resolve_interaction(tx: Tx, actor: Actor, interaction: InteractionRecord, outcome: str,
                        response: dict[str, Any] | None, *, correlation_id: str | None, envelope_id: str | None = None,
                        occurred_at: str | None = None, answered_at: str | None = None) -> None:
    """Record the outcome of an interaction; the agent that asked always receives it."""
    type_ = "interaction.expired" if outcome == "expired" else "interaction.resolved"
    payload: dict[str, Any] = {"interactionId": interaction.id, "outcome": outcome, "response": response}
    if actor.kind == "user":
        payload["respondedBy"] = {**actor.as_author(), "displayName": people.user_display_name(tx.conn, actor.id)}
    if answered_at is not None:
        payload["answeredAt"] = answered_at
    tx.append(type_, payload, id=envelope_id, workspace_id=actor.workspace_id, actor=actor.ref,
              task_id=interaction.task_id, conversation_id=interaction.conversation_id,
              correlation_id=correlation_id, occurred_at=occurred_at, recipients=(interaction.agent_id,))


CLOSED_BECAUSE = {
    "task_cancelled": "the task was cancelled (someone cancelled the task)",
    "agent_revoked": "its agent was revoked",
}


def why_closed(interaction: InteractionRecord) -> str:
    """Why a question can no longer be answered, in words the person reads on the card, an IM reply or a phone."""
    when = f" at {interaction.responded_at}" if interaction.responded_at else ""
    if interaction.status == "cancelled":
        response = json.loads(interaction.response) if interaction.response else None
        cause = response.get("cause") if isinstance(response, dict) else None
        if cause == "withdrawn":
            reason = response.get("reason") if isinstance(response, dict) else None
            return (f"The agent withdrew this question{when}" + (f": {reason}" if reason else "")
                    + ". It can no longer be answered.")
        if cause == "task_ended":
            status = response.get("taskStatus") if isinstance(response, dict) else None
            return f"This question's task ended{f' ({status})' if status else ''}{when}; it can no longer be answered."
        if cause in CLOSED_BECAUSE:
            return f"This question was closed{when}: {CLOSED_BECAUSE[cause]}. It can no longer be answered."
    who = json.loads(interaction.responded_by) if interaction.responded_by else None
    name = (who.get("displayName") or who.get("name") or f"{who.get('kind')} {who.get('id')}") if who else None
    by = f" by {name}" if name else ""
    return f"This question was already {interaction.status}{by}{when}; the first answer stands."


def answered_at(occurred_at: str, asked_at: str, received_at: str) -> str:
    """When the person answered, as the card's "Decided" says it: the answer's own time (the tap in the app, which an
    answer kept while offline carries to the hub later), held between the question's creation and the hub's receipt,
    so a phone's wrong clock never dates an answer in the future or before the question. All three are UTC ISO 8601;
    an unreadable time is the receipt."""
    def parsed(value: str) -> datetime | None:
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return when if when.tzinfo is not None else None

    received, asked, tapped = parsed(received_at), parsed(asked_at), parsed(occurred_at)
    if received is None or tapped is None:
        return received_at
    when = min(tapped, received)
    if asked is not None:
        when = max(when, asked)
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def interaction_respond(tx: Tx, actor: Actor, env: Envelope, p: P.InteractionRespond) -> None:
    interaction = interaction_rows.interaction(tx.conn, p.interactionId, actor.workspace_id)
    if interaction is None:
        raise LapError("not_found", f"No interaction {p.interactionId!r} in this workspace.")
    if interaction.status == "expired":  # the same answer as before the expiry was recorded
        raise LapError("expired", f"This interaction expired at {interaction.expires_at}.")
    if interaction.status != "pending":
        raise LapError("already_resolved", why_closed(interaction), hint="Nothing was decided by this answer.")
    if is_expired(interaction.expires_at):
        raise LapError("expired", f"This interaction expired at {interaction.expires_at}.")
    spec = json.loads(interaction.spec)
    outcome, response = check_response(spec, p.response)
    resolve_interaction(tx, actor, interaction, outcome, response, correlation_id=env.correlationId,
                        envelope_id=env.id, occurred_at=env.occurredAt,
                        answered_at=answered_at(env.occurredAt, interaction.created_at, tx.recorded_at))
    resume_task_if_unblocked(tx, actor, interaction.task_id, env.correlationId)


# ---- agent handlers --------------------------------------------------------------------------------

def task_accepted(tx: Tx, actor: Actor, env: Envelope, p: P.TaskAccepted) -> None:
    task = get_task(tx, actor, p.taskId or env.taskId)
    if task.status != "queued":
        raise illegal_transition(f"Only a queued task can be accepted; this one is {task.status}.",
                                 task.status, "running")
    tx.append("task.accepted", stored_payload(env, p, taskId=task.id), id=env.id, workspace_id=actor.workspace_id,
              actor=actor.ref, task_id=task.id, conversation_id=task.conversation_id,
              correlation_id=env.correlationId, occurred_at=env.occurredAt)
    change_status(tx, actor, task, "running", by="agent", correlation_id=env.correlationId, cause="accepted")


def task_status_changed(tx: Tx, actor: Actor, env: Envelope, p: P.TaskStatusChanged) -> None:
    task = get_task(tx, actor, env.taskId)
    target = p.status or task.status
    if p.status is None and task.status in TERMINAL:
        raise illegal_transition(f"The task is already {task.status}; it takes no more progress.",
                                 task.status, None)
    check_transition(task.status, target, "agent")
    if task.status in TERMINAL and target == task.status:
        return  # confirming an end the task already has (a cancel the hub already applied): nothing to store
    if target == "failed" and p.error is None:
        raise LapError("invalid_payload", "A failed task needs `error: {code, message}`.")
    tx.append("task.status_changed", stored_payload(env, p, status=target, previousStatus=task.status),
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, task_id=task.id,
              conversation_id=task.conversation_id, correlation_id=env.correlationId, occurred_at=env.occurredAt)
    if target in TERMINAL:
        end_open_children(tx, actor, task, target, env.correlationId)


CHECKPOINT_DATA_BYTES = 16 * 1024
CHECKPOINTS_PER_TASK = 200


def task_checkpoint(tx: Tx, actor: Actor, env: Envelope, p: P.TaskCheckpoint) -> None:
    """The agent finished a named step of its task (docs/sdk.md "Restart-safe handlers")."""
    task = get_task(tx, actor, env.taskId)
    if task.status in TERMINAL:
        raise illegal_transition(f"The task is already {task.status}; it takes no more checkpoints.",
                                 task.status, None)
    if len(msgspec.json.encode(p.data)) > CHECKPOINT_DATA_BYTES:
        raise LapError("invalid_payload", f"A checkpoint's data is limited to {CHECKPOINT_DATA_BYTES} bytes of JSON.",
                       hint="Keep large results in an artifact and put its id in the checkpoint.")
    kept = msgspec.json.decode(task.checkpoints or "{}")
    if p.name not in kept and len(kept) >= CHECKPOINTS_PER_TASK:
        raise LapError("rate_limited", f"A task keeps at most {CHECKPOINTS_PER_TASK} checkpoints.",
                       details={"limit": "checkpoints", "max": CHECKPOINTS_PER_TASK})
    tx.append("task.checkpoint", stored_payload(env, p, name=p.name, data=p.data), id=env.id,
              workspace_id=actor.workspace_id, actor=actor.ref, task_id=task.id,
              conversation_id=task.conversation_id, correlation_id=env.correlationId, occurred_at=env.occurredAt)


def task_child_created(tx: Tx, actor: Actor, env: Envelope, p: P.TaskChildCreated) -> None:
    parent = get_task(tx, actor, p.parentTaskId)
    child_id = p.taskId or new_id("task")
    ensure_new(tx, actor.workspace_id, "tasks", child_id, "task")
    if p.status == "waiting_for_human":
        raise LapError("invalid_payload", "A child task cannot start waiting_for_human; ask through an interaction.")
    # `status` is named explicitly: the payload type omits defaults, and the projection needs it.
    tx.append("task.child_created", stored_payload(env, p, taskId=child_id, agentId=actor.id, status=p.status),
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, task_id=child_id,
              conversation_id=parent.conversation_id, correlation_id=env.correlationId, occurred_at=env.occurredAt)


def interaction_requested(tx: Tx, actor: Actor, env: Envelope, p: P.InteractionRequested | AssessedRequest) -> None:
    assessments = p.assessments if isinstance(p, AssessedRequest) else None
    request = p.request if isinstance(p, AssessedRequest) else p
    request_interaction(tx, actor, request.interaction, task_id=env.taskId, conversation_id=env.conversationId,
                        envelope_id=env.id, correlation_id=env.correlationId, occurred_at=env.occurredAt,
                        extra=env.payload, assessments=assessments)


def interaction_withdraw(tx: Tx, actor: Actor, env: Envelope, p: P.InteractionWithdraw) -> None:
    """The agent stops waiting for an answer: the question ends as `cancelled` (cause `withdrawn`) everywhere."""
    interaction = interaction_rows.interaction(tx.conn, p.interactionId, actor.workspace_id)
    if interaction is None:
        raise LapError("not_found", f"No interaction {p.interactionId!r} in this workspace.")
    if interaction.agent_id != actor.id:
        raise LapError("forbidden", "That question was asked by another agent.")
    if interaction.status != "pending":
        raise LapError("already_resolved", f"This interaction is already {interaction.status} "
                                           f"at {interaction.responded_at}; the outcome was sent to you.")
    cause: dict[str, Any] = {"cause": "withdrawn"}
    if p.reason.strip():
        cause["reason"] = p.reason.strip()
    resolve_interaction(tx, actor, interaction, "cancelled", cause, correlation_id=env.correlationId,
                        envelope_id=env.id, occurred_at=env.occurredAt)
    resume_task_if_unblocked(tx, actor, interaction.task_id, env.correlationId)


def request_interaction(tx: Tx, actor: Actor, request: P.InteractionSpec, *, task_id: str | None,
                        conversation_id: str | None, envelope_id: str | None, correlation_id: str | None,
                        occurred_at: str | None = None, extra: dict[str, Any] | None = None,
                        tool_call: dict[str, Any] | None = None,
                        assessments: list[Assessment] | None = None) -> str:
    """Store an interaction (and block its task); also used by human-facing tools (hub/tools/handlers.py)."""
    interaction_id = request.id or new_id("int")
    ensure_new(tx, actor.workspace_id, "interactions", interaction_id, "interaction")
    check_question_budget(tx, actor, request)
    task = get_task(tx, actor, task_id) if task_id is not None else None
    if task is not None and task.status not in ACTIVE:
        raise illegal_transition(f"Only a running task can ask the person; this one is {task.status}.",
                                 task.status, "waiting_for_human")
    conversation_id = conversation_id or (task.conversation_id if task is not None else None)
    if conversation_id is not None:
        get_conversation(tx, actor, conversation_id)
    spec = normalize_spec(request, interaction_id, datetime.now(UTC), assessments)
    if tool_call is not None:
        spec["toolCall"] = tool_call
    tx.append("interaction.requested", {**(extra or {}), "interaction": spec}, id=envelope_id,
              workspace_id=actor.workspace_id, actor=actor.ref, task_id=task.id if task is not None else None,
              conversation_id=conversation_id, correlation_id=correlation_id, occurred_at=occurred_at)
    if task is not None and task.status == "running":
        change_status(tx, actor, task, "waiting_for_human", by="hub", correlation_id=correlation_id,
                      cause="interaction_requested", interactionId=interaction_id)
    return interaction_id


MAX_PENDING_QUESTIONS_PER_AGENT = 100
MAX_QUESTION_BYTES = 64 * 1024


def check_question_budget(tx: Tx, actor: Actor, request: P.InteractionSpec) -> None:
    """One agent may not bury the person: at most 100 questions waiting at once, each at most 64 KiB of JSON.
    (A flood of 5,000 pending 20 KB questions made the inbox 102 MB; the browser never rendered it.)"""
    if actor.kind != "agent":
        return
    size = len(msgspec.json.encode(request))
    if size > MAX_QUESTION_BYTES:
        raise LapError("invalid_payload", f"This question is {size} bytes; a question is limited to "
                                          f"{MAX_QUESTION_BYTES} bytes.",
                       hint="Put long material in an artifact or a review attachment and link it.")
    waiting = interaction_rows.pending_count_of_agent(tx.conn, actor.id, actor.workspace_id)
    if waiting >= MAX_PENDING_QUESTIONS_PER_AGENT:
        raise LapError("rate_limited", f"This agent already has {waiting} questions waiting for the person "
                                       f"(the limit is {MAX_PENDING_QUESTIONS_PER_AGENT}).",
                       hint="Wait for answers before asking more.",
                       details={"limit": "pendingQuestions", "max": MAX_PENDING_QUESTIONS_PER_AGENT})


def artifact_created(tx: Tx, actor: Actor, env: Envelope, p: P.ArtifactCreated) -> None:
    file_fields: dict[str, Any] = {}
    if p.fileId is not None:  # a file uploaded to the hub: the hub says where it is and what type it is
        record = attached_files(tx, actor, [p.fileId])[0]
        file_fields = {"url": f"/api/files/{record['fileId']}", "mimeType": record["mimeType"], "size": record["size"]}
    elif p.url is None:
        raise LapError("invalid_payload", "An artifact needs `url` or `fileId`.")
    else:
        check_link(p.url, "artifact.url")  # judged on the parsed URL, never on its first characters
    artifact_id = p.artifactId or new_id("art")
    ensure_new(tx, actor.workspace_id, "artifacts", artifact_id, "artifact")
    task = get_task(tx, actor, env.taskId) if env.taskId is not None else None
    conversation_id = env.conversationId or (task.conversation_id if task is not None else None)
    if conversation_id is not None:
        get_conversation(tx, actor, conversation_id)
    tx.append("artifact.created", stored_payload(env, p, artifactId=artifact_id, **file_fields), id=env.id,
              workspace_id=actor.workspace_id, actor=actor.ref, task_id=task.id if task is not None else None,
              conversation_id=conversation_id, correlation_id=env.correlationId, occurred_at=env.occurredAt)


APP_HANDLERS: dict[str, Handler] = {
    "conversation.create": conversation_create,
    "message.create": message_create,
    "task.create": task_create,
    "task.cancel_requested": task_cancel_requested,
    "interaction.respond": interaction_respond,
}
AGENT_HANDLERS: dict[str, Handler] = {
    "conversation.create": conversation_create,
    "message.create": message_create,
    "task.create": task_create,
    "task.accepted": task_accepted,
    "task.status_changed": task_status_changed,
    "task.child_created": task_child_created,
    "task.checkpoint": task_checkpoint,
    "interaction.requested": interaction_requested,
    "interaction.withdraw": interaction_withdraw,
    "artifact.created": artifact_created,
}


# Handlers that refuse only before their first write (every check first, then one `tx.append`): the writer runs
# them without a SAVEPOINT (hub/store/writer.py Command.writes_last). A handler added here must keep that shape.
WRITES_LAST: frozenset[Handler] = frozenset({message_create})


def command_for(actor: Actor, env: Envelope, handler: Handler, parsed: Any) -> Command:
    """Wrap one inbound envelope as a writer command keyed by its id (within the workspace) for idempotency."""
    digest = request_digest(actor.ref, env.type, env.workspaceId, env.conversationId, env.taskId, env.payload)
    return Command(run=lambda tx: handler(tx, actor, env, parsed), dedupe_id=env.id, request_hash=digest,
                   workspace_id=actor.workspace_id, writes_last=handler in WRITES_LAST)
