"""The rows the store's reads return (of the projections, and of the notifier's and the relay's own tables), one
Struct per kind: fields named and ordered as the columns they read."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from itertools import starmap
from typing import Any, TypeVar

import msgspec

from hub.protocol.cards import InteractionCard
from hub.protocol.vocabulary import InteractionStatus, InteractionType, RiskLevel

# Fields are typed as SQLite holds them: JSON columns stay `str` (decoded by hub/web/views.py and the handlers).
# Nothing is validated on construction: a read builds its record positionally, `Record(*row)`, from a SELECT that
# names exactly the record's fields in their order (`select_list`), so a record costs what a row did.


def _json(value: str | None) -> Any:
    return None if value is None else json.loads(value)


class TaskRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    conversation_id: str | None
    parent_task_id: str | None
    agent_id: str | None
    title: str
    description: str
    status: str
    progress: int | None
    summary: str | None
    error: str | None  # JSON
    cancel_requested_at: str | None
    cancel_reason: str | None
    connection_lost_at: str | None
    created_by: str
    created_at: str
    updated_at: str
    last_sequence: int
    checkpoints: str  # JSON


class InteractionRecord(msgspec.Struct, frozen=True, gc=False):
    """A row of the interactions table; `to_view()` is the card every read answers (hub/protocol/cards.py, the same
    fields in the same order, camelCase: tests/unit/test_interaction_card.py holds the two together)."""

    id: str
    workspace_id: str
    task_id: str | None
    conversation_id: str | None
    agent_id: str
    type: InteractionType
    title: str
    risk: RiskLevel
    spec: str  # JSON
    status: InteractionStatus
    response: str | None  # JSON
    responded_by: str | None  # JSON
    responded_at: str | None
    expires_at: str | None
    created_at: str
    last_sequence: int

    def to_view(self) -> InteractionCard:
        """The card as the app, the relay's requests and the notifiers read it: the JSON columns decoded."""
        return InteractionCard(
            id=self.id, taskId=self.task_id, conversationId=self.conversation_id, agentId=self.agent_id,
            type=self.type, title=self.title, risk=self.risk, spec=json.loads(self.spec), status=self.status,
            response=_json(self.response), respondedBy=_json(self.responded_by), respondedAt=self.responded_at,
            expiresAt=self.expires_at, createdAt=self.created_at, lastSequence=self.last_sequence)


class PagedInteractionRecord(InteractionRecord, frozen=True, gc=False):
    """An interaction with the key a page of the newest ones continues from (its rowid: the order of creation)."""

    page_cursor: int


class ConversationRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    title: str
    agent_ids: str  # JSON
    created_by: str
    created_at: str
    updated_at: str
    last_sequence: int

    def members(self) -> list[str]:
        """The ids of the agents in the conversation (decoded: a test on the JSON text would let a prefix in)."""
        members: list[str] = msgspec.json.decode(self.agent_ids)
        return members


class MessageRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    conversation_id: str
    author_kind: str
    author_id: str
    target_agent_id: str | None
    content: str
    blocks: str | None  # JSON
    state: str
    created_at: str
    updated_at: str
    first_sequence: int
    last_sequence: int
    attachments: str | None  # JSON: [{fileId, name, mimeType, size}] (docs/protocol.md "Files")


class MessageStateRecord(msgspec.Struct, frozen=True, gc=False):
    """Just what tells whether a message may still stream, and by whom."""

    state: str
    author_id: str


class ArtifactRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    task_id: str | None
    conversation_id: str | None
    agent_id: str
    name: str
    url: str
    mime_type: str | None
    summary: str | None
    created_at: str


class FileRecord(msgspec.Struct, frozen=True, gc=False):
    """A file of a workspace (`file.stored`); its bytes are the blob named by `sha256` (hub/files/blobs.py)."""

    id: str
    workspace_id: str
    name: str
    mime_type: str
    size: int
    sha256: str
    uploaded_by_kind: str
    uploaded_by_id: str
    created_at: str


class FileLinkRecord(msgspec.Struct, frozen=True, gc=False):
    """Where a file was attached: a message or an artifact."""

    workspace_id: str
    file_id: str
    kind: str
    object_id: str
    conversation_id: str | None
    task_id: str | None
    agent_id: str | None


class AgentRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    name: str
    runtime: str
    agent_version: str
    capabilities: str  # JSON
    status: str
    status_reason: str | None
    last_heartbeat_at: str | None
    created_at: str
    revoked_at: str | None


