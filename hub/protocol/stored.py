"""Payload types of what the hub sends: the events it stores (as apps and agents see them) and its live frames.

The hub builds these payloads itself, so nothing here validates at run time: they exist to publish the
contract (`lineup schema`, hub/protocol/schema.py), and the test suite checks every frame against it. A stored
event keeps its sender's payload (unknown fields included) with the hub's fields added, so each type below
extends the inbound type of hub/protocol/payloads.py it came from: one definition of every field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from hub.protocol import payloads as P
from hub.protocol.envelope import Id
from hub.protocol.vocabulary import AgentStatus, InteractionOutcome, RiskLevel, TaskStatus

# How an agent sees a stored fact addressed to it (docs/protocol.md "What each receiver sees").
AGENT_VIEW_TYPES = {
    "task.created": "task.assigned",
    "message.created": "message.delivered",
    "interaction.expired": "interaction.resolved",
}


class Author(P.Payload):
    """Who made an event: a person, an agent, or the hub itself."""
    kind: Literal["user", "agent", "hub"]
    id: str


class Responder(Author, kw_only=True):
    displayName: str | None = None


class Party(P.Payload):
    """Who registers or calls tools: an agent, or an app (one signed-in device)."""
    kind: Literal["agent", "app"]
    id: str


class ToolTarget(P.Payload):
    kind: Literal["hub", "interaction", "agent", "app", "none"]
    id: str | None


# ---- the collaboration facts (hub/domain/collaboration.py) ---------------------------------------------------

class ConversationCreated(P.ConversationCreate, kw_only=True):
    agentIds: list[Id]
    createdBy: Author


class StoredAttachment(P.Attachment, kw_only=True):
    """An attached file as the hub stores it with the message: what the app shows and the agent downloads."""
    name: str
    mimeType: str
    size: int


class MessageCreated(P.MessageCreate, kw_only=True):
    messageId: Id
    author: Author
    attachments: list[StoredAttachment] | None = None  # type: ignore[assignment]  # the hub's fuller form


class MessageUpdated(P.Payload):
    """What a streaming message holds so far (hub/domain/housekeeping.py snapshot_stream)."""
    messageId: Id
    content: str
    author: Author
    state: Literal["streaming"]


class TaskCreated(P.TaskCreate, kw_only=True):
    agentId: Id
    status: Literal["queued"]
    createdBy: Author


class StoredTaskCancelRequested(P.TaskCancelRequested, kw_only=True):
    requestedBy: Author


class StoredTaskAccepted(P.TaskAccepted, kw_only=True):
    taskId: Id


class StoredTaskStatusChanged(P.TaskStatusChanged, kw_only=True):
    """A move of the task state machine; `cause` says why when the hub or a person made it."""
    status: TaskStatus
    previousStatus: TaskStatus
    cause: str | None = None
    interactionId: Id | None = None       # cause interaction_requested
    parentTaskId: Id | None = None        # cause parent_ended
    parentStatus: TaskStatus | None = None


class StoredTaskChildCreated(P.TaskChildCreated, kw_only=True):
    taskId: Id
    agentId: Id


class StoredApprovalSubject(P.ApprovalSubject, kw_only=True):
    """One item an approval approves, with what the hub counted (its length in characters and lines) and judged (its
    risk); a tool's input also as the text the card shows (`text`: its JSON, indented)."""
    length: int
    lines: int
    risk: RiskLevel | None = None   # None in events stored before 2026-12 (one item, judged as the whole)
    text: str | None = None


class RiskReasonCode(P.Payload):
    """One reason for an approval's risk as a code the app translates (`risk.reason.<code>`), with the part of the
    command or the file it names; hub/domain/command_risk.py REASONS lists the codes and their English text. `level`
    is the risk this reason alone makes (absent in events stored before 2026-12): the app shows the high ones
    prominently; they come first, the most destructive first."""
    code: str
    part: str | None = None
    level: RiskLevel | None = None


class StoredInteraction(P.InteractionSpec, kw_only=True):
    id: Id
    toolCall: dict[str, Any] | None = None  # asked for a human tool's call (hub/tools/handlers.py)
    # Stored as a list since 2026-12 (every item the card shows); one object in events stored before.
    approves: list[StoredApprovalSubject] | StoredApprovalSubject | None = None  # type: ignore[assignment]
    # approval with `approves`: why the hub judged the risk it did (hub/domain/command_risk.py), for the card:
    # in English (chat relays, older apps), and the same reasons in the same order as codes to translate.
    riskReasons: list[str] | None = None
    riskReasonCodes: list[RiskReasonCode] | None = None


