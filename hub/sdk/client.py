"""AgentClient: one agent's connection to the hub — hello, heartbeat, resume, outbox, handlers, reconnects."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from hub.sdk import files, frames
from hub.sdk.cleartext import allowed_by_environment, refuse_cleartext
from hub.sdk.credentials import Credential
from hub.sdk.errors import AuthError, HubError, ReplacedError, SdkError, ToolCallError
from hub.sdk.outbox import Outbox
from hub.sdk.tasks import TERMINAL, Outcome, TaskHandle
from hub.sdk.tlspin import PinMismatch, check_peer, client_context

log = logging.getLogger("lineup.sdk")

CLOSE_REVOKED, CLOSE_REPLACED = 4401, 4409
EventHandler = Callable[[dict[str, Any]], Awaitable[None]]
TaskHandler = Callable[[TaskHandle], Awaitable[None]]
ToolHandler = Callable[[str | None, dict[str, Any]], Awaitable[dict[str, Any]]]


# What a retried refusal means, for the agent's log and the task's summary while it lasts.
WAITING_FOR = {"storage_full": "the hub is out of disk space",
               "rate_limited": "the hub asked this agent to send more slowly",
               "internal": "the hub failed to store the agent's update"}
ERROR_MESSAGE_MAX = 4000   # error.message of a failed task (hub/protocol/payloads.py)
SUMMARY_MAX = 2000         # a task's summary


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def describe_error(exc: BaseException) -> str:
    """What went wrong, for the person: the exception's type and message (never its traceback, which the agent's
    log keeps). A refusal also names what the hub refused."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, HubError) and exc.envelope_type:
        text += f" (the hub refused the agent's {exc.envelope_type})"
    return _clip(text, ERROR_MESSAGE_MAX)


class _Retrying:
    """An envelope the hub refused for now (storage_full, internal, rate_limited) and the SDK sends again."""

    def __init__(self, since: float, code: str, task_id: str | None, note: bool) -> None:
        self.since = since
        self.code = code
        self.task_id = task_id
        self.note = note  # it is itself the task's "Waiting to retry" note


