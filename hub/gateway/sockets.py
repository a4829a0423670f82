"""The /ws/agent and /ws/app endpoints: hello, welcome, resume, and one answer for every frame."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from hub.auth.lookup import agent_actor, app_actor
from hub.domain import approvals
from hub.domain.collaboration import command_for
from hub.gateway.admission import origin_allowed, plain_agent_refusal
from hub.gateway.session import CLOSE_UNAUTHORIZED, CREDENTIAL_REPLACED, Session
from hub.protocol import payloads as P
from hub.protocol.actors import Actor
from hub.protocol.envelope import Envelope, decode_envelope, system_frame
from hub.protocol.errors import AGENT_PAIR_AGAIN_HINT, APP_SIGN_IN_HINT, LapError
from hub.store import events as event_log
from hub.store.open_tasks import open_tasks
from hub.store.writer import Outcome

if TYPE_CHECKING:
    from hub.gateway.broker import Broker
    from hub.gateway.presence import Presence
    from hub.gateway.ratelimit import AgentRateLimiter
    from hub.gateway.recent import RecentEvents
    from hub.gateway.streams import Streams
    from hub.ports import HubCore

    class OfferedTools(Protocol):
        """The tool registry as a socket answers `tool.list` (hub/tools/registry.py)."""

        def offered_to(self, conn: sqlite3.Connection, workspace_id: str, kind: str) -> list[dict[str, Any]]: ...

    class SocketHub(HubCore, Protocol):
        """What a socket uses of the hub: the core, the gateway's parts, the inbound handlers and the tools on offer.

        Named here rather than importing hub/core.py's `Hub`, so the gateway does not depend on the core that makes it.
        """

        broker: Broker
        presence: Presence
        streams: Streams
        recent: RecentEvents
        agent_rate: AgentRateLimiter
        question_rate: AgentRateLimiter
        handlers: dict[str, dict[str, Any]]
        started: bool

        @property
        def tools(self) -> OfferedTools: ...

log = logging.getLogger("lineup.gateway")

CLOSE_HELLO_TIMEOUT = 4408
CLOSE_REPLACED = 4409  # a newer connection of the same agent instance took over (docs/protocol.md)
CLOSE_UNSUPPORTED_DATA = 1003
CLOSE_POLICY = 1008
BAD_FRAME_LIMIT, BAD_FRAME_WINDOW_S = 100, 10.0


def _guess_id(frame: str) -> str | None:
    """The id of an envelope that failed validation, if one can be read, so the error can name it."""
    try:
        data = msgspec.json.decode(frame)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) and len(value) <= 128 else None


class SocketServer:
    """Serves one socket from accept to close."""

    def __init__(self, hub: SocketHub, ws: WebSocket, kind: str) -> None:
        self.hub = hub
        self.ws = ws
        self.kind = kind  # "agent" or "app"
        self.session: Session | None = None
        self.peer_close_code: int | None = None  # the close code the peer sent, if it closed the socket itself
        self.bad_frames: list[float] = []
        self.in_flight = asyncio.Semaphore(hub.settings.max_in_flight)
        self.replay_task: asyncio.Task[int] | None = None

    async def serve(self) -> None:
        if await refused_origin(self.ws):
            return
        await self.ws.accept()
        try:
            actor, hello = await self._handshake()
            if actor is None:
                return
            await self._open_session(actor, hello)
            await self._read_loop()
        except WebSocketDisconnect:
            pass
        finally:
            await self._cleanup()

    # ---- receiving -------------------------------------------------------------------------------------

    async def _receive_text(self, timeout_s: float | None = None) -> str | None:
        """The next text frame, or None when the peer left or sent something we close on."""
        if timeout_s:
            async with asyncio.timeout(timeout_s):
                message = await self.ws.receive()
        else:
            message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            self.peer_close_code = message.get("code")
            return None
        if message.get("text") is None:
            await self.ws.close(CLOSE_UNSUPPORTED_DATA, "binary frames are not part of LAP")
            return None
        text: str = message["text"]
        return text

    def _send_raw(self, type_: str, payload: dict[str, Any], correlation_id: str | None = None) -> Any:
        return self.ws.send_text(system_frame(type_, payload, correlation_id=correlation_id).decode())

    def _count_bad_frame(self) -> bool:
        """Record a bad frame; True when the flood limit is passed and the socket should close."""
        now = time.monotonic()
        self.bad_frames = [t for t in self.bad_frames if now - t < BAD_FRAME_WINDOW_S]
        self.bad_frames.append(now)
        return len(self.bad_frames) > BAD_FRAME_LIMIT

    # ---- handshake ---------------------------------------------------------------------------------------

    async def _handshake(self) -> tuple[Actor | None, Any]:
        hello_type = "agent.hello" if self.kind == "agent" else "app.hello"
        deadline = time.monotonic() + self.hub.settings.hello_timeout_s
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise TimeoutError
                frame = await self._receive_text(remaining)
            except TimeoutError:
                await self.ws.close(CLOSE_HELLO_TIMEOUT, f"no {hello_type} within the time limit")
                return None, None
            if frame is None:
                return None, None
            try:
                env = decode_envelope(frame)
                if env.type != hello_type:
                    raise LapError("invalid_envelope", f"The first frame on this socket must be {hello_type}.")
                hello = P.parse_payload(P.HANDSHAKES[hello_type], env.payload)
            except LapError as exc:
                await self._send_raw("system.error", exc.as_payload(_guess_id(frame)))
                if self._count_bad_frame():
                    await self.ws.close(CLOSE_POLICY, "too many bad frames")
                    return None, None
                continue
            actor = await (agent_actor(self.hub, hello.credential) if self.kind == "agent"
                           else app_actor(self.hub, hello.token))
            if actor is None:
                err = (LapError("unauthorized", "The credential is unknown or has been revoked.",
                                hint=AGENT_PAIR_AGAIN_HINT) if self.kind == "agent" else
                       LapError("unauthorized", "The token is unknown or has been revoked.", hint=APP_SIGN_IN_HINT))
                await self._send_raw("system.error", err.as_payload(env.id))
                await self.ws.close(CLOSE_UNAUTHORIZED, "unauthorized")
                return None, None
            return actor, hello

    async def _open_session(self, actor: Actor, hello: Any) -> None:
        hub = self.hub
        session = Session(hub, self.ws, actor, max_buffer_bytes=hub.settings.outbound_buffer_bytes)
        self.session = session
        session.start()
        hub.broker.add(session)  # from here on committed events are buffered for this session
        head = hub.writer.head
        welcome: dict[str, Any] = {"workspaceId": actor.workspace_id,
                                   "heartbeatIntervalMs": hub.settings.heartbeat_interval_ms,
                                   "epoch": hub.epoch, "headSequence": head}
        if actor.kind == "agent":
            session.instance = hello.instance
            self._replace_older(session)
            welcome["agentId"] = actor.id
            # After headSequence was read: a task the list misses arrives in the replay (docs/protocol.md).
            tasks, truncated = await hub.read(lambda c: open_tasks(c, actor.workspace_id, actor.id))
            welcome["openTasks"] = tasks
            if truncated:
                welcome["openTasksTruncated"] = True
        else:
            welcome.update(userId=actor.id, deviceId=actor.device_id)
        session.send_system("system.welcome", welcome)
        cursor = hello.lastSequence or 0
        reason = None
        if hello.epoch is not None and hello.epoch != hub.epoch:
            reason = "epoch_changed"
        elif cursor > head:
            reason = "beyond_head"
        if reason is not None:
            session.send_system("system.resync_required", {"reason": reason, "epoch": hub.epoch, "headSequence": head})
            # An agent gets everything addressed to it again; an app reloads its state over HTTP.
            cursor = 0 if actor.kind == "agent" else head
        if actor.kind == "agent":
            await hub.presence.agent_connected(session, {"runtime": hello.runtime, "agentVersion": hello.agentVersion,
                                                         "capabilities": hello.capabilities})
            if hello.tools is not None:
                await self._register_hello_tools(session, hello.tools)
            read = self._agent_pages(actor.id)
        else:
            read = self._app_pages(actor.workspace_id)
        self.replay_task = asyncio.create_task(session.replay(cursor, read), name=f"lineup-replay-{actor.ref}")

    def _replace_older(self, session: Session) -> None:
        """One live connection per agent instance: the newer takes over, the older is told why and closed.

        Two copies of one agent (the connect command run twice, a restart while the old process hangs) would
        otherwise both take every task and ask every question twice. Connections that name different
        `instance`s (several `lineup mcp` processes of one agent) are siblings and coexist.
        """
        for other in self.hub.broker.agent_sessions(session.actor.id):
            if other is not session and other.instance == session.instance and not other.closed:
                log.info("agent %s (instance %r) connected again; closing its older connection",
                         session.actor.id, session.instance)
                other.close(CLOSE_REPLACED, "replaced by a newer connection")

    async def _register_hello_tools(self, session: Session, tools: list[dict[str, Any]]) -> None:
        """agent.hello may carry the agent's tools: registered as if sent with tool.list (docs/protocol.md#tools)."""
        from hub.protocol.envelope import PROTOCOL_VERSION, new_id, now_iso

        env = Envelope(id=new_id("hello-tools"), type="tool.list", version=PROTOCOL_VERSION, occurredAt=now_iso(),
                       payload={"tools": tools}, workspaceId=session.actor.workspace_id)
        handler = self.hub.handlers["agent"]["tool.list"]
        outcome = await self.hub.writer.execute(command_for(session.actor, env, handler, P.ToolList(tools=tools)))
        if outcome.error is not None:
            session.send_system("system.error", outcome.error.as_payload(None))

    def _pages(self, visible: Callable[[event_log.StoredEvent], bool],
               from_log: Callable[[sqlite3.Connection, int, int], list[event_log.StoredEvent]]) -> Any:
        """Replay pages: from the hub's window of recent events when it covers them, else from the log."""
        async def read(after: int, upto: int) -> list[event_log.StoredEvent]:
            page = self.hub.recent.page(after, upto, visible)
            if page is not None:
                return page
            return await self.hub.read_replay(lambda c: from_log(c, after, upto))
        return read

    def _app_pages(self, workspace_id: str) -> Any:
        return self._pages(lambda e: e.workspace_id == workspace_id,
                           lambda c, after, upto: event_log.read_workspace_after(c, workspace_id, after, upto))

    def _agent_pages(self, agent_id: str) -> Any:
        return self._pages(lambda e: agent_id in e.recipients,
                           lambda c, after, upto: event_log.read_agent_after(c, agent_id, after, upto))

    # ---- frames after the hello ---------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        session = self.session
        assert session is not None
        while not session.closed:
            frame = await self._receive_text()
            if frame is None:
                return
            self.hub.presence.seen(session)
            await self._handle(session, frame)

    async def _handle(self, session: Session, frame: str) -> None:
        try:
            env = decode_envelope(frame)
        except LapError as exc:
            self._refuse(session, exc, _guess_id(frame))
            return
        if env.type == "system.ping":
            session.send_system("system.pong", {}, correlation_id=env.id)
            return
        try:
            if self.kind == "agent" and self._over_budget(session, env):
                return
            if env.workspaceId != session.actor.workspace_id:
                if env.workspaceId is None:
                    raise LapError("invalid_envelope", "The envelope has no workspaceId.",
                                   hint=f"Set workspaceId to {session.actor.workspace_id!r} (system.welcome says it).")
                raise LapError("forbidden", "The envelope names another workspace than your credential's.",
                               hint=f"Set workspaceId to {session.actor.workspace_id!r}.")
            if self.kind == "agent" and env.type == "message.delta":
                delta = P.parse_payload(P.MessageDelta, env.payload)
                await self.hub.streams.delta(session.actor, env, delta)
                session.send_system("system.ack", {"id": env.id, "sequence": None, "duplicate": False,
                                                   "transient": True})
                return
            kinds = P.AGENT_INBOUND if self.kind == "agent" else P.APP_INBOUND
            handler = self.hub.handlers[self.kind].get(env.type)
            if handler is None:
                if env.type in P.HANDSHAKES:
                    raise LapError("invalid_envelope", "The hello was already accepted on this socket.")
                other = P.APP_INBOUND if self.kind == "agent" else P.AGENT_INBOUND
                if env.type in other:
                    senders = "apps" if self.kind == "agent" else "agents"
                    raise LapError("forbidden", f"{env.type} is sent by {senders}, not on this socket.")
                # docs/protocol.md#frames-and-answers: unknown types are acknowledged with a warning and not stored.
                log.info("unknown event type %r from %s ignored", env.type, session.actor.ref)
                session.send_system("system.ack", {"id": env.id, "sequence": None, "duplicate": False,
                                                   "warning": "unknown_type"})
                return
            parsed = P.parse_payload(kinds[env.type], env.payload)
            if env.type == "tool.list" and parsed.tools is None:
                await self._answer_tool_list(session, env)
                return
            if env.type == "interaction.requested":
                parsed = await approvals.prepare(parsed)  # an approval's command judged off the writer's thread
        except LapError as exc:
            self._refuse(session, exc, env.id)
            return
        await self.in_flight.acquire()
        future = self.hub.writer.submit(command_for(session.actor, env, handler, parsed))
        future.add_done_callback(lambda f: self._answer(session, env, f.result()))

    def _over_budget(self, session: Session, env: Envelope) -> bool:
        """An agent over its envelope or question budget is answered `rate_limited` here, before the writer.

        Not counted as a bad frame: a busy agent slows down, it is not cut off. Questions have a budget of their
        own: a flood of them (10,000 of 20 KB) refused in the writer stalled everyone else's acks."""
        settings, agent_id = self.hub.settings, session.actor.id
        if not self.hub.agent_rate.allow(agent_id):
            limit = f"{settings.agent_events_per_second:g} envelopes"
        elif env.type == "interaction.requested" and not self.hub.question_rate.allow(agent_id):
            limit = f"{settings.agent_questions_per_second:g} questions"
        else:
            return False
        questions = env.type == "interaction.requested"
        error = LapError("rate_limited", f"This agent sends more than {limit} a second; this one was not stored.",
                         hint="Send the same envelope again in a moment (the SDK does)." + (
                             " Mind that at most 100 questions may wait for the person at once." if questions else ""),
                         details={"limit": "rate", "retryAfterMs": 1000})  # the only kind worth retrying
        session.send_system("system.error", error.as_payload(env.id))
        return True

    async def _answer_tool_list(self, session: Session, env: Envelope) -> None:
        """tool.list without tools asks what is on offer: the answer is a tool.list frame (not stored)."""
        tools = await self.hub.read(lambda c: self.hub.tools.offered_to(c, session.actor.workspace_id, self.kind))
        session.send_system("system.ack", {"id": env.id, "sequence": None, "duplicate": False})
        session.send_system("tool.list", {"tools": tools}, correlation_id=env.id)

    def _answer(self, session: Session, env: Envelope, outcome: Outcome) -> None:
        self.in_flight.release()
        if outcome.error is not None:
            session.send_system("system.error", outcome.error.as_payload(env.id))
        else:
            session.send_system("system.ack", {"id": env.id, "sequence": outcome.sequence,
                                               "duplicate": outcome.duplicate})

    def _refuse(self, session: Session, exc: LapError, envelope_id: str | None) -> None:
        session.send_system("system.error", exc.as_payload(envelope_id))
        if self._count_bad_frame():
            session.close(CLOSE_POLICY, "too many bad frames")

    async def _cleanup(self) -> None:
        session = self.session
        if session is None:
            return
        session.closed = True
        if self.replay_task is not None:
            self.replay_task.cancel()
            await asyncio.gather(self.replay_task, return_exceptions=True)
        self.hub.broker.remove(session)
        await session.shutdown()
        if session.kind == "agent" and self.hub.started:
            await self.hub.presence.agent_disconnected(session, self._offline_reason(session))

    def _offline_reason(self, session: Session) -> str:
        """Why an agent went offline: revoked; `credential_replaced` when it paired again (its new process connects
        with the new credential); `signed_off` when it closed its socket normally (a hook or an MCP server whose
        session ended, an agent stopped on purpose: nothing is wrong); else `disconnected`."""
        if session.close_code == CLOSE_UNAUTHORIZED:
            return "credential_replaced" if session.close_reason == CREDENTIAL_REPLACED else "revoked"
        if session.close_code is None and self.peer_close_code in (1000, 1001):
            return "signed_off"
        return "disconnected"


async def refused_origin(ws: WebSocket) -> bool:
    """Refuse a browser page of another site, before accepting (the browser sees HTTP 403; CSWSH): on /ws/app and
    on /ws/agent alike. Agents send no Origin or the hub's own; a browser always sends its page's (admission.py).
    """
    if origin_allowed(ws.headers):
        return False
    await ws.close(code=CLOSE_POLICY)
    return True


async def agent_socket(ws: WebSocket) -> None:
    if await refused_origin(ws):  # first: a foreign page learns nothing, not even where the TLS listener is
        return
    refusal = plain_agent_refusal(ws.app.state.hub, ws.scope)
    if refusal is not None:  # an agent on another machine at the plain port: told where TLS is, then closed
        await ws.accept()
        await ws.send_text(system_frame("system.error", refusal.as_payload(None)).decode())
        await ws.close(CLOSE_POLICY, "agents on other machines use TLS")
        return
    await SocketServer(ws.app.state.hub, ws, "agent").serve()


async def app_socket(ws: WebSocket) -> None:
    await SocketServer(ws.app.state.hub, ws, "app").serve()
