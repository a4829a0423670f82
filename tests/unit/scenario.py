"""Helpers for unit tests: a realistic event log (owner, paired agent, a task taken to the end) and writer rigs.

`populate` goes through the same commands the gateway builds (accounts.*, collaboration.command_for), so the
log and projections it leaves are what a real hub writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from hub.domain import accounts
from hub.domain.collaboration import AGENT_HANDLERS, APP_HANDLERS, command_for
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, new_id, now_iso
from hub.protocol.payloads import AGENT_INBOUND, APP_INBOUND, parse_payload
from hub.store import database
from hub.store.events import StoredEvent
from hub.store.migrations import migrate
from hub.store.writer import Command, Tx, Writer

# Not a real scrypt hash (computing one costs ~100 ms); what matters is that it never leaves the hub.
FAKE_PASSWORD_HASH = "scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA==$SECRET-PASSWORD-HASH-MARKER"

Execute = Callable[[Command], Awaitable[Any]]


def executor(writer: Writer) -> Execute:
    """Run a command; raise its LapError, return its value (what Hub.execute does)."""
    async def execute(command: Command) -> Any:
        outcome = await writer.execute(command)
        if outcome.error is not None:
            raise outcome.error
        return outcome.value
    return execute


def envelope(type_: str, payload: dict[str, Any], workspace_id: str | None = None, **fields: Any) -> Envelope:
    return Envelope(id=fields.pop("id", None) or new_id("env"), type=type_, version=PROTOCOL_VERSION,
                    occurredAt=now_iso(), payload=payload, workspaceId=workspace_id, **fields)


def command(actor: Actor, type_: str, payload: dict[str, Any], **fields: Any) -> Command:
    """The writer command the gateway would build for this envelope from this actor."""
    handlers, kinds = (APP_HANDLERS, APP_INBOUND) if actor.kind == "user" else (AGENT_HANDLERS, AGENT_INBOUND)
    env = envelope(type_, payload, actor.workspace_id, **fields)
    return command_for(actor, env, handlers[type_], parse_payload(kinds[type_], env.payload))


@dataclass
class World:
    user: Actor
    agent: Actor
    credential: str
    link_code: str  # a redeemed one-time sign-in link


async def populate(execute: Execute) -> World:
    owner = await execute(accounts.create_owner("ada", "Ada", FAKE_PASSWORD_HASH, "Home", "laptop")[0])
    user = Actor("user", owner["userId"], owner["workspaceId"], device_id=owner["deviceId"])
    make_code, code = accounts.create_pairing_code(user, "bot", 600)
    await execute(make_code)
    pair, credential = accounts.pair_agent(code, "bot", "test", "1.0")
    agent = Actor("agent", (await execute(pair))["agentId"], owner["workspaceId"])
    make_link, link_code = accounts.create_sign_in_link(user, 600)
    await execute(make_link)
    await execute(accounts.redeem_sign_in_link(link_code, "phone"))
    steps: list[tuple[Actor, str, dict[str, Any], dict[str, Any]]] = [
        (user, "conversation.create", {"title": "Website", "agentIds": [agent.id]}, {"conversationId": "c1"}),
        (user, "message.create", {"content": "Please tidy up"}, {"conversationId": "c1"}),
        (user, "task.create", {"title": "Tidy dependencies"}, {"conversationId": "c1", "taskId": "t1"}),
        (agent, "task.accepted", {}, {"taskId": "t1"}),
        (agent, "task.status_changed", {"progress": 40, "summary": "halfway"}, {"taskId": "t1"}),
        (agent, "interaction.requested", {"interaction": {"id": "i1", "type": "approval", "title": "Migrate?"}},
         {"taskId": "t1"}),
        (user, "interaction.respond", {"interactionId": "i1", "response": {"optionId": "approve"}}, {}),
        (agent, "artifact.created", {"name": "report", "url": "https://example.com/r"}, {"taskId": "t1"}),
        (agent, "message.create", {"content": "Done."}, {"conversationId": "c1"}),
        (agent, "task.status_changed", {"status": "succeeded", "progress": 100}, {"taskId": "t1"}),
        (user, "task.create", {"title": "Second", "targetAgentId": agent.id}, {"taskId": "t2"}),
        (user, "task.cancel_requested", {"reason": "not needed"}, {"taskId": "t2"}),
    ]
    for actor, type_, payload, fields in steps:
        await execute(command(actor, type_, payload, **fields))
    await execute(accounts.rename_agent(user, agent.id, "tidy-bot"))
    return World(user, agent, credential, link_code)


def append(event_id: str | None = None, payload: dict[str, Any] | None = None, workspace_id: str = "ws1") -> Command:
    """A command that stores one `test.noted` event (the id doubles as the idempotency key when given)."""
    def run(tx: Tx) -> str:
        return tx.append("test.noted", payload or {}, workspace_id=workspace_id, actor="hub", id=event_id).id
    return Command(run=run, dedupe_id=event_id)


async def second_writer_appends(db_path: Path, ids: list[str]) -> list[int]:
    """What `lineup token` / `lineup pair` do: their own connection and writer on the same file."""
    conn = await database.connect(db_path)
    try:
        await database.run(conn, migrate)
        writer = Writer(conn, on_commit=lambda events: None)
        await writer.start()
        try:
            outcomes = [await writer.execute(append(i)) for i in ids]
        finally:
            await writer.stop()
    finally:
        await conn.close()
    return [o.sequence for o in outcomes if o.sequence is not None]


@dataclass
class WriterRig:
    """A Writer on a real database file, and every batch it published, in publish order."""

    path: Path
    conn: aiosqlite.Connection
    writer: Writer
    published: list[list[StoredEvent]] = field(default_factory=list)

    @property
    def published_sequences(self) -> list[int]:
        return [event.sequence for batch in self.published for event in batch]

    def reader(self) -> sqlite3.Connection:
        """A separate connection, as another process would open it."""
        return database.connect_sync(self.path)
