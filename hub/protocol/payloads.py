"""Payload types of every LAP/0.1 event the hub accepts or sends
(docs/protocol.md#requests-and-the-facts-they-store)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from hub.protocol.envelope import Id
from hub.protocol.errors import LapError
from hub.protocol.vocabulary import InteractionType, RiskLevel, TaskStatus

Text = Annotated[str, msgspec.Meta(max_length=256 * 1024)]
Title = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Progress = Annotated[int, msgspec.Meta(ge=0, le=100)]
Cursor = Annotated[int, msgspec.Meta(ge=0)]

# The vocabularies (task statuses, interaction types, risk levels) are defined once, in hub/protocol/vocabulary.py.


class Payload(msgspec.Struct, omit_defaults=True):
    """Base of payload types. Unknown fields are tolerated here and kept in the stored event."""


# ---- handshake and system frames ------------------------------------------------------------------

class AgentHello(Payload):
    credential: Annotated[str, msgspec.Meta(min_length=1, max_length=512)]
    agentVersion: str = ""
    runtime: str = ""
    capabilities: list[str] = []
    tools: list[dict[str, Any]] | None = None
    epoch: str | None = None
    lastSequence: Cursor | None = None
    # Which copy of the agent this connection is (docs/protocol.md "One connection per agent instance"): a newer
    # connection of the same instance replaces the older one (close 4409); different instances coexist.
    instance: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | None = None


class AppHello(Payload):
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=512)]
    epoch: str | None = None
    lastSequence: Cursor | None = None


class Welcome(Payload):
    workspaceId: str
    heartbeatIntervalMs: int
    epoch: str
    headSequence: int
    agentId: str | None = None
    userId: str | None = None
    deviceId: str | None = None
    openTasks: list[dict[str, Any]] | None = None  # agents: their unfinished tasks, as the hub has them
    openTasksTruncated: bool = False


class Ack(Payload):
    id: str
    sequence: int | None
    duplicate: bool = False
    warning: Literal["unknown_type"] | None = None
    transient: bool = False  # a message.delta: answered at once, stored later (docs/protocol.md "Streaming")


class Error(Payload):
    code: str
    message: str
    hint: str
    id: str | None = None
    # For programs (the SDKs) that must not read the message: e.g. illegal_transition's {from, to}, a limit's name.
    details: dict[str, Any] | None = None


class ResyncRequired(Payload):
    reason: Literal["epoch_changed", "beyond_head", "unavailable"]
    epoch: str
    headSequence: int


class CaughtUp(Payload):
    sequence: int


class Ping(Payload):
    """`system.ping` (a client's heartbeat) and the hub's `system.pong`: an empty payload."""


# ---- app -> hub ----------------------------------------------------------------------------------

class ConversationCreate(Payload):
    title: Title
    agentIds: list[Id] = []


class Attachment(Payload):
    """A file uploaded to the hub (POST /api/files) attached to a message; the hub adds its name, type and size."""
    fileId: Id


MAX_ATTACHMENTS = 10


class MessageCreate(Payload):
    content: Text = ""
    messageId: Id | None = None
    targetAgentId: Id | None = None
    blocks: list[dict[str, Any]] | None = None
    # From an agent only: it waits for the person outside a question ("Claude is waiting for you"); notified as
    # `agent_waiting` (docs/notifications.md).
    attention: bool = False
    # Files of the workspace (docs/protocol.md "Files"): a message may be files alone, without content.
    attachments: Annotated[list[Attachment], msgspec.Meta(max_length=MAX_ATTACHMENTS)] | None = None


class MessageDelta(Payload):
    """A streamed piece of an agent message: `offset` is where `text` starts in the whole message."""

    messageId: Id
    text: Text
    offset: Cursor


class TaskCreate(Payload):
    title: Title
    description: Text = ""
    targetAgentId: Id | None = None
    parentTaskId: Id | None = None


class TaskCancelRequested(Payload):
    reason: Annotated[str, msgspec.Meta(max_length=2000)] | None = None


class InteractionRespond(Payload):
    interactionId: Id
    response: dict[str, Any]


class InteractionWithdraw(Payload):
    """The agent no longer waits for this answer (answered in its terminal, its own timeout, a cancelled turn):
    the card ends everywhere as withdrawn, with `reason` shown to the person."""
    interactionId: Id
    reason: Annotated[str, msgspec.Meta(max_length=500)] = ""


# ---- agent -> hub --------------------------------------------------------------------------------

class TaskAccepted(Payload):
    taskId: Id | None = None


class TaskErrorInfo(Payload):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    message: Annotated[str, msgspec.Meta(max_length=4000)] = ""


class TaskStatusChanged(Payload):
    status: TaskStatus | None = None
    progress: Progress | None = None
    summary: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    error: TaskErrorInfo | None = None


class TaskCheckpoint(Payload):
    """A named step of a task the agent finished, kept by the hub so a restarted agent does not redo it."""
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    data: Any = None


class TaskChildCreated(Payload):
    parentTaskId: Id
    title: Title
    status: TaskStatus = "queued"
    taskId: Id | None = None


class InteractionOption(Payload):
    id: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    label: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    style: Literal["primary", "secondary", "danger"] | None = None
    recommended: bool = False
    description: Annotated[str, msgspec.Meta(max_length=2000)] | None = None


class ApprovedEdit(Payload):
    """One replacement in a file: `old` becomes `new` (every occurrence when `replaceAll`)."""
    old: Text
    new: Text
    replaceAll: bool = False


class CommitFile(Payload):
    """One file of a commit an approval approves: its path, how it changes, and its lines added and removed."""
    path: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    status: Literal["added", "modified", "deleted", "renamed", "copied", "type_changed"]
    added: Annotated[int, msgspec.Meta(ge=0)] = 0
    removed: Annotated[int, msgspec.Meta(ge=0)] = 0
    binary: bool = False
    oldPath: Annotated[str, msgspec.Meta(max_length=4096)] | None = None


GitObjectId = Annotated[str, msgspec.Meta(min_length=40, max_length=64)]  # hex, checked by hub/domain/approvals.py


class ApprovalSubject(Payload):
    """One thing an approval approves, whole (docs/protocol.md#what-an-approval-approves): the command that runs,
    the content a file gets or the edits made to it, a tool's whole input, or the exact commit; never cut. An
    approval carries one such item or a list of them, every one shown on the card. The hub adds `length` and
    `lines` and judges each item's risk itself."""
    kind: Literal["command", "write", "edit", "tool", "commit"]
    # command: the text a shell runs, or `argv` (the program and its arguments, no shell), shown shell-quoted.
    command: Text | None = None
    argv: Annotated[list[Text], msgspec.Meta(min_length=1, max_length=4096)] | None = None
    cwd: Annotated[str, msgspec.Meta(max_length=4096)] | None = None
    path: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)] | None = None
    content: Text | None = None
    edits: Annotated[list[ApprovedEdit], msgspec.Meta(max_length=100)] | None = None
    # A unified diff of the change (write, edit), made by the agent where it can read the file.
    diff: Text | None = None
    # write/edit: the file exists but its content is not shown (a key or secret, outside the working folder, too
    # large, not text): why, and its size in bytes; the card says the whole file is replaced.
    oldHidden: Literal["secret", "outside", "too_large", "not_text"] | None = None
    oldSize: Annotated[int, msgspec.Meta(ge=0)] | None = None
    # tool: a tool without a command or file change (an MCP tool, a web fetch): its name and its whole input.
    tool: Annotated[str, msgspec.Meta(min_length=1, max_length=500)] | None = None
    input: Any = None
    # commit: the tree committed (its id), on which parent, with which message, the files it changes, and the
    # hooks that run (empty: none).
    tree: GitObjectId | None = None
    parent: GitObjectId | None = None
    message: Text | None = None
    files: Annotated[list[CommitFile], msgspec.Meta(max_length=1000)] | None = None
    hooks: Annotated[list[Annotated[str, msgspec.Meta(max_length=200)]], msgspec.Meta(max_length=50)] | None = None