class StoredInteractionRequested(P.InteractionRequested, kw_only=True):
    interaction: StoredInteraction


class InteractionResolved(P.Payload):
    """The outcome of a question; `response` is the checked answer, null when nobody answered."""
    interactionId: Id
    outcome: InteractionOutcome
    response: dict[str, Any] | None
    respondedBy: Responder | None = None
    # When the person answered: the answer's own time (its envelope's `occurredAt`, the tap in the app, also for an
    # answer kept while offline and sent later), never later than the hub received it nor earlier than the question.
    answeredAt: str | None = None


class StoredArtifactCreated(P.ArtifactCreated, kw_only=True):
    artifactId: Id
    url: str  # a file's is /api/files/<fileId>, set by the hub
    size: int | None = None  # a file's size in bytes


class FileStored(P.Payload):
    """A file uploaded to the hub (POST /api/files, docs/protocol.md "Files"); its bytes are kept by content."""
    fileId: Id
    name: str
    mimeType: str
    size: int
    sha256: str
    uploadedBy: Author


# ---- tools (hub/tools/handlers.py) ------------------------------------------------------------------------------

class ToolsRegistered(P.Payload):
    owner: Party
    tools: list[dict[str, Any]]


class StoredToolCall(P.ToolCall, kw_only=True):
    caller: Party
    target: ToolTarget


class StoredToolResult(P.ToolResult, kw_only=True):
    callEventId: Id
    instance: dict[str, Any] | None = None


class ToolOffer(P.ToolList, kw_only=True):
    """The answer to `tool.list {}`: what is on offer to the asker (not stored)."""
    tools: list[dict[str, Any]]


# ---- what the hub records by itself ------------------------------------------------------------------------------

class AgentStatusChanged(P.Payload):
    agentId: Id
    status: AgentStatus
    reason: str
    lastHeartbeatAt: str | None
    runtime: str | None = None
    agentVersion: str | None = None
    capabilities: list[str] | None = None


class NotificationCreated(P.Payload):
    """The in-app channel's notification (docs/notifications.md): no raw details."""
    id: Id
    kind: str
    title: str
    body: str | None = None
    link: str | None = None
    risk: str | None = None
    agent: str | None = None
    taskId: Id | None = None
    interactionId: Id | None = None


class RelayStatusChanged(P.Payload):
    """The WuKongIM uplink's state (docs/relay.md)."""
    state: str
    code: str | None = None
    message: str | None = None


# ---- accounts (hub/domain/accounts.py); the secrets' hashes never leave the hub -------------------------------------

class WorkspaceCreated(P.Payload):
    name: str


class UserCreated(P.Payload):
    userId: Id
    username: str
    displayName: str
    role: Literal["owner", "member"]


class UserClaimed(UserCreated, kw_only=True):
    workspaceName: str


class DeviceCreated(P.Payload):
    deviceId: Id
    userId: Id
    name: str
    signInLinkId: Id | None = None


class DeviceRevoked(P.Payload):
    deviceId: Id


class PairingCodeCreated(P.Payload):
    codeId: Id
    name: str | None
    expiresAt: str
    replacesAgentId: Id | None = None  # pairing with it rotates this agent's credential (no new agent)


class SignInLinkCreated(P.Payload):
    linkId: Id
    userId: Id
    expiresAt: str


class AgentPaired(P.Payload):
    agentId: Id
    name: str
    runtime: str
    agentVersion: str
    codeId: Id
    credentialId: Id


class AgentCredentialRotated(P.Payload):
    """The same agent paired again: a new credential, the earlier ones refused from now on (their sockets 4401)."""
    agentId: Id
    name: str
    runtime: str
    agentVersion: str
    codeId: Id
    credentialId: Id
    by: Literal["credential", "code"]  # proved by its earlier credential, or a code the app made for this agent


class AgentRef(P.Payload):
    agentId: Id


class AgentRenamed(AgentRef, kw_only=True):
    name: Annotated[str, msgspec.Meta(min_length=1)]


class HubRenamed(P.Payload):
    name: str


# ---- sessions started from the phone (hub/sessions/, docs/sessions.md) -------------------------------------------

class SessionWorktree(P.Payload):
    path: str
    branch: str | None
    created: bool                          # made for this session (`git worktree add`), else one that existed


