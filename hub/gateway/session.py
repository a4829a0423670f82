"""One connected socket: its bounded outbound buffer, its sender task, and resume from a cursor.

Resume follows docs/quality.md#resume-without-gaps-or-duplicates: subscribe (events are buffered) → read the head →
replay from the log up to the head → flush the buffered events after what was sent → `system.caught_up` → live. If the
buffer overflows while replaying, it is dropped and the log is read again: the database is the buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketState

from hub.gateway import switching
from hub.gateway.wire import frame_writer
from hub.protocol.actors import Actor
from hub.protocol.envelope import system_frame
from hub.store.events import StoredEvent

if TYPE_CHECKING:
    from hub.ports import HubCore

log = logging.getLogger("lineup.gateway")

CLOSE_SLOW_CONSUMER = 4008
CLOSE_UNAUTHORIZED = 4401  # a refused hello, or a credential or device revoked while connected (docs/protocol.md)
# The close reason of 4401 when the agent paired again (`agent.credential_rotated`): this credential was replaced.
CREDENTIAL_REPLACED = "credential replaced: the agent paired again"
REPLAY_HIGH_WATER = 256 * 1024  # replay waits while this much is queued, instead of growing the buffer
FLUSH_ON_CLOSE_S = 5.0  # how long a closing socket may take to send the answers already queued
# A sender writes at most this much at a time, then lets the other sockets have their turn: with hundreds of
# sockets replaying at once, an agent's ack waits for one round of these, not for every replay to finish.
WRITE_CHUNK_BYTES = 32 * 1024


class Session:
    """A socket of an app or an agent after a successful hello."""

    def __init__(self, hub: HubCore, ws: WebSocket, actor: Actor, *, max_buffer_bytes: int) -> None:
        self.hub = hub
        self.ws = ws
        self.actor = actor
        self.kind = actor.kind
        self.max_buffer_bytes = max_buffer_bytes
        self._queue: deque[bytes] = deque()
        self.queued_bytes = 0
        self._wakeup = asyncio.Event()
        self._drained = asyncio.Event()
        self._drained.set()
        self._progress = asyncio.Event()  # set by the sender after every chunk of frames it writes (and on close)
        self.closed = False
        self.close_code: int | None = None
        self.close_reason = ""
        self.instance: str | None = None  # agents: which copy of the agent (agent.hello `instance`)
        self.live = False
        self.last_sent = 0
        self._pending: list[StoredEvent] = []
        self._pending_bytes = 0
        self._pending_overflow = False
        self.last_seen = asyncio.get_running_loop().time()
        self._sender: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._write = frame_writer(ws)

    # ---- outbound ----------------------------------------------------------------------------------

    def start(self) -> None:
        self._sender = asyncio.create_task(self._send_loop(), name=f"lineup-send-{self.actor.ref}")

    def send(self, frame: bytes) -> None:
        """Queue a frame without waiting; a client that lets more than the bound pile up is disconnected."""
        if self.closed:
            return
        backlog = self._backlog()
        if backlog and backlog + len(frame) > self.max_buffer_bytes:
            log.info("closing slow consumer %s (%d bytes queued)", self.actor.ref, self.queued_bytes)
            self.close(CLOSE_SLOW_CONSUMER, "slow consumer: resume with lastSequence")
            return
        self._queue.append(frame)
        self.queued_bytes += len(frame)
        self._drained.clear()
        self._wakeup.set()

    async def send_paced(self, frame: bytes) -> None:
        """Queue a replayed frame, waiting while the buffer is above the replay high-water mark."""
        while not self.closed and self.queued_bytes > REPLAY_HIGH_WATER:
            await self._drained.wait()
        while not self.closed and self.queued_bytes and self._backlog() + len(frame) > self.max_buffer_bytes:
            # Also below the bound itself: a bound configured under REPLAY_HIGH_WATER evicted every replaying
            # socket, and a frame that does not fit beside what is queued must go out alone.
            await self._sent_one()
        self.send(frame)

    async def _sent_one(self) -> None:
        """Wait until the sender has sent another frame (or the socket closed). No await separates the caller's
        check of the queue from this clear, so a send cannot slip in between and be missed."""
        self._progress.clear()
        await self._progress.wait()

    def _backlog(self) -> int:
        """Queued bytes counted against the bound. A stored event near the frame limit can be larger than the
        bound once the hub's fields are added: queued alone at the head it counts as being sent already, so its
        receivers are not evicted every time they reach it (they could never resume past it)."""
        if self._queue and len(self._queue[0]) > self.max_buffer_bytes:
            return self.queued_bytes - len(self._queue[0])
        return self.queued_bytes

    def send_system(self, type_: str, payload: dict[str, Any], correlation_id: str | None = None) -> None:
        self.send(system_frame(type_, payload, workspace_id=self.actor.workspace_id, correlation_id=correlation_id))

    def _take_chunk(self) -> list[bytes]:
        """The next frames to write: at least one, then up to WRITE_CHUNK_BYTES."""
        chunk: list[bytes] = []
        size = 0
        while self._queue and (not chunk or size + len(self._queue[0]) <= WRITE_CHUNK_BYTES):
            frame = self._queue.popleft()
            self.queued_bytes -= len(frame)
            size += len(frame)
            chunk.append(frame)
        return chunk

    async def _send_loop(self) -> None:
        try:
            while not self.closed:
                await self._wakeup.wait()
                self._wakeup.clear()
                while self._queue and not self.closed:
                    chunk = self._take_chunk()
                    if self.queued_bytes <= REPLAY_HIGH_WATER:
                        self._drained.set()
                    await self._write(chunk)
                    self._progress.set()
                    if self._queue:
                        await asyncio.sleep(0)  # the writes above may not have waited: give others a turn
                self._drained.set()
        except Exception:  # noqa: BLE001 - the peer went away while we were sending; the reader notices the close
            self.closed = True
            self._drained.set()
            self._progress.set()

    def close(self, code: int, reason: str = "") -> None:
        """Close the socket from any task; the reader loop sees the disconnect and cleans up."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.close_reason = reason
        self._drained.set()
        self._progress.set()
        self._wakeup.set()
        self._closing = asyncio.create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        # Best effort: a peer that is already gone makes the flush or the close raise whatever its transport does.
        with contextlib.suppress(Exception):
            if code != CLOSE_SLOW_CONSUMER and self._sender is not None:
                # Answers already queued (acks, errors) still reach the peer before the close frame: a bad-frame
                # flood (1008) or a revocation (4401) must not swallow them. A slow consumer's queue is dropped.
                async with asyncio.timeout(FLUSH_ON_CLOSE_S):
                    await self._flush()
            if self.ws.application_state == WebSocketState.CONNECTED:
                await self.ws.close(code, reason)

    async def _flush(self) -> None:
        assert self._sender is not None
        await asyncio.wait([self._sender])  # it stops after the frames it is writing, keeping the order
        while self._queue:
            await self._write(self._take_chunk())

    async def shutdown(self) -> None:
        self.closed = True
        self._wakeup.set()
        self._drained.set()
        self._progress.set()
        if self._closing is not None:  # bounded: a peer that stopped reading must not hold the cleanup up
            await asyncio.wait([self._closing], timeout=FLUSH_ON_CLOSE_S)
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)

    # ---- events --------------------------------------------------------------------------------------

    def frame_for(self, event: StoredEvent) -> bytes:
        return event.app_frame() if self.kind == "user" else event.agent_frame()

    def deliver(self, event: StoredEvent) -> None:
        """Called by the broker for every committed event this session may see."""
        if not self.live:
            if self._pending_overflow:
                return
            self._pending.append(event)
            self._pending_bytes += len(event.app_frame())
            if self._pending_bytes > self.max_buffer_bytes:
                self._pending.clear()
                self._pending_bytes = 0
                self._pending_overflow = True
            return
        if event.sequence > self.last_sent:
            self.last_sent = event.sequence
            self.send(self.frame_for(event))

    def deliver_transient(self, frame: bytes) -> None:
        """Frames that are not stored (message deltas) reach only sessions that are live."""
        if self.live:
            self.send(frame)

    async def replay(self, cursor: int, read_page: Callable[[int, int], Awaitable[list[StoredEvent]]]) -> int:
        """Send every visible event after `cursor`, then go live. Returns the sequence reported as caught up."""
        switching.replay_started()
        try:
            return await self._replay(cursor, read_page)
        finally:
            switching.replay_finished()

    async def _replay(self, cursor: int, read_page: Callable[[int, int], Awaitable[list[StoredEvent]]]) -> int:
        while not self.closed:
            upto = self.hub.writer.head
            while cursor < upto and not self.closed:
                page = await read_page(cursor, upto)
                if not page:
                    break
                for event in page:
                    await self.send_paced(self.frame_for(event))
                cursor = page[-1].sequence
            cursor = max(cursor, upto)
            # Go live only once the replay has left the buffer: the events buffered meanwhile (up to the bound
            # themselves) are then queued into an empty buffer, not on top of the replay's tail, which evicted
            # readers that kept up.
            while self.queued_bytes and not self.closed and not self._pending_overflow:
                await self._sent_one()
            if self._pending_overflow:
                self._pending_overflow = False
                continue
            for event in self._pending:
                if event.sequence > cursor:
                    self.send(self.frame_for(event))
                    cursor = event.sequence
            self._pending.clear()
            self._pending_bytes = 0
            self.last_sent = cursor
            self.live = True
            self.send_system("system.caught_up", {"sequence": cursor})
            break
        return cursor

    def touch(self) -> None:
        self.last_seen = asyncio.get_running_loop().time()

    @property
    def connected(self) -> bool:
        return not self.closed
