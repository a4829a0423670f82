"""The LineUp platform adapter inside `hermes gateway` (docs/agents.md, "Hermes as a messaging platform").

Each LineUp conversation with the agent is a Hermes chat (its id is the chat id). The person's messages come from
the bridge (`message` lines); what Hermes says goes back (`send`); an exec approval (`send_exec_approval`) and a
clarify question (`send_clarify`) become cards, and the person's answer comes back to
`tools.approval.resolve_gateway_approval` / `tools.clarify_gateway.resolve_gateway_clarify`.

The hub connection is not made here: LineUp is not installed in Hermes's environment (its ACP extra pins another
agent-client-protocol), so this plugin starts LineUp's own program, `lineup hook hermes-bridge`, as written into
`lineup.json` beside it by `lineup connect hermes`, and talks to it in JSON lines (lineproto.py). It restarts the
bridge when it stops (back-off 0.5 s doubling to 30 s) and sends it again whatever it had not acknowledged.
Standard library and Hermes only.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
import os
import stat
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.config import Platform, PlatformConfig  # type: ignore[import-not-found]
from gateway.platforms.base import (  # type: ignore[import-not-found]
    BasePlatformAdapter,
    MessageEvent,
    MessageType,
    SendResult,
)
from hermes_cli.config import load_config as hermes_config  # type: ignore[import-not-found]
from tools import approval as hermes_approval  # type: ignore[import-not-found]
from tools import clarify_gateway

from . import lineproto

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
CONFIG_FILE = HERE / "lineup.json"          # written by `lineup connect hermes`: how to start the bridge
BRIDGE_LOG = HERE / "bridge.log"           # the bridge's own log (its stderr)
BRIDGE_LOG_MAX = 1024 * 1024               # started afresh past this
FATAL_EXIT = 3                             # the bridge's exit code for "do not start me again"
CARD_BUDGET_BYTES = 60 * 1024              # a command larger than this cannot be shown whole on a card
                                           # (hub/sdk/approvals.py CARD_BUDGET_BYTES); Hermes then asks in text
MAX_MESSAGE = 200_000                      # Hermes splits longer replies (a LineUp message holds 256 Ki characters)
BACKOFF_S = (0.5, 30.0)                    # first and longest wait before starting a stopped bridge again
STABLE_S = 60.0                            # a bridge that ran this long starts the back-off over
WRITE_TIMEOUT_S = 30.0                     # a bridge that takes no input this long is stuck: it is stopped
LATE_S = 0.5                               # an answer this close to Hermes's deadline is not given (it is gone)
# What the bridge gets of Hermes's environment: what finding its files and the hub needs, never Hermes's keys.
PASSED_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TEMP", "TMP",
              "SYSTEMROOT", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
              "XDG_RUNTIME_DIR", "SSL_CERT_FILE", "SSL_CERT_DIR")

_ADAPTERS: weakref.WeakSet[LineUpAdapter] = weakref.WeakSet()


def load_config() -> dict[str, Any] | None:
    """lineup.json, if it is there, ours and well formed: `{"version": 1, "command": [argv...]}`. It says which
    program runs as the bridge, so a file others may write is refused."""
    try:
        info = CONFIG_FILE.stat()
        if os.name == "posix" and (info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
                                   or info.st_uid != os.getuid()):
            log.error("LineUp: %s is writable by others or not yours; not starting the bridge from it", CONFIG_FILE)
            return None
        data = json.loads(CONFIG_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != 1:
        return None
    command = data.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(p, str) and p for p in command):
        return None
    return data


def bridge_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in PASSED_ENV}


def hermes_version() -> str:
    try:
        from importlib.metadata import version

        return version("hermes-agent")[:64]
    except Exception:  # noqa: BLE001 - only for the agent's version string
        return ""


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:24]


@dataclass
class _Approval:
    id: str
    session: str
    deadline: float
    answer: tuple[str, str] | None = None   # the person's answer, given once every older one of the session is done
    ours: bool = False                     # resolved by this plugin: Hermes's own report of it is expected


@dataclass
class _Question:
    id: str
    hermes_id: str
    session: str
    ours: bool = False


class BridgeLink:
    """The bridge process: started, kept running, fed the lines it has not acknowledged."""

    def __init__(self, argv: list[str], adapter: LineUpAdapter) -> None:
        self.argv = argv
        self.adapter = adapter
        self.unacked: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
        self.process: asyncio.subprocess.Process | None = None
        self.fatal: str | None = None
        self._lock = asyncio.Lock()
        self._stopping = False
        self._supervisor: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        self._supervisor = asyncio.get_running_loop().create_task(self._supervise())

    def post(self, message: dict[str, Any]) -> None:
        """Send a line the bridge must acknowledge: kept, and sent again to a restarted bridge, until it does."""
        self.unacked[message["id"]] = message
        self.tell(message)

    def tell(self, message: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._write(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        self._stopping = True
        process = self.process
        if process is not None and process.returncode is None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()  # the bridge sends what it holds, then exits
            try:
                async with asyncio.timeout(8):
                    await process.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._supervisor is not None and self._supervisor is not asyncio.current_task():
            self._supervisor.cancel()  # (stopped from its own task when Hermes reacts to a fatal error at once)
            await asyncio.gather(self._supervisor, return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _write(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await self._write_locked(message)

    async def _write_locked(self, message: dict[str, Any]) -> None:
        process = self.process
        if process is None or process.stdin is None or process.stdin.is_closing():
            return  # sent again (if it needs an answer) when the bridge is back
        try:
            process.stdin.write(lineproto.encode(message))
            async with asyncio.timeout(WRITE_TIMEOUT_S):
                await process.stdin.drain()
        except lineproto.BadLine as exc:
            log.error("LineUp: not sent to the bridge: %s", exc)
            self.unacked.pop(str(message.get("id")), None)
        except TimeoutError:
            log.error("LineUp: the bridge took no input for %.0f s; stopping it", WRITE_TIMEOUT_S)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        except (OSError, ConnectionError) as exc:
            log.info("LineUp: the bridge is gone (%s); it will be started again", exc)

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        delay = BACKOFF_S[0]
        while not self._stopping and self.fatal is None:
            started = loop.time()
            try:
                await self._run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("LineUp: the bridge failed")
            if self._stopping or self.fatal is not None:
                break
            if loop.time() - started >= STABLE_S:
                delay = BACKOFF_S[0]
            log.warning("LineUp: the bridge stopped; starting it again in %.1f s", delay)
            await asyncio.sleep(delay)
            delay = min(BACKOFF_S[1], delay * 2)
        if self.fatal is not None:
            await self.adapter.bridge_failed(self.fatal)

    async def _run_once(self) -> None:
        with contextlib.suppress(OSError):
            if BRIDGE_LOG.stat().st_size > BRIDGE_LOG_MAX:
                BRIDGE_LOG.unlink()
        fd = os.open(BRIDGE_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            # The plugin's own folder as working directory: never Hermes's (a project folder may hold a `hub`).
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=fd, cwd=HERE,
                env=bridge_env(), start_new_session=True)
        except (FileNotFoundError, PermissionError) as exc:
            self.fatal = (f"cannot start LineUp's program ({exc.strerror}: {self.argv[0]}); LineUp was moved or "
                          "removed: run `lineup connect hermes` again")
            return
        finally:
            os.close(fd)
        assert process.stdout is not None
        async with self._lock:
            self.process = process
            await self._write_locked({"t": "hello", "v": lineproto.VERSION, "boot": self.adapter.boot,
                                      "hermes": self.adapter.hermes})
            for message in list(self.unacked.values()):
                await self._write_locked(message)
        reader = lineproto.LineReader(process.stdout)
        try:
            while True:
                line = await reader.next()
                if line is None:
                    break
                try:
                    message = lineproto.check(line, "to_plugin")
                except lineproto.BadLine as exc:
                    log.warning("LineUp: a line from the bridge was dropped: %s", exc)
                    continue
                await self._on_line(message)
        finally:
            if reader.dropped:
                log.warning("LineUp: %d over-long lines from the bridge were dropped", reader.dropped)
            try:
                async with asyncio.timeout(10):  # its output ended: it is ending
                    code = await process.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                code = await process.wait()
            self.process = None
        if code == FATAL_EXIT and self.fatal is None:
            self.fatal = "the LineUp bridge stopped for good; its log says why"
        log.info("LineUp: the bridge exited with %s", code)

    async def _on_line(self, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "ack":
            sent = self.unacked.pop(message["id"], None)
            if sent is not None and not message["ok"]:
                log.warning("LineUp: the hub did not take %s %s: %s", sent["t"], message["id"],
                            message.get("error", ""))
        elif kind == "ready":
            log.info("LineUp: connected to the hub as agent %s", message["agent"])
        elif kind == "fatal":
            self.fatal = message["reason"]
            log.error("LineUp: %s", message["reason"])
        else:
            try:
                applied = await self.adapter.from_bridge(message)
            except Exception:
                log.exception("LineUp: Hermes did not take %s %s", kind, message["id"])
                applied = False
            if applied is not None:
                self.tell({"t": "ack", "id": message["id"], "applied": applied})


class LineUpAdapter(BasePlatformAdapter):  # type: ignore[misc]
    """A LineUp conversation is a Hermes DM chat; the person is authenticated by the hub (upstream)."""

    MAX_MESSAGE_LENGTH = MAX_MESSAGE
    supports_code_blocks = True

    def __init__(self, config: PlatformConfig) -> None:
        super().__init__(config=config, platform=Platform("lineup"))
        self.boot = uuid.uuid4().hex[:16]   # this Hermes process: a card of another one is withdrawn by the bridge
        self.hermes = hermes_version()
        self.link: BridgeLink | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._approvals: dict[str, _Approval] = {}
        self._waiting: dict[str, collections.deque[str]] = {}  # session -> approvals Hermes waits for, oldest first
        self._asked = 0                     # approvals asked in this process: the n-th one's id is its own
        self._answered: collections.OrderedDict[str, bool] = collections.OrderedDict()
        self._seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._questions: dict[str, _Question] = {}
        self._watcher: asyncio.Task[None] | None = None
        _ADAPTERS.add(self)

    @property
    def authorization_is_upstream(self) -> bool:
        # Only the hub's signed-in people reach this chat, through the bridge's own credential: there is no
        # LINEUP_ALLOWED_USERS to consult (gateway/authz_mixin.py; docs/security.md "The Hermes bridge").
        return True

    # ---- lifecycle -----------------------------------------------------------------------------------------

    async def connect(self, *, is_reconnect: bool = False) -> bool:
        config = load_config()
        if config is None:
            self._set_fatal_error("lineup_not_configured", f"LineUp: no usable {CONFIG_FILE}; run `lineup connect "
                                  "hermes` again", retryable=False)
            return False
        self.loop = asyncio.get_running_loop()
        if self.link is None:
            self.link = BridgeLink(list(config["command"]), self)
            self.link.start()
        self._mark_connected()
        return True

    async def disconnect(self) -> None:
        self._mark_disconnected()
        if self._watcher is not None:
            self._watcher.cancel()
        if self.link is not None:
            await self.link.stop()
            self.link = None

    async def bridge_failed(self, reason: str) -> None:
        self._set_fatal_error("lineup_bridge", f"LineUp: {reason}", retryable=False)
        await self._notify_fatal_error()

    async def get_chat_info(self, chat_id: str) -> dict[str, Any]:
        return {"name": "LineUp", "type": "dm"}

    # ---- Hermes → the person -------------------------------------------------------------------------------

    async def send(self, chat_id: str, content: str, reply_to: str | None = None,
                   metadata: dict[str, Any] | None = None) -> SendResult:
        refused = self._refused(chat_id)
        if refused is not None:
            return refused
        assert self.link is not None
        text = str(content or "")
        first = ""
        for start in range(0, max(len(text), 1), lineproto.MAX_TEXT):
            line_id = "s" + uuid.uuid4().hex
            first = first or line_id
            piece = text[start:start + lineproto.MAX_TEXT]
            self.link.post({"t": "send", "id": line_id, "chat": chat_id, "text": piece})
        return SendResult(success=True, message_id=first)

    async def send_typing(self, chat_id: str, metadata: Any = None) -> None:
        return None

    async def send_exec_approval(self, chat_id: str, command: str, session_key: str,
                                 description: str = "dangerous command", metadata: dict[str, Any] | None = None,
                                 allow_permanent: bool = True, smart_denied: bool = False) -> SendResult:
        """A card: Allow once / Allow for this session / Allow always (when Hermes offers it) / Deny. Returns at once;
        Hermes waits `approvals.timeout` from now, which the card shows as its deadline."""
        refused = self._refused(chat_id)
        if refused is not None:
            return refused
        command = str(command or "")
        if len(str(session_key)) > 1024:
            return SendResult(success=False, error="not a session LineUp can name")
        timeout = approval_timeout()
        if timeout <= 0:
            return SendResult(success=False, error="Hermes does not wait for approvals (approvals.timeout)")
        if len(json.dumps({"kind": "command", "command": command}, ensure_ascii=False).encode()) > CARD_BUDGET_BYTES:
            # Too long to show whole on a card. Hermes's own text prompt would show its first 200 characters only:
            # the conversation gets all of it, and the person answers as on any text platform.
            return await self.send(chat_id, long_command_text(command, str(description or ""), timeout,
                                                              allow_permanent, smart_denied))
        assert self.link is not None
        self._asked += 1
        approval_id = "a" + _digest(self.boot, session_key, command, self._asked)
        # Taken now, before Hermes starts its own clock: the card never promises more time than Hermes waits.
        deadline = time.time() + timeout
        self._approvals[approval_id] = _Approval(approval_id, session_key, deadline)
        self._waiting.setdefault(session_key, collections.deque()).append(approval_id)
        self.link.post({"t": "approval", "id": approval_id, "chat": chat_id, "session": session_key,
                        "command": command, "description": str(description or "")[:8000],
                        "permanent": bool(allow_permanent), "smart_denied": bool(smart_denied),
                        "timeout": timeout, "deadline": deadline})
        return SendResult(success=True, message_id=approval_id)

    async def send_clarify(self, chat_id: str, question: str, choices: list[Any] | None, clarify_id: str,
                           session_key: str, metadata: dict[str, Any] | None = None) -> SendResult:
        if self._refused(chat_id) is not None or not lineproto.ID.fullmatch(str(clarify_id)) \
                or len(str(session_key)) > 1024:
            return await super().send_clarify(chat_id, question, choices, clarify_id, session_key, metadata)
        assert self.link is not None
        timeout = float(clarify_gateway.get_clarify_timeout())
        options = [str(c)[:2000] for c in (choices or [])][:50] or None
        if options:
            clarify_gateway.mark_awaiting_text(clarify_id)  # a reply typed in the chat answers it too
        question_id = "q" + _digest(self.boot, clarify_id)
        self._questions[question_id] = _Question(question_id, clarify_id, session_key)
        self.link.post({"t": "clarify", "id": question_id, "chat": chat_id, "session": session_key,
                        "question": str(question or "")[:16000], "choices": options,
                        "timeout": max(timeout, 1.0), "deadline": time.time() + max(timeout, 1.0)})
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.get_running_loop().create_task(self._watch_questions())
        return SendResult(success=True, message_id=question_id)

    def _refused(self, chat_id: str) -> SendResult | None:
        if self.link is None or self.link.fatal is not None:
            return SendResult(success=False, error=f"LineUp is not connected ({self.link.fatal if self.link else ''})")
        if not lineproto.ID.fullmatch(str(chat_id)):
            return SendResult(success=False, error="not a LineUp conversation")
        return None

    # ---- the person → Hermes -------------------------------------------------------------------------------

    async def from_bridge(self, message: dict[str, Any]) -> bool | None:
        """Handle the bridge's `message`, `answer` or `reply`; whether Hermes still waited for it (the ack's
        `applied`), or None when the answer is acknowledged later (`_decide`)."""
        kind = message["t"]
        if kind == "message":
            return await self._message(message)
        if kind == "answer":
            self._answer(message["id"], message["choice"], message.get("reason", ""))
            return None
        if kind == "reply":
            return self._reply(message["id"], message["text"])
        return False

    async def _message(self, message: dict[str, Any]) -> bool:
        if message["id"] in self._seen:
            return True  # delivered again (a restarted bridge): Hermes has it already
        self._seen[message["id"]] = None
        while len(self._seen) > 10_000:
            self._seen.popitem(last=False)
        source = self.build_source(chat_id=message["chat"], chat_name="LineUp", chat_type="dm",
                                   user_id=message.get("user") or "lineup", user_name=None)
        event = MessageEvent(text=message["text"], message_type=MessageType.TEXT, source=source,
                             message_id=message["id"], raw_message=None)
        await self.handle_message(event)
        return True

    def _answer(self, approval_id: str, choice: str, reason: str) -> None:
        if approval_id in self._answered:
            self._ack(approval_id, self._answered[approval_id])  # told again: the same as the first time
            return
        approval = self._approvals.get(approval_id)
        if approval is None:
            self._decide(approval_id, False)  # Hermes no longer waits (timed out, restarted, /stop)
            return
        if approval.answer is None:
            approval.answer = (choice, reason)
        self._give_answers(approval.session)

    def _give_answers(self, session: str) -> None:
        """Hermes takes answers oldest first (resolve_gateway_approval resolves a session's oldest request): an
        answer to a newer card waits until Hermes is done with the older ones."""
        waiting = self._waiting.get(session)
        if not waiting:
            return
        head = self._approvals[waiting[0]]
        if head.ours or head.answer is None or head.id in self._answered:
            return
        choice, reason = head.answer
        applied = False
        if time.time() < head.deadline - LATE_S:  # past it, Hermes may be done: the answer could reach the next
            head.ours = True
            applied = hermes_approval.resolve_gateway_approval(session, choice, reason=reason or None) > 0
            head.ours = applied
        # Given: Hermes's own report (post_approval_response) takes it off the queue and the next answer follows.
        self._decide(head.id, applied)

    def _decide(self, approval_id: str, applied: bool) -> None:
        self._answered[approval_id] = applied
        while len(self._answered) > 10_000:
            self._answered.popitem(last=False)
        self._ack(approval_id, applied)

    def _ack(self, line_id: str, applied: bool) -> None:
        if self.link is not None:
            self.link.tell({"t": "ack", "id": line_id, "applied": applied})

    def hermes_stopped_waiting(self, session: str, how: str) -> None:
        """Hermes's post_approval_response for one of the session's requests: its oldest (a timeout, /approve,
        /deny, /stop or an answer of ours), as Hermes's queue is first in, first out."""
        waiting = self._waiting.get(session)
        if not waiting:
            return
        approval = self._approvals.pop(waiting.popleft())
        if not waiting:
            del self._waiting[session]
        if not approval.ours:
            if approval.answer is not None and approval.id not in self._answered:
                self._decide(approval.id, False)  # answered on the card, but Hermes was done with it first
            if getattr(self.gateway_runner, "_draining", False) is True:
                how = "shutdown"  # the gateway stops: it ends every wait with a denial
            if self.link is not None:
                self.link.post({"t": "approval_done", "id": approval.id + ".done", "how": how[:32]})
        self._give_answers(session)

    def _reply(self, question_id: str, text: str) -> bool:
        question = self._questions.get(question_id)
        if question is None:
            return False
        question.ours = True
        applied = bool(clarify_gateway.resolve_gateway_clarify(question.hermes_id, text))
        self._questions.pop(question_id, None)
        return applied

    async def _watch_questions(self) -> None:
        """Hermes reports no end of a question: it is done when its entry is gone (answered in the chat, timed out,
        the session ended); the card is then withdrawn."""
        while self._questions:
            await asyncio.sleep(1.0)
            entries = getattr(clarify_gateway, "_entries", None)
            for question in list(self._questions.values()):
                waiting = question.hermes_id in entries if isinstance(entries, dict) \
                    else clarify_gateway.has_pending(question.session)
                if not waiting and not question.ours and self.link is not None:
                    self._questions.pop(question.id, None)
                    self.link.post({"t": "clarify_done", "id": question.id + ".done"})


def long_command_text(command: str, reason: str, timeout: float, permanent: bool, smart_denied: bool) -> str:
    longest = max((len(run) for run in command.split("\n") for run in _backtick_runs(run)), default=0)
    fence = "`" * max(3, longest + 1)  # a fence no run of backticks in the command can close
    answers = ["`/approve` runs it once"]
    if not smart_denied:
        answers.append("`/approve session` for this session")
        if permanent:
            answers.append("`/approve always` always")
    answers.append("`/deny` refuses it")
    return (f"Hermes asks to run a command of {len(command):,} characters, too long to show whole on a card, so here "
            f"it is whole{f' ({reason})' if reason else ''}:\n\n{fence}\n{command}\n{fence}\n\nAnswer here: "
            f"{', '.join(answers)}. Hermes waits {timeout:g} s, then denies it by itself.")


def _backtick_runs(text: str) -> list[str]:
    runs, current = [], ""
    for char in text:
        if char == "`":
            current += char
        elif current:
            runs.append(current)
            current = ""
    return [*runs, current] if current else runs


def approval_timeout() -> float:
    """`approvals.timeout` as Hermes reads it (tools/approval.py: an int, 60 when unset or unreadable)."""
    try:
        return float(int((hermes_config().get("approvals") or {}).get("timeout", 60)))
    except (ValueError, TypeError, AttributeError):
        return 60.0
    except Exception:  # noqa: BLE001 - Hermes's own reader falls back the same way
        return 60.0


def _post_approval(**event: Any) -> None:
    """Hermes's `post_approval_response` hook, on the agent's thread: handed to each adapter's loop."""
    if event.get("surface") in ("cli", "smart"):
        return
    session, how = str(event.get("session_key") or ""), str(event.get("choice") or "")
    for adapter in list(_ADAPTERS):
        if adapter.loop is not None and not adapter.loop.is_closed():
            adapter.loop.call_soon_threadsafe(adapter.hermes_stopped_waiting, session, how)


def register(ctx: Any) -> None:
    usable = lambda *_: load_config() is not None  # noqa: E731 - the registry's three checks are the same question
    ctx.register_platform(
        name="lineup", label="LineUp", adapter_factory=LineUpAdapter,
        check_fn=usable, validate_config=usable, is_connected=usable, required_env=[],
        install_hint="run `lineup connect hermes` (it pairs the agent and writes lineup.json beside this plugin)",
        max_message_length=MAX_MESSAGE, emoji="🗂️",
        # `/sethome` in a LineUp conversation makes it where cron results go (LINEUP_HOME_CHANNEL in Hermes's .env).
        cron_deliver_env_var="LINEUP_HOME_CHANNEL",
        platform_hint=("You are talking with the person through LineUp, in its app on their phone or browser. "
                       "Markdown is shown formatted (GitHub's flavour: code blocks, tables, lists)."),
    )
    ctx.register_hook("post_approval_response", _post_approval)