class AgentPresenceRecord(msgspec.Struct, frozen=True, gc=False):
    """An agent's stored status and last heartbeat."""

    id: str
    status: str
    last_heartbeat_at: str | None


class TaskKeyRecord(msgspec.Struct, frozen=True, gc=False):
    """Which task: ids are unique within a workspace only."""

    id: str
    workspace_id: str


class LostTaskRecord(msgspec.Struct, frozen=True, gc=False):
    """A running task whose agent's connection was lost, and since when."""

    id: str
    agent_id: str | None
    connection_lost_at: str  # read only where set


class ExpiryRecord(msgspec.Struct, frozen=True, gc=False):
    """A pending interaction that expires, and when."""

    id: str
    workspace_id: str
    expires_at: str  # read only where set


# ---- people and their access (hub/store/queries/accounts.py) ------------------------------------------------


class _HoldsSecretHash(msgspec.Struct, frozen=True, gc=False):
    """A record with the hash of a secret (a `*_hash` column): its repr leaves the hash out, as a row's did."""

    # A Struct's repr lists its fields, and a repr ends up in logs and tracebacks; sqlite3.Row showed none.
    def __repr__(self) -> str:
        shown = (f"{name}=..." if name.endswith("_hash") else f"{name}={getattr(self, name)!r}"
                 for name in self.__struct_fields__)
        return f"{type(self).__name__}({', '.join(shown)})"

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        return [(name, "..." if name.endswith("_hash") else getattr(self, name)) for name in self.__struct_fields__]


class UserRecord(_HoldsSecretHash, frozen=True, gc=False):
    id: str
    workspace_id: str
    username: str
    display_name: str
    role: str
    password_hash: str  # "scrypt$…", or "!" for an owner the CLI made (no password)
    created_at: str


class WorkspaceRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    name: str
    created_at: str


class DeviceRecord(_HoldsSecretHash, frozen=True, gc=False):
    id: str
    workspace_id: str
    user_id: str
    name: str
    token_hash: str
    created_at: str
    revoked_at: str | None


class SignInLinkRecord(_HoldsSecretHash, frozen=True, gc=False):
    id: str
    workspace_id: str
    user_id: str
    code_hash: str
    created_at: str
    expires_at: str
    used_at: str | None
    device_id: str | None


class PairingCodeRecord(_HoldsSecretHash, frozen=True, gc=False):
    id: str
    workspace_id: str
    code_hash: str
    name: str | None
    created_by: str
    created_at: str
    expires_at: str
    used_at: str | None
    agent_id: str | None
    replaces_agent_id: str | None  # a code the app made to pair this agent again (its credential rotated)


# ---- tools (hub/store/queries/tools.py) ----------------------------------------------------------------------


class ToolInstanceRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    tool: str
    state: str  # JSON
    status: str
    created_by: str
    created_at: str
    updated_at: str
    last_sequence: int


class ToolCallRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    workspace_id: str
    call_id: str
    caller_kind: str
    caller_id: str
    name: str
    action: str | None
    arguments: str  # JSON
    target_kind: str
    target_id: str | None
    instance_id: str | None
    status: str
    result: str | None  # JSON
    error: str | None  # JSON
    created_at: str
    completed_at: str | None
    last_sequence: int


class PendingCallRecord(msgspec.Struct, frozen=True, gc=False):
    """A pending call and where it was routed: what the router picks up again at start."""

    id: str
    workspace_id: str
    target_kind: str
    target_id: str | None
    name: str
    caller_kind: str
    caller_id: str
    instance_id: str | None


class RegistrationRecord(msgspec.Struct, frozen=True, gc=False):
    """Who registered tools, and which (the JSON list)."""

    owner_id: str
    tools: str  # JSON


class QuestionCallRecord(msgspec.Struct, frozen=True, gc=False):
    """A pending call a question tool waits on (tool_calls), with its interaction's spec, status and response."""

    call_event_id: str  # tool_calls.id
    name: str
    action: str | None
    spec: str  # JSON
    status: str  # the interaction's
    response: str | None  # JSON


# ---- the notifier's outbox and action links (hub/store/queries/notifications.py, action_links.py) ----------


class OutboxRecord(msgspec.Struct, frozen=True, gc=False):
    id: str
    channel: str
    kind: str
    subject_key: str
    event_sequence: int
    workspace_id: str
    notification: str  # JSON
    status: str
    attempts: int
    next_attempt_at: str
    last_error: str | None
    created_at: str
    delivered_at: str | None