class AgentClient:
    """Connects with a Credential and keeps connecting: jittered exponential backoff from 0.5 s to 20 s.

    Every envelope waits in the outbox until the hub acks it and is re-sent with the same id after a
    reconnect. The cursor (`epoch`, `lastSequence`) is kept in `state_path` so a restarted agent resumes
    where it left off and no event is handled twice; the tasks to resume come from the hub (the welcome's
    `openTasks`), never from a file another copy of the agent may have written.

    `instance` names this copy of the agent: a newer connection of the same instance replaces the older one
    (the older client stops with ReplacedError). Leave it unset for an agent that takes tasks (one copy runs);
    give each process its own for siblings that share an identity on purpose (the MCP bridge).
    `credential_path` and `pair_command` only make errors say which file holds the credential and how to
    pair again. A plain http:// hub beyond this machine is refused (InsecureHub, before anything is sent) unless
    `allow_insecure` is True, the credential was paired so, or LINEUP_ALLOW_INSECURE_HUB=1.
    """

    def __init__(self, credential: Credential, *, state_path: Path | str | None = None, runtime: str = "python-sdk",
                 agent_version: str = "", capabilities: list[str] | None = None, max_outbox: int = 10_000,
                 backoff_initial_s: float = 0.5, backoff_max_s: float = 20.0,
                 tools: list[dict[str, Any]] | None = None, instance: str | None = None,
                 credential_path: Path | str | None = None, pair_command: str | None = None,
                 allow_insecure: bool | None = None) -> None:
        # Never the credential in clear beyond this machine, unless the person chose it (hub/sdk/cleartext.py).
        insecure = allow_insecure if allow_insecure is not None else credential.insecure or allowed_by_environment()
        refuse_cleartext(credential.hub_url, insecure, "this agent's credential")
        self.credential = credential
        self.instance = instance
        self.credential_path = Path(credential_path) if credential_path else None
        self.pair_command = pair_command
        self.runtime = runtime
        self.agent_version = agent_version
        self.capabilities = list(capabilities or [])
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.state_path = Path(state_path) if state_path else None
        self.epoch: str | None = None
        self.last_sequence = 0
        self.tasks: dict[str, TaskHandle] = {}
        self._handled: set[str] = set()            # tasks whose handler this process started (once each)
        self._ended: set[str] = set()              # tasks that reached a final status
        self._snapshot: dict[str, dict[str, Any]] = {}  # the welcome's openTasks, by task id
        self._snapshot_head = 0                    # headSequence of that welcome
        self._deferred: dict[str, TaskHandle] = {}  # task.assigned seen while replaying, started at caught_up
        self._deferred_sequence: dict[str, int] = {}
        self._live = False                         # this connection has caught up
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
        self._bad_frames = 0  # frames from the hub that broke the protocol, ignored (logged: the first 5, every 100th)
        self.tools = tools  # this agent's own tools (docs/design.md#tool-types), offered to apps through agent.hello
        self._tool_handlers: dict[str, ToolHandler] = {}
        self._tool_waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        # Retried refusals (docs/sdk.md "When a handler fails"): after `retry_note_after_s` of retries a task's
        # summary says it waits; an `internal` refusal is given up after `retry_internal_s` (a bug in the hub
        # does not heal by itself) and raised to the caller.
        self.retry_note_after_s = 5.0
        self.retry_internal_s = 30.0
        self._retrying: dict[str, _Retrying] = {}
        self._retry_notes: dict[str, tuple[str, asyncio.Future[dict[str, Any]]]] = {}  # task id -> note id, ack

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
        """Call a tool the hub or an app offers (docs/protocol.md#tools); returns `result`, raises ToolCallError."""
        call_id = f"call_{uuid.uuid4().hex}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._tool_waiters[call_id] = future
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

    async def upload_file(self, source: str | os.PathLike[str] | bytes, *, name: str | None = None,
                          mime_type: str | None = None) -> dict[str, Any]:
        """Store a file on the hub (a path or bytes): `{fileId, name, mimeType, size, sha256}` (hub/sdk/files.py)."""
        return await files.upload_file(self.credential, source, name=name, mime_type=mime_type)

    async def download_file(self, file_id: str, *, to: str | os.PathLike[str] | None = None) -> bytes | Path:
        """A file's bytes (a message's `attachments[i]["fileId"]`), or with `to` the path written (hub/sdk/files.py)."""
        return await files.download_file(self.credential, file_id, to=to)

    # ---- running -------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect and stay connected until `close()`. Raises AuthError if the credential is refused."""
        attempt = 0
        while not self._closing:
            sessions_before = self.connections
            try:
                await self._session()
            except (AuthError, PinMismatch, ReplacedError):
                await self._stop_handlers()
                raise
            except (TimeoutError, OSError, websockets.WebSocketException, HubError) as exc:
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
        async with asyncio.timeout(timeout_s):
            await self._caught_up.wait()

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
        if type_.startswith("system."):  # the hub answers system.ping with a pong, never an ack: it would wait forever
            raise ValueError(f"{type_} is the connection's own (the client sends its heartbeats itself); "
                             "send() is for messages the hub acks")
        envelope = self._envelope(type_, payload, **fields)
        if envelope["id"] in self.outbox:  # already on its way (a deterministic id sent twice): one answer for both
            return self.outbox.add(envelope)
        future = self.outbox.add(envelope)
        if self._ws is not None:
            self._spawn(self._transmit(envelope))
        return future

    async def _transmit(self, envelope: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None:
            return  # sent again after the next hello
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(json.dumps(envelope))

    async def ask(self, interaction: dict[str, Any], *, task_id: str | None = None,
                  conversation_id: str | None = None) -> Outcome:
        """Request an interaction and wait for its outcome; asking again with the same id does not ask twice."""
        interaction_id = interaction.get("id") or f"int_{uuid.uuid4().hex}"
        if interaction_id in self._outcomes:
            return self._outcomes[interaction_id].with_options(interaction)
        future = self._waiters.get(interaction_id)
        if future is None or future.done():  # a waiter left over from a cancelled ask cannot be reused
            future = self._waiters[interaction_id] = asyncio.get_running_loop().create_future()
        # The envelope id derives from the interaction id: a re-issued ask is a harmless re-send. `conflict`: the
        # question exists already, asked with other words (a re-run handler): wait for that one's outcome.
        try:
            await self.send("interaction.requested", {"interaction": {**interaction, "id": interaction_id}},
                            id=f"ask-{interaction_id}", taskId=task_id, conversationId=conversation_id)
        except HubError as exc:
            if exc.code != "conflict":
                raise
        if interaction_id in self._outcomes:  # answered while the ask was on its way (a resumed task)
            return self._outcomes[interaction_id].with_options(interaction)
        return (await future).with_options(interaction)

    def outcome(self, interaction_id: str) -> Outcome | None:
        """How a question ended, if this process has heard (None: pending, or not known here)."""
        return self._outcomes.get(interaction_id)

    async def withdraw(self, interaction_id: str, reason: str = "") -> bool:
        """Stop waiting for a question (answered elsewhere, given up): it ends as withdrawn everywhere, `reason`
        shown to the person. False when it had already ended (its outcome reaches `ask` as usual)."""
        try:
            await self.send("interaction.withdraw", {"interactionId": interaction_id, "reason": reason[:500]},
                            id=f"withdraw-{interaction_id}")
        except HubError as exc:
            if exc.code in ("already_resolved", "not_found"):
                return False
            raise
        return True

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
            if self.instance is not None:
                hello["instance"] = self.instance
            if self.epoch:
                hello["epoch"] = self.epoch
            await ws.send(json.dumps(self._envelope("agent.hello", hello)))
            async with asyncio.timeout(15):
                first, why = frames.parse(await ws.recv())
            if first is None:  # a broken answer to the hello: a failed connection, tried again
                self._bad_frame(why)
                raise HubError("invalid_envelope", "The hub's answer to the hello is not a protocol frame.")
            if first["type"] == "system.error":
                error = first["payload"]
                if error["code"] == "unauthorized":
                    raise self._refused(error["message"])
                if error["code"] == "forbidden":  # e.g. plain ws:// from another machine to a TLS-only hub
                    raise AuthError("forbidden", error["message"], error.get("hint") or "")
                raise HubError.from_payload(error)
            if first["type"] != "system.welcome":
                raise HubError("invalid_envelope", f"Expected system.welcome, got {first['type']}.")
            welcome = first["payload"]
            # Bounded as the TypeScript SDK does: 0 would ping in a tight loop, a year never notice a dead link.
            self.heartbeat_interval_s = min(3600.0, max(0.1, welcome["heartbeatIntervalMs"] / 1000))
            if self.epoch is None:
                self.epoch = welcome["epoch"]
            self._take_snapshot(welcome)
            self._ws = ws
            for envelope in self.outbox.pending():  # same ids: the hub stores each once
                await ws.send(json.dumps(envelope))
            self._last_heard = asyncio.get_running_loop().time()
            heartbeat = asyncio.create_task(self._heartbeat(ws))
            try:
                async for raw in ws:
                    self._last_heard = asyncio.get_running_loop().time()
                    self._on_raw(raw)
            except websockets.ConnectionClosed:
                if ws.close_code not in (CLOSE_REVOKED, CLOSE_REPLACED):
                    raise  # 4401 (revoked) and 4409 (replaced) are raised below, not retried
            finally:
                heartbeat.cancel()
                self._ws = None
                self._live = False
                self._caught_up.clear()
                self._save_state()
        if ws.close_code == CLOSE_REVOKED and (ws.close_reason or "").startswith("credential replaced"):
            # hub/gateway/session.py CREDENTIAL_REPLACED: the same agent paired again elsewhere (a fresh code used
            # with this credential file, or the app's "Pair again"); that copy is the agent now.
            raise ReplacedError(
                f"Agent {self.credential.agent_id} paired again with a fresh code, so this credential no longer "
                "works; the newly paired copy is the agent now (its conversations and tasks stay with it), and this "
                "one stops. To run this copy instead, pair it again with a fresh code.")
        if ws.close_code == CLOSE_REVOKED:
            raise self._refused("The hub closed the connection: this agent's credential was revoked.")
        if ws.close_code == CLOSE_REPLACED:
            raise ReplacedError(
                f"Another copy of agent {self.credential.agent_id} connected to {self.credential.hub_url} with the "
                "same credential and took over; this one stops so the two do not both take every task. Run one "
                "copy per credential, or pair the second copy as an agent of its own with a fresh code.")

    def _refused(self, message: str) -> AuthError:
        """The credential is unknown or revoked: say which file holds it and the command that fixes it."""
        from hub.cli_invocation import program  # the program this machine runs LineUp as (not always `lineup`)

        where = f" The credential is kept in {self.credential_path}." if self.credential_path else ""
        command = self.pair_command or "pair the agent again with a fresh pairing code"
        return AuthError("unauthorized", message + where,
                         f"Pair the agent again: get a fresh pairing code (the app's \"Connect my agent\", or "
                         f"`{program()} pair` on the hub's machine) and run: {command}. A new code replaces the "
                         "stored credential (the old file is kept beside it as .bak).")

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

    def _on_raw(self, raw: str | bytes) -> None:
        """One frame as it came: checked against the hub's schema first (hub/sdk/frames.py), so a broken or hostile
        hub gets its frame ignored and logged, never a crash of `run()`."""
        frame, why = frames.parse(raw)
        if frame is None:
            self._bad_frame(why)
            return
        try:
            self._on_frame(frame)
        except Exception:  # a frame the schema allows and this code still trips on: logged, the connection stays
            log.exception("could not handle a %s frame from the hub", frame["type"])

    def _bad_frame(self, why: str) -> None:
        self._bad_frames += 1
        if self._bad_frames <= 5 or self._bad_frames % 100 == 0:
            clipped = why[:300].encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate logs too
            log.warning("ignoring a frame from the hub that breaks the protocol (%s); %d so far", clipped,
                        self._bad_frames)

    def _on_frame(self, frame: dict[str, Any]) -> None:
        type_, payload = frame["type"], frame.get("payload") or {}
        if type_ == "system.ack":
            self._stored(payload.get("id", ""))
            self.outbox.settle(payload.get("id", ""), result=payload)
        elif type_ == "system.error":
            self._on_error(payload)
        elif type_ == "system.caught_up":
            self.last_sequence = max(self.last_sequence, int(payload["sequence"]))
            self._save_state()
            self.connections += 1
            if not self._live:
                log.info("connected to %s as agent %s (%d unfinished task%s to resume)", self.credential.hub_url,
                         self.credential.agent_id, len(self._snapshot), "" if len(self._snapshot) == 1 else "s")
            self._live = True
            self._start_open_tasks()
            self._caught_up.set()
        elif type_ == "tool.list" and frame.get("sequence") is None:
            waiter = self._tool_waiters.get(frame.get("correlationId") or "")
            if waiter is not None and not waiter.done():
                waiter.set_result(payload)
        elif type_ == "system.resync_required":
            # Our cursor means nothing in this log: start over; handlers are idempotent by object id.
            self.epoch = payload["epoch"]
            self.last_sequence = 0
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
        envelope = next((e for e in self.outbox.pending() if e["id"] == envelope_id), None)
        refusal = HubError.from_payload(error, envelope["type"] if envelope is not None else None)
        if refusal.retryable and envelope is not None and not self._give_up(envelope, refusal):
            # Nothing was stored: send the same envelope again shortly, keeping it in the outbox. A cap that only
            # the person can lift (questions waiting, checkpoints) is the caller's error at once: retrying it
            # would make `send`/`ask` hang silently.
            self._spawn(self._retry_later(envelope))
            return
        self._retrying.pop(envelope_id, None)
        self.outbox.settle(envelope_id, error=refusal)

    def _give_up(self, envelope: dict[str, Any], refusal: HubError) -> bool:
        """Note a retried refusal: the agent's log says so once, a task waiting long says so in its summary; an
        `internal` refusal that lasts `retry_internal_s` is given up (True): the caller gets the HubError."""
        now = asyncio.get_running_loop().time()
        task_id = envelope.get("taskId")
        retrying = self._retrying.get(envelope["id"])
        if retrying is None:
            is_note = any(note_id == envelope["id"] for note_id, _ in self._retry_notes.values())
            retrying = self._retrying[envelope["id"]] = _Retrying(now, refusal.code, task_id, is_note)
            log.warning("the hub refused %s for now (%s: %s); sending it again every second until it is stored",
                        envelope["type"], refusal.code, refusal.message)
        retrying.code = refusal.code
        if refusal.code == "internal" and now - retrying.since >= self.retry_internal_s:
            log.error("the hub kept refusing %s with `internal` for %.0f s; giving up", envelope["type"],
                      now - retrying.since)
            return True
        if now - retrying.since >= self.retry_note_after_s and not retrying.note:
            self._note_waiting(task_id, refusal.code)
        return False

    def _note_waiting(self, task_id: str | None, code: str) -> None:
        """Say on the task that it waits for the hub (once per wait): its summary, put back when the wait ends."""
        task = self.tasks.get(task_id or "")
        if task is None or task_id is None or task.finished or task_id in self._retry_notes:
            return
        note_id = str(uuid.uuid4())
        note = self.send_nowait("task.status_changed", {"summary": f"Waiting to retry: {WAITING_FOR[code]}"},
                                id=note_id, taskId=task_id, conversationId=task.conversation_id)
        note.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._retry_notes[task_id] = (note_id, note)

    def _stored(self, envelope_id: str) -> None:
        """An envelope was acked: if it had been retried, say so, and end its task's note once nothing waits."""
        retrying = self._retrying.pop(envelope_id, None)
        if retrying is None:
            return
        log.info("the hub stored it after %.0f s of retries", asyncio.get_running_loop().time() - retrying.since)
        task_id = retrying.task_id
        if task_id is None or task_id not in self._retry_notes or retrying.note:
            return
        if any(r.task_id == task_id and not r.note for r in self._retrying.values()):
            return  # another of the task's envelopes still waits
        self._spawn(self._end_waiting(task_id, self._retry_notes[task_id]))

    async def _end_waiting(self, task_id: str, note: tuple[str, asyncio.Future[dict[str, Any]]]) -> None:
        """After the note is stored (or refused), put back the summary the task had before the wait."""
        with contextlib.suppress(HubError):
            await asyncio.shield(note[1])
        if self._retry_notes.get(task_id) is note:
            del self._retry_notes[task_id]
        task = self.tasks.get(task_id)
        if task is None or task.finished:
            return
        try:
            await task.progress(None, task.summary or "Working again")
        except HubError as exc:  # finished meanwhile
            log.info("the task's summary was not put back: %s", exc)

    async def _retry_later(self, envelope: dict[str, Any]) -> None:
        await asyncio.sleep(1.0)
        await self._transmit(envelope)

    def _dispatch(self, frame: dict[str, Any]) -> None:
        type_, payload = frame["type"], frame["payload"]
        if type_ == "task.assigned":
            task_id = frame["taskId"]
            if task_id not in self.tasks and task_id not in self._ended:
                task = self.tasks[task_id] = TaskHandle(self, task_id, frame.get("conversationId"), payload)
                if not self._live:
                    # Replayed: the welcome's openTasks says whether it is still open; decided at caught_up.
                    self._deferred[task_id] = task
                    self._deferred_sequence[task_id] = int(frame["sequence"])
                else:
                    self._start(task)
        elif type_ == "task.status_changed" and payload.get("status") in TERMINAL:
            # Someone else ended one of our tasks (a cancel, the cancel timeout, the grace period).
            ended = self.tasks.get(frame.get("taskId") or "")
            if ended is not None:
                ended.ended_by_hub(payload["status"])
            self.task_finished(frame.get("taskId") or "")
        elif type_ == "task.cancel_requested":
            cancelled = self.tasks.get(frame.get("taskId") or "")
            if cancelled is not None:
                cancelled.cancel_reason = payload.get("reason")
                cancelled.cancel_requested.set()
        elif type_ == "tool.result":
            tool_waiter = self._tool_waiters.get(payload.get("call_id", ""))
            if tool_waiter is not None and not tool_waiter.done():
                if payload.get("error"):
                    tool_waiter.set_exception(ToolCallError(payload["error"]["code"],
                                                            payload["error"].get("message", "")))
                else:
                    tool_waiter.set_result(payload.get("result") or {})
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
        answer: dict[str, Any] = {"call_id": payload["call_id"], "name": payload["name"],
                                  "action": payload.get("action")}
        if handler is None:
            answer["error"] = {"code": "unknown_tool", "message": f"This agent does not handle {payload['name']!r}."}
        else:
            try:
                answer["result"] = await handler(payload.get("action"), payload.get("arguments") or {})
            except ToolCallError as exc:
                answer["error"] = {"code": exc.code, "message": exc.message}
            except Exception as exc:  # the caller gets an error instead of silence
                log.exception("tool handler %s failed", payload["name"])
                answer["error"] = {"code": "tool_failed", "message": f"{type(exc).__name__}: {exc}"[:500]}
        # The call's envelope id pairs the answer with exactly this call (docs/protocol.md#tools).
        await self.send("tool.result", answer, correlationId=frame["id"])

    async def _run_task(self, task: TaskHandle) -> None:
        """Run the handler; a task it leaves unfinished is ended so that it never stays "Running" (docs/sdk.md
        "When a handler fails"): failed with the error it raised (`handler_error`) or because it returned without
        finishing (`handler_returned`), cancelled when the person asked to stop or it raised CancelledError."""
        assert self._task_handler is not None
        try:
            await self._task_handler(task)
        except asyncio.CancelledError:
            if self._stopping():
                raise  # the SDK stops (close, replaced, revoked): the task stays open and is resumed next time
            await self._end_unfinished(task, None, stopped=True)
            return
        except Exception as exc:
            if task.ended_status is not None and isinstance(exc, HubError) and exc.code == "illegal_transition":
                # The person cancelled (or the hub ended the task) and the handler carried on: not a crash.
                log.info("the handler of task %s (%r) stopped: the task had ended (%s) and the hub refused %s",
                         task.id, task.title, task.ended_status, exc.envelope_type or "what it sent")
                return
            log.exception("the task handler failed on task %s (%r)", task.id, task.title)  # the traceback: here only
            await self._end_unfinished(task, exc)
            return
        if not self._stopping():
            await self._end_unfinished(task, None)

    def _stopping(self) -> bool:
        """This client is closing, or the handler's own asyncio task was cancelled (by close or _stop_handlers)."""
        current = asyncio.current_task()
        return self._closing or (current is not None and current.cancelling() > 0)

    async def _end_unfinished(self, task: TaskHandle, error: Exception | None, *, stopped: bool = False) -> None:
        if task.finished:
            if error is not None:
                log.warning("the handler of task %s raised after the task had ended (%s)", task.id,
                            describe_error(error))
            return
        try:
            if task.cancel_requested.is_set() or stopped:
                summary = "Stopped on request" if task.cancel_requested.is_set() else \
                    "Stopped by the agent (its handler was cancelled)"
                if error is not None:
                    summary += f"; the handler ended with {describe_error(error)}"
                await task.cancelled(_clip(summary, SUMMARY_MAX))
                log.info("task %s (%r) cancelled: %s", task.id, task.title, summary)
            elif error is not None:
                await task.fail("handler_error", describe_error(error))
                log.error("task %s (%r) failed: %s", task.id, task.title, describe_error(error))
            else:
                await task.fail("handler_returned", "The agent's handler returned without finishing the task: it "
                                                    "called none of succeed, fail or cancelled.")
                log.error("task %s (%r) failed: the handler returned without calling task.succeed(), task.fail() "
                          "or task.cancelled()", task.id, task.title)
        except HubError as exc:
            if not task.finished:  # ended meanwhile by the person or the hub: nothing is lost
                log.warning("could not record the end of task %s: %s", task.id, exc)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- the cursor on disk --------------------------------------------------------------------------

    def task_finished(self, task_id: str) -> None:
        """The task reached a final status: nothing to resume after a restart."""
        if task_id:
            self._ended.add(task_id)
            self._snapshot.pop(task_id, None)
            self._deferred.pop(task_id, None)

    def _take_snapshot(self, welcome: dict[str, Any]) -> None:
        """The hub's list of this agent's unfinished tasks: what to resume, and how far each got."""
        self._snapshot = {}
        for raw in welcome.get("openTasks") or []:
            task = frames.read_open_task(raw)
            if task is None:
                self._bad_frame("an openTasks entry of the welcome is malformed")
            else:
                self._snapshot[task["taskId"]] = task
        self._snapshot_head = int(welcome.get("headSequence") or 0)
        for task in self._snapshot.values():
            for question in task.get("interactions") or []:
                if question["status"] != "pending":
                    self._outcomes[question["interactionId"]] = Outcome(
                        question["interactionId"], question["status"], question.get("response") or {},
                        question.get("respondedBy"))
        if welcome.get("openTasksTruncated"):
            log.warning("the hub listed only the oldest %d unfinished tasks of this agent", len(self._snapshot))

    def _start_open_tasks(self) -> None:
        """At caught_up: run the handler for every open task not yet running here, exactly once per process.

        Open are the tasks the welcome listed (a previous run or another copy of this agent left them
        unfinished: run again as `resumed`) and those assigned after the list was read. A task assigned in the
        replay but missing from the list ended before this connection: it is not started.
        """
        deferred, self._deferred = self._deferred, {}
        sequences, self._deferred_sequence = self._deferred_sequence, {}
        if self._task_handler is None:
            return
        for task_id, info in list(self._snapshot.items()):
            if task_id in self._handled or task_id in self._ended:
                continue
            task = self.tasks.get(task_id)
            if task is None or task_id not in deferred:
                task = TaskHandle(self, task_id, info.get("conversationId"),
                                  {"title": info.get("title", ""), "description": info.get("description", "")})
                self.tasks[task_id] = task
            task.restore(info)
            if task.resumed:
                log.info("resuming unfinished task %s (%s)", task_id, info.get("status"))
            self._start(task)
        for task_id, task in deferred.items():
            if task_id not in self._handled and task_id not in self._ended \
                    and sequences.get(task_id, 0) > self._snapshot_head:
                self._start(task)

    def _start(self, task: TaskHandle) -> None:
        if self._task_handler is None or task.id in self._handled:
            return
        self._handled.add(task.id)
        self._spawn(self._run_task(task))

    async def _stop_handlers(self) -> None:
        """Replaced or revoked: the handlers stop too, or they would wait for acks that never come."""
        current = asyncio.current_task()
        for task in list(self._background):
            if task is not current:
                task.cancel()
        await asyncio.gather(*(t for t in self._background if t is not current), return_exceptions=True)

    def _load_state(self) -> None:
        if self.state_path is None or not self.state_path.exists():
            return
        try:
            data = json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            log.warning("ignoring an unreadable state file %s", self.state_path)
            return
        if data.get("agentId") not in (None, self.credential.agent_id):
            # Paired again with a fresh code (a new agent): the old agent's cursor means nothing to this one.
            log.info("the state file %s belongs to agent %s: starting afresh as agent %s", self.state_path,
                     data.get("agentId"), self.credential.agent_id)
            return
        self.epoch = data.get("epoch")
        self.last_sequence = int(data.get("lastSequence", 0))
        # Files of older versions also list "openTasks": the hub's welcome is the truth about those now.

    def _save_state(self) -> None:
        self._state_dirty = False
        if self.state_path is None:
            return
        # A temporary name of this process's own: two copies started on one file do not trip over each other.
        tmp = self.state_path.with_name(f"{self.state_path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"agentId": self.credential.agent_id, "epoch": self.epoch,
                                   "lastSequence": self.last_sequence}))
        os.replace(tmp, self.state_path)
