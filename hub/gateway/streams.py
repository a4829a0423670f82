"""Streamed agent messages: deltas go out live, the text so far is saved every few seconds.

A `message.delta {messageId, offset, text}` is not stored by itself: apps that are live receive it at once
(without a sequence); the accumulated text is stored as `message.updated` at most `stream_snapshot_s` apart,
and the agent's final `message.create` with the same `messageId` stores the whole message. A crash loses at
most the last few seconds of a stream, never a completed message.

Open streams are bounded (an agent that never finishes its messages must not fill the hub's memory): one agent
keeps at most `max_open_streams_per_agent` open, and a stream without a delta for `stream_idle_s` is closed.
Closing a stream does what a hub restart or a lost agent already does: the text so far is stored (the message
stays `streaming`, shown as unfinished) and dropped from memory; a later delta of the same message reopens it
from what was stored, so a slow agent loses nothing. Beyond the bound, the agent's least recently active stream
is the one closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hub.domain import housekeeping
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, encode
from hub.protocol.errors import LapError
from hub.protocol.payloads import MessageDelta
from hub.store.events import StoredEvent
from hub.store.queries import conversations, tasks

if TYPE_CHECKING:
    from hub.gateway.broker import Broker
    from hub.ports import HubCore

    class StreamsHub(HubCore, Protocol):
        """What streams use of the hub: the core, and the broker for deltas that are never stored."""

        @property
        def broker(self) -> Broker: ...

MAX_STREAM_CHARS = 256 * 1024


@dataclass
class Stream:
    actor: Actor
    conversation_id: str
    task_id: str | None
    content: str
    saved_length: int
    last_saved: float
    last_active: float = 0.0


StreamKey = tuple[str, str]  # (workspace id, message id): message ids are unique within a workspace only
AgentKey = tuple[str, str]   # (workspace id, agent id)


class Streams:
    def __init__(self, hub: StreamsHub) -> None:
        self.hub = hub
        self.open: dict[StreamKey, Stream] = {}
        # Each agent's open streams, least recently active first.
        self.by_agent: dict[AgentKey, OrderedDict[StreamKey, None]] = {}

    async def delta(self, actor: Actor, env: Envelope, delta: MessageDelta) -> None:
        """Apply one delta (idempotent by offset) and forward it live; raise LapError if it cannot apply."""
        key = (actor.workspace_id, delta.messageId)
        stream = self.open.get(key)
        if stream is None:
            stream = await self._open(actor, env, delta.messageId)
        if stream.actor != actor:
            raise LapError("forbidden", "That message belongs to another agent.")
        stream.last_active = asyncio.get_running_loop().time()
        mine = self.by_agent.get((actor.workspace_id, actor.id))
        if mine is not None and key in mine:
            mine.move_to_end(key)
        end = delta.offset + len(delta.text)
        if delta.offset > len(stream.content):
            raise LapError("invalid_payload", f"Text before offset {delta.offset} is missing (have "
                           f"{len(stream.content)} characters).",
                           hint="Resend the missing deltas, or send message.create with the whole text.")
        if end <= len(stream.content):
            return  # a re-send of text we already have
        if end > MAX_STREAM_CHARS:
            raise LapError("invalid_payload", "The streamed message is too long; finish it with message.create.")
        stream.content = stream.content[:delta.offset] + delta.text
        frame = encode(Envelope(id=env.id, type="message.delta", version=PROTOCOL_VERSION, occurredAt=env.occurredAt,
                                payload={"messageId": delta.messageId, "offset": delta.offset, "text": delta.text,
                                         "author": actor.as_author()},
                                workspaceId=actor.workspace_id, conversationId=stream.conversation_id,
                                taskId=stream.task_id))
        self.hub.broker.publish_transient(actor.workspace_id, frame)
        if asyncio.get_running_loop().time() - stream.last_saved >= self.hub.settings.stream_snapshot_s:
            await self._save(delta.messageId, stream)

    async def _open(self, actor: Actor, env: Envelope, message_id: str) -> Stream:
        conversation_id = env.conversationId
        if conversation_id is None:
            raise LapError("invalid_envelope", "message.delta needs `conversationId` on the envelope.")
        row = await self.hub.read(lambda c: conversations.conversation(c, conversation_id, actor.workspace_id))
        if row is None:
            raise LapError("not_found", f"No conversation {conversation_id!r} in this workspace.")
        if actor.id not in row.members():
            raise LapError("forbidden", "This agent is not a member of that conversation.")
        if env.taskId is not None:  # snapshots show in that task's timeline: only the agent's own task
            task_id = env.taskId
            task = await self.hub.read(lambda c: tasks.task(c, task_id, actor.workspace_id))
            if task is None:
                raise LapError("not_found", f"No task {env.taskId!r} in this workspace.")
            if task.agent_id != actor.id:
                raise LapError("forbidden", "That task is assigned to another agent.")
        existing = await self.hub.read(lambda c: conversations.message(c, message_id, actor.workspace_id))
        content = ""
        if existing is not None:
            if existing.state != "streaming" or existing.author_id != actor.id:
                raise LapError("conflict", f"Message {message_id!r} is already complete.")
            content = existing.content  # resuming after a hub restart: continue from the last snapshot
        key = (actor.workspace_id, message_id)
        if key in self.open:  # opened by a concurrent delta while this one read the database
            return self.open[key]
        now = asyncio.get_running_loop().time()
        stream = Stream(actor, conversation_id, env.taskId, content, len(content), now, now)
        mine = self.by_agent.setdefault((actor.workspace_id, actor.id), OrderedDict())
        limit = max(1, self.hub.settings.max_open_streams_per_agent)
        while len(mine) >= limit:
            oldest = next(iter(mine))
            await self._close(oldest)
            mine.pop(oldest, None)  # _close removed it, unless another task already had
        if key in self.open:  # opened by a concurrent delta while the oldest was being stored
            return self.open[key]
        self.open[key] = stream
        self.by_agent.setdefault((actor.workspace_id, actor.id), OrderedDict())[key] = None
        return stream

    def _forget(self, key: StreamKey) -> Stream | None:
        stream = self.open.pop(key, None)
        if stream is not None:
            agent = (key[0], stream.actor.id)
            mine = self.by_agent.get(agent)
            if mine is not None:
                mine.pop(key, None)
                if not mine:
                    del self.by_agent[agent]
        return stream

    async def _close(self, key: StreamKey, *, idle_since: float | None = None) -> None:
        """Store what the stream holds and drop it from memory (a later delta reopens it from what was stored).

        Stored first, forgotten after: while the text is being written the stream stays open, so a reader finds
        the text in memory or in the store, and a delta arriving meanwhile extends the open stream instead of
        reopening it from a store that does not hold the text yet. With `idle_since`, a stream that such a delta
        made active again stays open."""
        stream = self.open.get(key)
        if stream is None:
            return
        while True:
            try:
                await self._save(key[1], stream)
            except LapError:
                break  # it cannot be saved any more (completed meanwhile, or its conversation is gone)
            if self.open.get(key) is not stream:
                return  # completed or closed while it was written
            if idle_since is not None and stream.last_active != idle_since:
                return  # a delta came while it was written: no longer idle
            if stream.saved_length == len(stream.content):
                break
        self._forget(key)

    async def _save(self, message_id: str, stream: Stream) -> None:
        stream.last_saved = asyncio.get_running_loop().time()
        if stream.saved_length == len(stream.content):
            return
        stream.saved_length = len(stream.content)
        await self.hub.execute(housekeeping.snapshot_stream(stream.actor, stream.conversation_id, message_id,
                                                            stream.content, stream.task_id))

    async def flush_due(self) -> None:
        now = asyncio.get_running_loop().time()
        idle_s = self.hub.settings.stream_idle_s
        for key, stream in list(self.open.items()):
            if self.open.get(key) is not stream:
                continue
            if idle_s > 0 and now - stream.last_active >= idle_s:
                await self._close(key, idle_since=stream.last_active)
            elif (stream.saved_length != len(stream.content)
                  and now - stream.last_saved >= self.hub.settings.stream_snapshot_s):
                try:
                    await self._save(key[1], stream)
                except LapError:
                    self._forget(key)

    async def flush_all(self) -> None:
        for (_, message_id), stream in list(self.open.items()):
            with contextlib.suppress(LapError):
                await self._save(message_id, stream)

    def observe(self, events: list[StoredEvent]) -> None:
        for event in events:
            if event.type == "message.created" and event.workspace_id is not None:
                self._forget((event.workspace_id, event.payload.get("messageId", "")))