MAX_APPROVAL_ITEMS = 50
ApprovalItems = Annotated[list[ApprovalSubject], msgspec.Meta(min_length=1, max_length=MAX_APPROVAL_ITEMS)]


class InteractionSpec(Payload):
    type: InteractionType
    title: Title
    id: Id | None = None
    description: Text = ""
    impact: Text = ""
    risk: RiskLevel = "medium"
    options: list[InteractionOption] = []
    multiple: bool = False
    # input: a named format or a regular expression the answer must match.
    format: Literal["text", "url", "email", "number", "integer"] = "text"
    pattern: Annotated[str, msgspec.Meta(max_length=500)] | None = None
    placeholder: Annotated[str, msgspec.Meta(max_length=500)] | None = None
    maxLength: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None
    # review: what is to be reviewed.
    content: Text = ""
    attachments: list[dict[str, Any]] = []
    details: dict[str, Any] = {}
    expiresAt: str | None = None
    # approval: what it approves, whole: one item or a list (the card shows every one, all of it; the risk is never
    # lower than any item's).
    approves: ApprovalSubject | ApprovalItems | None = None
    # What happens to a note the person adds to the answer: it reaches the agent with the answer (the default), as
    # the agent's next message (its protocol has no field for it), or not at all (the card says so).
    notes: Literal["sent", "next_message", "not_sent"] = "sent"