class OutboxErrorRecord(msgspec.Struct, frozen=True, gc=False):
    """An outbox row's last error, and when the row was queued."""

    last_error: str
    created_at: str


class OutboxLogRecord(msgspec.Struct, frozen=True, gc=False):
    """What the delivery log shows of an outbox row."""

    id: str
    kind: str
    status: str
    attempts: int
    last_error: str | None
    created_at: str
    delivered_at: str | None
    notification: str  # JSON


class ActionLinkRecord(_HoldsSecretHash, frozen=True, gc=False):
    id: str
    token_hash: str
    workspace_id: str
    interaction_id: str
    response: str  # JSON
    expires_at: str
    created_at: str
    used_at: str | None


# ---- the relay's state (hub/store/queries/relay.py) ---------------------------------------------------------


class RelayPersonRecord(msgspec.Struct, frozen=True, gc=False):
    uid: str
    cursor: int
    synced_seq: int
    conversation_id: str | None
    next_question: int


class RelayOutboxRecord(msgspec.Struct, frozen=True, gc=False):
    id: int
    person: str
    client_msg_no: str
    payload: str  # JSON
    red_dot: int  # 0 or 1
    no_persist: int  # 0 or 1
    event_sequence: int | None
    status: str
    message_id: str | None
    message_seq: int | None
    error: str | None
    created_at: str
    sent_at: str | None


class RelayQuestionRecord(InteractionRecord, frozen=True, gc=False):
    """An interaction with its #number for a person, and whether that question is open (relay_questions.status)."""

    number: int
    question_status: str


# ---- an agent's unfinished work, for its welcome (hub/store/open_tasks.py) -----------------------------------


class OpenTaskRecord(msgspec.Struct, frozen=True, gc=False):
    """What an agent's welcome tells of a task it has not finished."""

    id: str
    conversation_id: str | None
    title: str
    description: str
    status: str
    progress: int | None
    summary: str | None
    cancel_requested_at: str | None
    cancel_reason: str | None
    checkpoints: str  # JSON


class ChildTaskRecord(msgspec.Struct, frozen=True, gc=False):
    """A child task as its parent's welcome entry lists it."""

    id: str
    title: str
    status: str


class TaskQuestionRecord(msgspec.Struct, frozen=True, gc=False):
    """An agent's question on a task, and its outcome."""

    id: str
    status: str
    response: str | None  # JSON
    responded_by: str | None  # JSON


class SessionRecord(msgspec.Struct, frozen=True, gc=False):
    """A session started from the phone (docs/sessions.md)."""

    id: str
    workspace_id: str
    conversation_id: str
    agent_key: str
    agent_id: str
    project: str
    folder: str
    where_kind: str
    worktree: str | None  # JSON
    base_commit: str | None
    start_snapshot: str | None
    base_ref: str | None
    mode: str | None
    model: str | None
    title: str
    status: str
    usage: str | None  # JSON
    pending_commit: str | None
    end_reason: str | None
    created_by: str
    created_at: str
    updated_at: str
    ended_at: str | None
    last_sequence: int


class TerminalConversationRecord(msgspec.Struct, frozen=True, gc=False):
    """A conversation of an agent that runs in the person's terminal (`lineup connect`), with that agent's facts and
    whether a task of the conversation is still active."""

    conversation_id: str
    title: str
    updated_at: str
    agent_id: str
    agent_name: str
    runtime: str
    agent_status: str
    active_tasks: int


R = TypeVar("R", bound=msgspec.Struct)


def select_list(record: type[msgspec.Struct], table: str = "") -> str:
    """The record's fields as a SELECT list, in field order (qualified by `table` when given)."""
    prefix = f"{table}." if table else ""
    return ", ".join(prefix + name for name in record.__struct_fields__)


def fetch_one(conn: sqlite3.Connection, record: type[R], sql: str, params: Sequence[Any] = ()) -> R | None:
    """The first row of `sql` (which selects `record`'s fields in order) as a `record`, or None."""
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples, whatever the connection's factory: nothing to build but the record
    row = cursor.execute(sql, params).fetchone()
    return None if row is None else record(*row)


def fetch_all(conn: sqlite3.Connection, record: type[R], sql: str, params: Sequence[Any] = ()) -> list[R]:
    """Every row of `sql` (which selects `record`'s fields in order) as a `record`, in the order of the query."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return list(starmap(record, cursor.execute(sql, params)))
