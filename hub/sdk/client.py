"""AgentClient: one agent's connection to the hub — hello, heartbeat, resume, outbox, handlers, reconnects."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

import websockets
from websockets.asyncio.client import ClientConnection

from hub.sdk.credentials import Credential
from hub.sdk.errors import AuthError, HubError, SdkError, ToolCallError
from hub.sdk.outbox import Outbox
from hub.sdk.tlspin import PinMismatch, check_peer, client_context
from hub.sdk.tasks import TERMINAL, Outcome, TaskHandle

log = logging.getLogger("lineup.sdk")

RETRYABLE = ("storage_full", "internal", "rate_limited")
EventHandler = Callable[[dict[str, Any]], Awaitable[None]]
TaskHandler = Callable[[TaskHandle], Awaitable[None]]
ToolHandler = Callable[[str | None, dict[str, Any]], Awaitable[dict[str, Any]]]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AgentClient:
    """Connects with a Credential and keeps connecting: jittered exponential backoff from 0.5 s to 20 s.

    Every envelope waits in the outbox until the hub acks it and is re-sent with the same id after a
    reconnect. The cursor (`epoch`, `lastSequence`) is kept in `state_path` so a restarted agent resumes
    where it left off and no event is handled twice.
    """

    def __init__(self, credential: Credential, *, state_path: Path | str | None = None, runtime: str = "python-sdk",
                 agent_version: str = "", capabilities: list[str] | None = None, max_outbox: int = 10_000,
                 backoff_initial_s: float = 0.5, backoff_max_s: float = 20.0,
                 tools: list[dict[str, Any]] | None = None) -> None:
        self.credential = credential
        self.runtime = runtime
        self.agent_version = agent_version
        self.capabilities = list(capabilities or [])
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.state_path = Path(state_path) if state_path else None
        self.epoch: str | None = None
        self.last_sequence = 0
        self.tasks: dict[str, TaskHandle] = {}
        # Tasks handed to the handler and not finished, kept in the state file: an agent killed and restarted
        # runs its handler again for each of them (task.resumed), instead of leaving them running forever.
        self._open_tasks: dict[str, dict[str, Any]] = {}
        self._resume_pending: list[TaskHandle] = []
        self._load_state()
        self.outbox = Outbox(max_outbox)
        self.connections = 0  # how many times a session reached caught_up (tests and diagnostics)
        self._task_handler: TaskHandler | None = None
        self._handlers: dict[str, list[EventHandler]] = defaultdict(list)
        self._waiters: dict[str, asyncio.Future[Outcome]] = {}
        self._outcomes: dict[str, Outcome] = {}
        self._ws: ClientConnection | None = None
        self._caught_up = asyncio.Event()
        self._closing = False
        self._runner: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._state_dirty = False
        self.heartbeat_interval_s = 25.0
        self._last_heard = 0.0  # loop time of the last frame from the hub
        self.tools = tools  # this agent's own tools (seed 000 §4.1), offered to apps through agent.hello
        self._tool_handlers: dict[str, ToolHandler] = {}
        self._tool_waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}

    # ---- registering handlers ------------------------------------------------------------------------

    def on_task(self, handler: TaskHandler) -> TaskHandler:
        """Decorator: `handler(task)` runs for every task assigned to this agent, once."""
        self._task_handler = handler
        return handler

    def on(self, event_type: str) -> Callable[[EventHandler], EventHandler]:
        """Decorator: `handler(envelope)` runs for every event of that type (e.g. message.delivered)."""
        def register(handler: EventHandler) -> EventHandler:
            self._handlers[event_type].append(handler)
            return handler
        return register

    def on_tool(self, name: str) -> Callable[[ToolHandler], ToolHandler]:
        """Decorator: `handler(action, arguments) -> result dict` answers calls of this agent's tool `name`.

        Raise `ToolCallError(code, message)` to answer with an error; any other exception answers `tool_failed`.
        """
        def register(handler: ToolHandler) -> ToolHandler:
            self._tool_handlers[name] = handler
            return handler
        return register

    async def call_tool(self, name: str, arguments: dict[str, Any], *, action: str | None = None,
                        task_id: str | None = None, conversation_id: str | None = None) -> dict[str, Any]:
        """Call a tool the hub or an app offers (seed 000 §4.4); returns `result`, raises ToolCallError."""
        call_id = f"call_{uuid.uuid4().hex}"
        future = self._tool_waiters[call_id] = asyncio.get_running_loop().create_future()
        payload: dict[str, Any] = {"call_id": call_id, "name": name, "arguments": arguments}
        if action is not None:
            payload["action"] = action
        try:
            await self.send("tool.call", payload, taskId=task_id, conversationId=conversation_id)
            return await future
        finally:
            self._tool_waiters.pop(call_id, None)

    async def list_tools(self) -> list[dict[str, Any]]:
        """What the hub and the apps offer this agent (tool.list without tools)."""
        request_id = str(uuid.uuid4())
        future = self._tool_waiters[request_id] = asyncio.get_running_loop().create_future()
        try:
            await self.send("tool.list", {}, id=request_id)
            return list((await future)["tools"])
        finally:
            self._tool_waiters.pop(request_id, None)

    # ---- running -------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect and stay connected until `close()`. Raises AuthError if the credential is refused."""
        attempt = 0
        while not self._closing:
            sessions_before = self.connections
            try:
                await self._session()
            except (AuthError, PinMismatch):
                raise
            except (OSError, websockets.WebSocketException, asyncio.TimeoutError, HubError) as exc:
                log.info("connection to %s failed: %s", self.credential.hub_url, exc)
            if self.connections > sessions_before:
                attempt = 0  # that session got through: a new outage starts the backoff over
            if self._closing:
                break
            delay = min(self.backoff_max_s, self.backoff_initial_s * 2 ** attempt)
            attempt += 1
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))

    async def start(self, timeout_s: float = 30.0) -> None:
        """Run in the background and return once connected and caught up (raises AuthError at once)."""
        self._runner = asyncio.create_task(self.run(), name="lineup-sdk")
        waiter = asyncio.create_task(self._caught_up.wait())
        done, _ = await asyncio.wait({self._runner, waiter}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if self._runner in done:
            waiter.cancel()
            self._runner.result()  # raises what stopped it
            raise SdkError("The agent stopped before it connected.")
        if waiter not in done:
            waiter.cancel()
            raise SdkError(f"Could not connect to {self.credential.hub_url} within {timeout_s} s.")

    async def wait_connected(self, timeout_s: float = 30.0) -> None:
        await asyncio.wait_for(self._caught_up.wait(), timeout_s)

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await asyncio.gather(self._runner, return_exceptions=True)
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        self._save_state()

    @property
    def connected(self) -> bool:
        return self._ws is not None and self._caught_up.is_set()

    # ---- sending -------------------------------------------------------------------------------------

    def _envelope(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
        envelope = {"id": fields.pop("id", None) or str(uuid.uuid4()), "type": type_, "version": "0.1",
                    "occurredAt": _now(), "workspaceId": self.credential.workspace_id, "payload": payload}
        envelope.update({k: v for k, v in fields.items() if v is not None})
        return envelope

    async def send(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """Send an envelope and wait for its ack (returned); raises HubError if the hub refuses it."""
        return await self.send_nowait(type_, payload, **fields)

    def send_nowait(self, type_: str, payload: dict[str, Any], **fields: Any) -> asyncio.Future[dict[str, Any]]:
        """Queue an envelope (kept until acked, re-sent after reconnects); returns the future of its ack."""
        envelope = self._envelope(type_, payload, **fields)
        future = self.outbox.add(envelope)
        if self._ws is not None:
            self._spawn(self._transmit(envelope))
        return future

    async def _transmit(self, envelope: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None:
            return  # sent again after the next hello
        try:
            await ws.send(json.dumps(envelope))
        except websockets.ConnectionClosed:
            pass

    async def ask(self, interaction: dict[str, Any], *, task_id: str | None = None,
                  conversation_id: str | None = None) -> Outcome:
        """Request an interaction and wait for its outcome; asking again with the same id does not ask twice."""
        interaction_id = interaction.get("id") or f"int_{uuid.uuid4().hex}"
        if interaction_id in self._outcomes:
            return self._outcomes[interaction_id]
        future = self._waiters.get(interaction_id)
        if future is None or future.done():  # a waiter left over from a cancelled ask cannot be reused
            future = self._waiters[interaction_id] = asyncio.get_running_loop().create_future()
        # The envelope id derives from the interaction id: a re-issued ask is a harmless re-send.
        await self.send("interaction.requested", {"interaction": {**interaction, "id": interaction_id}},
                        id=f"ask-{interaction_id}", taskId=task_id, conversationId=conversation_id)
        return await future

    # ---- one connection ------------------------------------------------------------------------------

    async def _session(self) -> None:
        secure = self.credential.ws_url.startswith("wss://")
        pin = self.credential.tls_fingerprint
        async with websockets.connect(self.credential.ws_url, proxy=None, compression=None, max_size=None,
                                      ping_interval=None, open_timeout=10, close_timeout=2,
                                      ssl=client_context(pin) if secure else None) as ws:
            if secure:
                check_peer(ws.transport.get_extra_info("ssl_object"), pin)  # before the credential is sent
            hello: dict[str, Any] = {"credential": self.credential.credential, "runtime": self.runtime,
                                     "agentVersion": self.agent_version, "capabilities": self.capabilities,
                                     "lastSequence": self.last_sequence}
            if self.tools is not None:
                hello["tools"] = self.tools
            if self.epoch:
                hello["epoch"] = self.epoch
            await ws.send(json.dumps(self._envelope("agent.hello", hello)))
            first = json.loads(await asyncio.wait_for(ws.recv(), 15))
            if first["type"] == "system.error":
                error = first["payload"]
                kind = AuthError if error["code"] == "unauthorized" else HubError
                raise kind(error["code"], error["message"], error.get("hint", ""))
            if first["type"] != "system.welcome":
                raise HubError("invalid_envelope", f"Expected system.welcome, got {first['type']}.")
            welcome = first["payload"]
            self.heartbeat_interval_s = welcome["heartbeatIntervalMs"] / 1000
            if self.epoch is None:
                self.epoch = welcome["epoch"]
            self._ws = ws
            for envelope in self.outbox.pending():  # same ids: the hub stores each once
                await ws.send(json.dumps(envelope))
            self._last_heard = asyncio.get_running_loop().time()
            heartbeat = asyncio.create_task(self._heartbeat(ws))
            try:
                async for raw in ws:
                    self._last_heard = asyncio.get_running_loop().time()
                    self._on_frame(json.loads(raw))
            except websockets.ConnectionClosed:
                if ws.close_code != 4401:
                    raise  # 4401 (revoked) is raised as AuthError below, not retried
            finally:
                heartbeat.cancel()
                self._ws = None
                self._caught_up.clear()
                self._save_state()
        if ws.close_code == 4401:
            raise AuthError("unauthorized", "The hub closed the connection: this agent's credential was revoked.",
                            "Pair the agent again with a new code.")

    async def _heartbeat(self, ws: ClientConnection) -> None:
        # The first beat is jittered so that agents restarted together do not beat in step.
        await asyncio.sleep(self.heartbeat_interval_s * random.uniform(0.3, 1.0))
        while True:
            if asyncio.get_running_loop().time() - self._last_heard > 3 * self.heartbeat_interval_s:
                # Every ping is answered: this much silence means a dead link that TCP would take minutes
                # to report (a silent partition). Drop it and reconnect.
                log.info("nothing from %s for %.0f s; reconnecting", self.credential.hub_url,
                         3 * self.heartbeat_interval_s)
                ws.transport.abort()
                return
            try:
                await ws.send(json.dumps(self._envelope("system.ping", {})))
            except websockets.ConnectionClosed:
                return
            if self._state_dirty:
                self._save_state()
            await asyncio.sleep(self.heartbeat_interval_s)

    # ---- frames from the hub -------------------------------------------------------------------------

    def _on_frame(self, frame: dict[str, Any]) -> None:
        type_, payload = frame["type"], frame.get("payload") or {}
        if type_ == "system.ack":
            self.outbox.settle(payload.get("id", ""), result=payload)
        elif type_ == "system.error":
            self._on_error(payload)
        elif type_ == "system.caught_up":
            self.last_sequence = max(self.last_sequence, int(payload["sequence"]))
            self._save_state()
            self.connections += 1
            self._resume_unfinished()
            self._caught_up.set()
        elif type_ == "tool.list" and frame.get("sequence") is None:
            waiter = self._tool_waiters.get(frame.get("correlationId") or "")
            if waiter is not None and not waiter.done():
                waiter.set_result(payload)
        elif type_ == "system.resync_required":
            # Our cursor means nothing in this log: start over; handlers are idempotent by object id.
            self.epoch = payload["epoch"]
            self.last_sequence = 0
            self._open_tasks.clear()  # the tasks come again, from the new log
            self._resume_pending.clear()
            self._save_state()
        elif frame.get("sequence") is not None:
            sequence = int(frame["sequence"])
            if sequence <= self.last_sequence:
                return  # already handled before a reconnect
            self.last_sequence = sequence
            self._dispatch(frame)
            # Saved after every event (a few small writes a second at most): an agent killed and restarted
            # does not handle an event twice.
            self._save_state()

    def _on_error(self, error: dict[str, Any]) -> None:
        envelope_id = error.get("id")
        if envelope_id is None:
            log.warning("the hub reported an error: %s %s", error.get("code"), error.get("message"))
            return
        if error.get("code") in RETRYABLE:
            # Nothing was stored: send the same envelope again shortly, keeping it in the outbox.
            for envelope in self.outbox.pending():
                if envelope["id"] == envelope_id:
                    self._spawn(self._retry_later(envelope))
            return
        self.outbox.settle(envelope_id, error=HubError(error["code"], error["message"], error.get("hint", "")))

    async def _retry_later(self, envelope: dict[str, Any]) -> None:
        await asyncio.sleep(1.0)
        await self._transmit(envelope)

    def _dispatch(self, frame: dict[str, Any]) -> None:
        type_, payload = frame["type"], frame["payload"]
        if type_ == "task.assigned":
            task_id = frame["taskId"]
            if task_id not in self.tasks:
                task = self.tasks[task_id] = TaskHandle(self, task_id, frame.get("conversationId"), payload)
                if self._task_handler is not None:
                    self._open_tasks[task_id] = {"conversationId": task.conversation_id, "payload": payload}
                    self._spawn(self._run_task(task))
        elif type_ == "task.status_changed" and payload.get("status") in TERMINAL:
            # Someone else ended one of our tasks (a cancel, the cancel timeout, the grace period).
            task = self.tasks.get(frame.get("taskId") or "")
            if task is not None:
                task.ended_by_hub(payload["status"])
            self.task_finished(frame.get("taskId") or "")
        elif type_ == "task.cancel_requested":
            task = self.tasks.get(frame.get("taskId") or "")
            if task is not None:
                task.cancel_reason = payload.get("reason")
                task.cancel_requested.set()
        elif type_ == "tool.result":
            waiter = self._tool_waiters.get(payload.get("call_id", ""))
            if waiter is not None and not waiter.done():
                if payload.get("error"):
                    waiter.set_exception(ToolCallError(payload["error"]["code"], payload["error"].get("message", "")))
                else:
                    waiter.set_result(payload.get("result") or {})
        elif type_ == "tool.call":
            self._spawn(self._answer_tool_call(frame))
        elif type_ == "interaction.resolved":
            outcome = Outcome(payload["interactionId"], payload["outcome"], payload.get("response") or {},
                              payload.get("respondedBy"))
            self._outcomes[outcome.interaction_id] = outcome
            waiter = self._waiters.pop(outcome.interaction_id, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(outcome)
        for handler in self._handlers.get(type_, ()):
            self._spawn(handler(frame))

    async def _answer_tool_call(self, frame: dict[str, Any]) -> None:
        payload = frame["payload"]
        handler = self._tool_handlers.get(payload["name"])
        answer: dict[str, Any] = {"call_id": payload["call_id"], "name": payload["name"], "action": payload.get("action")}
        if handler is None:
            answer["error"] = {"code": "unknown_tool", "message": f"This agent does not handle {payload['name']!r}."}
        else:
            try:
                answer["result"] = await handler(payload.get("action"), payload.get("arguments") or {})
            except ToolCallError as exc:
                answer["error"] = {"code": exc.code, "message": exc.message}
            except Exception as exc:  # noqa: BLE001 - the caller gets an error instead of silence
                log.exception("tool handler %s failed", payload["name"])
                answer["error"] = {"code": "tool_failed", "message": f"{type(exc).__name__}: {exc}"[:500]}
        # The call's envelope id pairs the answer with exactly this call (PROTOCOL.md).
        await self.send("tool.result", answer, correlationId=frame["id"])

    async def _run_task(self, task: TaskHandle) -> None:
        assert self._task_handler is not None
        try:
            await self._task_handler(task)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the task handler failed on %s", task.id)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- the cursor on disk --------------------------------------------------------------------------

    def task_finished(self, task_id: str) -> None:
        """The task reached a final status: nothing to resume after a restart."""
        if self._open_tasks.pop(task_id, None) is not None:
            self._save_state()

    def _resume_unfinished(self) -> None:
        """After the first catch-up: run the handler again for the tasks a previous run left unfinished."""
        pending, self._resume_pending = self._resume_pending, []
        for task in pending:
            if task.id in self._open_tasks and self._task_handler is not None:
                self._spawn(self._resume_task(task))

    async def _resume_task(self, task: TaskHandle) -> None:
        # The previous run may have ended the task just before it died (its final ack lost with it), or the
        # hub ended it in a way not addressed to the agent: accepting again tells. The hub answers a task that
        # runs with "already running" (a no-op for accept()) and a finished one with its final status.
        try:
            await task.accept()
        except HubError as exc:
            ended = next((status for status in TERMINAL if status in exc.message), None)
            if exc.code == "illegal_transition" and ended is not None:
                log.info("not resuming task %s: it is already %s", task.id, ended)
                task.ended_by_hub(ended)
                self.task_finished(task.id)
                return
            log.warning("resuming task %s: %s", task.id, exc)
        log.info("resuming unfinished task %s", task.id)
        await self._run_task(task)

    def _load_state(self) -> None:
        if self.state_path is None or not self.state_path.exists():
            return
        try:
            data = json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            log.warning("ignoring an unreadable state file %s", self.state_path)
            return
        self.epoch = data.get("epoch")
        self.last_sequence = int(data.get("lastSequence", 0))
        for task_id, kept in dict(data.get("openTasks") or {}).items():
            task = TaskHandle(self, task_id, kept.get("conversationId"), kept.get("payload") or {}, resumed=True)
            self.tasks[task_id] = task
            self._open_tasks[task_id] = kept
            self._resume_pending.append(task)

    def _save_state(self) -> None:
        self._state_dirty = False
        if self.state_path is None:
            return
        tmp = self.state_path.with_name(self.state_path.name + ".tmp")
        tmp.write_text(json.dumps({"epoch": self.epoch, "lastSequence": self.last_sequence,
                                   "openTasks": self._open_tasks}))
        os.replace(tmp, self.state_path)
