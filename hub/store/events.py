"""The event log's row type, how a row becomes a wire frame, and paged reads after a sequence."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

import msgspec

from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, encode
from hub.protocol.stored import AGENT_VIEW_TYPES  # how an agent sees a stored fact addressed to it

PAGE_SIZE = 1000  # rows per replay page (docs/quality.md#paged-replay-on-a-read-connection)


_json_decode = msgspec.json.decode


def public_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """Drop the keys that never leave the hub (hashes of secrets): they start with an underscore."""
    if any(key.startswith("_") for key in payload):
        return {k: v for k, v in payload.items() if not k.startswith("_")}
    return payload


@dataclass(slots=True)
class StoredEvent:
    """One committed row of `events`, with the agents it is addressed to."""

    sequence: int
    id: str
    type: str
    workspace_id: str | None
    conversation_id: str | None
    task_id: str | None
    correlation_id: str | None
    actor: str
    occurred_at: str
    recorded_at: str
    payload: dict[str, Any]
    recipients: tuple[str, ...] = ()
    _frame: bytes | None = field(default=None, repr=False)

    def envelope(self, type_: str | None = None) -> Envelope:
        return Envelope(
            id=self.id, type=type_ or self.type, version=PROTOCOL_VERSION, occurredAt=self.occurred_at,
            payload=public_payload(self.payload), workspaceId=self.workspace_id,
            conversationId=self.conversation_id, taskId=self.task_id, sequence=self.sequence,
            correlationId=self.correlation_id,
        )

    def app_frame(self) -> bytes:
        """The frame every app of the workspace gets; encoded once however many apps there are."""
        if self._frame is None:
            self._frame = encode(self.envelope())
        return self._frame

    def agent_frame(self) -> bytes:
        view = AGENT_VIEW_TYPES.get(self.type)
        return self.app_frame() if view is None else encode(self.envelope(view))

    def as_dict(self) -> dict[str, Any]:
        """The JSON form used by HTTP reads (same fields as the wire envelope)."""
        built: dict[str, Any] = msgspec.to_builtins(self.envelope())
        return built


COLUMNS = ("sequence, id, type, workspace_id, conversation_id, task_id, correlation_id, actor, "
            "occurred_at, recorded_at, payload")


def row_to_event(row: sqlite3.Row | tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9],
                       _json_decode(row[10]))


def read_workspace_after(conn: sqlite3.Connection, workspace_id: str, after: int, upto: int,
                         limit: int = PAGE_SIZE) -> list[StoredEvent]:
    """Events of one workspace with after < sequence <= upto, in order, at most `limit`."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM events WHERE workspace_id = ? AND sequence > ? AND sequence <= ? "
        "ORDER BY sequence LIMIT ?", (workspace_id, after, upto, limit)).fetchall()
    return [row_to_event(r) for r in rows]


def read_agent_after(conn: sqlite3.Connection, agent_id: str, after: int, upto: int,
                     limit: int = PAGE_SIZE) -> list[StoredEvent]:
    """Events addressed to one agent with after < sequence <= upto, in order, at most `limit`."""
    rows = conn.execute(
        f"SELECT {', '.join('e.' + c.strip() for c in COLUMNS.split(','))} FROM event_recipients r "
        "JOIN events e ON e.sequence = r.sequence WHERE r.agent_id = ? AND r.sequence > ? AND r.sequence <= ? "
        "ORDER BY r.sequence LIMIT ?", (agent_id, after, upto, limit)).fetchall()
    return [row_to_event(r) for r in rows]


def read_all(conn: sqlite3.Connection, after: int = 0, limit: int = PAGE_SIZE) -> list[StoredEvent]:
    rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE sequence > ? ORDER BY sequence LIMIT ?",
                        (after, limit)).fetchall()
    return [row_to_event(r) for r in rows]


def head_sequence(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(sequence), 0) FROM events").fetchone()[0])


def read_all_with_recipients(conn: sqlite3.Connection, after: int) -> list[StoredEvent]:
    """Every event after `after` with its recipients filled in (used for rows another process wrote)."""
    events: list[StoredEvent] = []
    while True:
        page = read_all(conn, after)
        if not page:
            return events
        for event in page:
            rows = conn.execute("SELECT agent_id FROM event_recipients WHERE sequence = ?", (event.sequence,))
            event.recipients = tuple(r[0] for r in rows)
        events.extend(page)
        after = page[-1].sequence