class SessionUsage(P.Payload, kw_only=True):
    """What the agent reported of its token use (nothing is estimated): ACP `usage_update` (tokens in context, the
    window, its cost) and the prompt responses' `usage`, summed over the session's turns."""
    contextUsed: int | None = None
    contextSize: int | None = None
    cost: dict[str, Any] | None = None     # {amount, currency}, as the agent reported it
    inputTokens: int | None = None
    outputTokens: int | None = None
    totalTokens: int | None = None
    thoughtTokens: int | None = None
    cachedReadTokens: int | None = None
    cachedWriteTokens: int | None = None


class SessionStarted(P.Payload, kw_only=True):
    sessionId: Id
    conversationId: Id
    agentKey: str
    agentId: Id
    project: str
    folder: str                            # where the agent works: the project, or the worktree
    where: Literal["folder", "new_worktree", "worktree"]
    worktree: SessionWorktree | None = None
    baseCommit: str | None                 # HEAD when the session started (null in a repository without commits)
    startSnapshot: str | None              # a commit of everything in the folder at the start, untracked files too
    baseRef: str | None = None             # what "branch vs base" compares with
    mode: str | None = None
    model: str | None = None
    title: str


class SessionUpdated(P.Payload, kw_only=True):
    sessionId: Id
    status: Literal["idle", "running"] | None = None
    usage: SessionUsage | None = None
    mode: str | None = None
    model: str | None = None


class SessionEnded(P.Payload, kw_only=True):
    sessionId: Id
    reason: str                            # ended | hub_restarted | agent_cannot_resume | worktree_missing | ...
    message: str | None = None


class SessionCommitRequested(P.Payload, kw_only=True):
    sessionId: Id
    interactionId: Id
    message: str
    files: list[str]


class SessionCommitResolved(P.Payload, kw_only=True):
    sessionId: Id
    interactionId: Id
    outcome: Literal["committed", "declined", "failed", "withdrawn"]
    commit: str | None = None
    error: str | None = None


# Every event type the hub stores, as apps receive it (with `sequence`), and its payload type.
STORED: dict[str, type[P.Payload]] = {
    "conversation.created": ConversationCreated,
    "message.created": MessageCreated,
    "message.updated": MessageUpdated,
    "task.created": TaskCreated,
    "task.cancel_requested": StoredTaskCancelRequested,
    "task.accepted": StoredTaskAccepted,
    "task.status_changed": StoredTaskStatusChanged,
    "task.child_created": StoredTaskChildCreated,
    "task.checkpoint": P.TaskCheckpoint,
    "interaction.requested": StoredInteractionRequested,
    "interaction.resolved": InteractionResolved,
    "interaction.expired": InteractionResolved,
    "artifact.created": StoredArtifactCreated,
    "file.stored": FileStored,
    "tools.registered": ToolsRegistered,
    "tool.call": StoredToolCall,
    "tool.result": StoredToolResult,
    "agent.status_changed": AgentStatusChanged,
    "notification.created": NotificationCreated,
    "relay.status_changed": RelayStatusChanged,
    "workspace.created": WorkspaceCreated,
    "user.created": UserCreated,
    "user.claimed": UserClaimed,
    "device.created": DeviceCreated,
    "device.revoked": DeviceRevoked,
    "pairing_code.created": PairingCodeCreated,
    "sign_in_link.created": SignInLinkCreated,
    "agent.paired": AgentPaired,
    "agent.credential_rotated": AgentCredentialRotated,
    "agent.revoked": AgentRef,
    "agent.renamed": AgentRenamed,
    "hub.renamed": HubRenamed,
    "session.started": SessionStarted,
    "session.updated": SessionUpdated,
    "session.ended": SessionEnded,
    "session.commit_requested": SessionCommitRequested,
    "session.commit_resolved": SessionCommitResolved,
}

# The stored events an agent can be addressed (the `recipients` of hub/store/writer.py's append), by the name it
# receives them under (AGENT_VIEW_TYPES renames three; tests/unit/protocol checks this against the code).
AGENT_RECEIVES: dict[str, type[P.Payload]] = {
    "task.assigned": TaskCreated,
    "message.delivered": MessageCreated,
    "interaction.resolved": InteractionResolved,
    "task.cancel_requested": StoredTaskCancelRequested,
    "task.status_changed": StoredTaskStatusChanged,
    "tool.call": StoredToolCall,
    "tool.result": StoredToolResult,
}


class MessageDeltaOut(P.MessageDelta, kw_only=True):
    author: Author


# Frames the hub sends without storing them (no `sequence`): besides the system frames.
LIVE_TO_APPS: dict[str, type[P.Payload]] = {"message.delta": MessageDeltaOut, "tool.list": ToolOffer}
LIVE_TO_AGENTS: dict[str, type[P.Payload]] = {"tool.list": ToolOffer}