class InteractionRequested(Payload):
    interaction: InteractionSpec


class ArtifactCreated(Payload):
    name: Title
    # A link, or `fileId`: a file uploaded to the hub (POST /api/files), whose url and type the hub then sets.
    url: Annotated[str, msgspec.Meta(min_length=1, max_length=4000)] | None = None
    fileId: Id | None = None
    mimeType: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    summary: Annotated[str, msgspec.Meta(max_length=4000)] | None = None
    artifactId: Id | None = None


# ---- the tool layer (docs/protocol.md#tools) ---------------------------------------------------------------

ToolName = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class ToolList(Payload):
    """With `tools`: register the sender's tools (replacing earlier ones). Without: ask what is on offer."""

    tools: list[dict[str, Any]] | None = None


class ToolCall(Payload):
    call_id: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    name: ToolName
    arguments: dict[str, Any] = {}
    action: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None
    targetAgentId: Id | None = None  # an app calling an agent's tool, when several agents offer that name


class ToolError(Payload):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    message: Annotated[str, msgspec.Meta(max_length=4000)] = ""


class ToolResult(Payload):
    call_id: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    name: ToolName | None = None
    action: str | None = None
    result: dict[str, Any] | None = None
    error: ToolError | None = None


# Which payload type each inbound event type has. Inbound types not listed here are unknown.
APP_INBOUND: dict[str, type[Payload]] = {
    "conversation.create": ConversationCreate,
    "message.create": MessageCreate,
    "task.create": TaskCreate,
    "task.cancel_requested": TaskCancelRequested,
    "interaction.respond": InteractionRespond,
    "tool.list": ToolList,
    "tool.call": ToolCall,
    "tool.result": ToolResult,
}
AGENT_INBOUND: dict[str, type[Payload]] = {
    "conversation.create": ConversationCreate,  # the agent is its member (the MCP bridge's sessions)
    "message.create": MessageCreate,
    "message.delta": MessageDelta,
    "task.create": TaskCreate,
    "task.accepted": TaskAccepted,
    "task.status_changed": TaskStatusChanged,
    "task.child_created": TaskChildCreated,
    "task.checkpoint": TaskCheckpoint,
    "interaction.requested": InteractionRequested,
    "interaction.withdraw": InteractionWithdraw,
    "artifact.created": ArtifactCreated,
    "tool.list": ToolList,
    "tool.call": ToolCall,
    "tool.result": ToolResult,
}
HANDSHAKES: dict[str, type[Payload]] = {"agent.hello": AgentHello, "app.hello": AppHello}
SYSTEM_OUTBOUND: dict[str, type[Payload]] = {
    "system.welcome": Welcome,
    "system.ack": Ack,
    "system.error": Error,
    "system.resync_required": ResyncRequired,
    "system.caught_up": CaughtUp,
    "system.pong": Ping,
}
# What a client may send besides its events: the heartbeat, answered before anything else is checked.
CLIENT_SYSTEM: dict[str, type[Payload]] = {"system.ping": Ping}


def parse_payload(kind: type[Payload], payload: dict[str, Any]) -> Any:
    """Validate a payload dict against its type; raise LapError(invalid_payload) naming the bad field."""
    try:
        return msgspec.convert(payload, kind)
    except msgspec.ValidationError as exc:
        raise LapError("invalid_payload", f"Invalid payload: {exc}") from None
