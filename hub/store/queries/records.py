"""The rows the projection reads return, one Struct per kind: fields named and ordered as the columns they read."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import starmap
from typing import Any, TypeVar

import msgspec

# Fields are typed as SQLite holds them: JSON columns stay `str` (decoded by hub/web/views.py and the handlers).
# Nothing is validated on construction: a read builds its record positionally, `Record(*row)`, from a SELECT that
# names exactly the record's fields in their order (`select_list`), so a record costs what a row did.


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
    id: str
    workspace_id: str
    task_id: str | None
    conversation_id: str | None
    agent_id: str
    type: str
    title: str
    risk: str
    spec: str  # JSON
    status: str
    response: str | None  # JSON
    responded_by: str | None  # JSON
    responded_at: str | None
    expires_at: str | None
    created_at: str
    last_sequence: int


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
