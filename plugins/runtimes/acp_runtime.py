"""The `acp` runtime: drives an Agent Client Protocol agent (Gemini CLI, claude-code-acp, codex-acp) over stdio.

```toml
[[agents]]
name = "Gemini"
runtime = "acp"
command = ["gemini", "--experimental-acp"]
cwd = "~/code/my-project"      # the sessions' working directory (default: the hub's data folder)
fs = false                     # offer fs/read_text_file and fs/write_text_file (inside `cwd` only; needs `cwd`)
terminal = false               # offer terminal/* (commands run in `cwd`)
init_timeout_s = 60            # for `initialize`, `session/new` and `session/load`
cancel_grace_s = 10            # after `session/cancel`, how long the turn may take to end before it is left
kill_grace_s = 5               # on stop: SIGTERM to the process group, SIGKILL after this
max_reply_chars = 200000       # a longer reply is cut with a note
```

One agent process serves the agent: started at `start()`, stopped at `stop()`, and started again for the next
task or message when it died (the tasks it was running fail with `agent_exited`). Each LineUp conversation has
one ACP session, made on first use with `session/new` (a task without a conversation gets its own), and its
turns run one at a time:

- a task is accepted when its turn starts and is one `session/prompt` with its text; a person's message in the
  conversation (`message.delivered`) is a prompt too, its reply posted as a message;
- `agent_message_chunk` updates stream into the conversation (`message.delta`, then the whole message); thoughts
  are not shown; plan entries become child tasks (pending → queued, in_progress → running, completed →
  succeeded) and the parent's progress is completed / total; tool calls are reported as progress summaries,
  which land in the task's timeline;
- `session/request_permission` becomes an approval card offering the agent's options (allow once / always,
  reject once / always, with the agent's labels); the chosen option goes back as `selected`, anything else
  (declined without an option, expired, cancelled) as `cancelled`;
- the stop reason ends the task: `end_turn` → succeeded, `cancelled` → cancelled, `refusal`, `max_tokens`,
  `max_turn_requests` → failed with that code; a cancel request sends `session/cancel`.

File-system and terminal requests are refused unless `fs` / `terminal` are set. Which session each
conversation has is kept in `<data dir>/agents/<name>.acp-sessions.json`: after a hub restart an agent that
offers `session/load` continues the conversation, and a message delivered again after a crash is not prompted twice.
"""

from __future__ import annotations

import asyncio
import codecs
import collections
import json
import logging
import os
import signal
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    ClientCapabilities,
    ContentToolCallContent,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    FileEditToolCallContent,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    KillTerminalResponse,
    PermissionOption,
    PlanEntry,
    PromptResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from hub import __version__
from hub.runtimes.base import AgentConfig, RuntimeConfigError
from hub.sdk.client import AgentClient
from hub.sdk.errors import HubError
from hub.sdk.tasks import ChildTask, MessageStream, Outcome, TaskHandle

log = logging.getLogger("lineup.runtimes.acp")

STDIO_LIMIT = 50 * 1024 * 1024          # one JSON-RPC line may carry a whole file or image
DEFAULT_MAX_REPLY_CHARS = 200_000       # a message is at most 256 KiB of text
AUTH_REQUIRED = -32000                  # ACP's "authentication required" error code

PLAN_STATUS = {"pending": "queued", "in_progress": "running", "completed": "succeeded"}
CHILD_ORDER = {"queued": 0, "running": 1, "succeeded": 2}
STOP_FAILURES = {
    "refusal": "The agent refused to continue (ACP stop reason `refusal`).",
    "max_tokens": "The agent reached its token limit before it finished (ACP stop reason `max_tokens`).",
    "max_turn_requests": "The agent reached its limit of model requests for one turn "
                         "(ACP stop reason `max_turn_requests`).",
}
# ACP permission option kinds → how the approval card shows them.
OPTION_STYLE = {"allow_once": "primary", "allow_always": "secondary", "reject_once": "danger",
                "reject_always": "danger"}
OPTION_HINT = {"allow_once": "Allow this time; the agent asks again next time.",
               "allow_always": "Allow, and the agent stops asking for this kind of action.",
               "reject_once": "Refuse this time.",
               "reject_always": "Refuse, and the agent stops asking for this kind of action."}
RISK_BY_KIND = {"read": "low", "search": "low", "think": "low", "fetch": "low", "delete": "high", "execute": "high"}


class TurnError(Exception):
    """A turn that could not run or ended abnormally: `code` and `message` become the task's error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _cancelled() -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _content_text(block: Any) -> str:
    """The text of an ACP content block; other kinds are named, not shown."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind == "resource_link":
        return f"[{block.name}]({block.uri})"
    if kind == "resource":
        return str(getattr(block.resource, "text", "") or f"[{block.resource.uri}]")
    return f"[{kind}]" if kind else ""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return _clip(lines[-1], 500) if lines else ""


# ---- the agent process ---------------------------------------------------------------------------------

class AgentProcess:
    """One running ACP agent: its process (own process group), the JSON-RPC connection, what it answered."""

    def __init__(self, command: list[str], client: Any, *, cwd: Path, env: dict[str, str],
                 capabilities: ClientCapabilities, generation: int = 1, kill_grace_s: float = 5.0) -> None:
        self.command = command
        self.client = client
        self.cwd = cwd
        self.env = env
        self.capabilities = capabilities
        self.generation = generation
        self.kill_grace_s = kill_grace_s
        self.process: asyncio.subprocess.Process | None = None
        self.conn: Any = None
        self.info: InitializeResponse | None = None
        self.exited = asyncio.Event()
        self.stopping = False
        self.broken = False               # the connection failed while the process lives on: replace it
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=40)
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def alive(self) -> bool:
        return self.process is not None and not (self.exited.is_set() or self.stopping or self.broken)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process is not None else None

    def describe_exit(self, then: str = "") -> str:
        """What happened to the process, `then` (what happens next), and the end of what it wrote on stderr."""
        code = self.returncode
        status = "is still running" if code is None else (f"exited with code {code}" if code >= 0
                                                           else f"was killed by signal {-code}")
        return f"The agent process ({Path(self.command[0]).name}) {status}.{then}" + self.stderr_note()

    def stderr_note(self) -> str:
        tail = "\n".join(self.stderr_tail)[-1500:]
        return f"\nIts last output on stderr:\n{tail}" if tail else ""

    async def start(self, timeout_s: float) -> InitializeResponse:
        """Spawn the process and `initialize`; raise TurnError(agent_unavailable) with the reason on failure."""
        if not self.cwd.is_dir():
            raise TurnError("agent_unavailable", f"The working directory {self.cwd} does not exist.")
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=str(self.cwd), env=self.env, limit=STDIO_LIMIT,
                start_new_session=True)  # its own process group: stop() reaches the helpers it starts
        except OSError as exc:
            raise TurnError("agent_unavailable",
                            f"Could not start {self.command[0]!r}: {exc.strerror or exc}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.conn = acp.connect_to_agent(self.client, self.process.stdin, self.process.stdout)
        self._tasks = [asyncio.create_task(self._drain_stderr(), name="acp-stderr"),
                       asyncio.create_task(self._watch(), name="acp-watch")]
        try:
            self.info = await asyncio.wait_for(self.conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION, client_capabilities=self.capabilities,
                client_info=Implementation(name="lineup-agents", title="LineUp Agents", version=__version__)),
                timeout_s)
        except asyncio.TimeoutError:
            await self.stop()
            raise TurnError("agent_unavailable", f"The agent process ({Path(self.command[0]).name}) did not answer "
                                                 f"`initialize` within {timeout_s:g} s and was stopped."
                                                 + self.stderr_note()) from None
        except (acp.RequestError, ConnectionError, ValueError) as exc:
            await _wait(self.exited, 1.0)  # for the exit code, when it died
            await self.stop()
            raise TurnError("agent_unavailable", f"`initialize` failed: {exc}. " + self.describe_exit()) from None
        if self.info.protocol_version != acp.PROTOCOL_VERSION:
            log.warning("%s speaks ACP version %s; this hub speaks %s", self.command[0],
                        self.info.protocol_version, acp.PROTOCOL_VERSION)
        return self.info

    async def new_session(self, cwd: str) -> str:
        response = await self.conn.new_session(cwd=cwd, mcp_servers=[])
        return str(response.session_id)

    async def load_session(self, cwd: str, session_id: str) -> None:
        await self.conn.load_session(cwd=cwd, session_id=session_id, mcp_servers=[])

    @property
    def can_load_sessions(self) -> bool:
        caps = self.info.agent_capabilities if self.info is not None else None
        return bool(caps is not None and caps.load_session)

    def auth_hint(self) -> str:
        methods = self.info.auth_methods if self.info is not None else None
        hints = [f"{m.name}: {m.description}" if getattr(m, "description", None) else m.name for m in methods or []]
        return "; ".join(hints)

    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        partial = ""
        while chunk := await self.process.stderr.read(4096):
            partial += decoder.decode(chunk)
            *lines, partial = partial.split("\n")
            for line in lines:
                if line.strip():
                    self.stderr_tail.append(line[:500])
                    log.debug("%s: %s", self.command[0], line)
        if partial.strip():
            self.stderr_tail.append(partial[:500])

    async def _watch(self) -> None:
        assert self.process is not None
        await self.process.wait()
        self.exited.set()
        if not self.stopping and self.info is not None:  # a failed start is reported by start()
            log.error("ACP agent %s died: %s", self.command[0],
                      self.describe_exit(" It is started again for the next task or message."))
        await self.conn.close()  # pending requests fail with ConnectionError: their turns report it

    async def stop(self) -> None:
        """Close stdin and let the agent exit; then SIGTERM its process group, SIGKILL after kill_grace_s."""
        self.stopping = True
        if self.conn is not None:
            await self.conn.close()
        process = self.process
        if process is None:
            return
        if process.returncode is None and process.stdin is not None:
            process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), min(2.0, self.kill_grace_s))
            except asyncio.TimeoutError:
                pass
        _killpg(process.pid, signal.SIGTERM)  # also helpers left behind by an agent that did exit
        if process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), self.kill_grace_s)
            except asyncio.TimeoutError:
                _killpg(process.pid, signal.SIGKILL)
                await process.wait()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.exited.set()


async def _wait(event: asyncio.Event, timeout_s: float) -> None:
    try:
        await asyncio.wait_for(event.wait(), timeout_s)
    except asyncio.TimeoutError:
        pass


def _killpg(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# ---- what the hub offers the agent (the ACP Client side) ---------------------------------------------

class _Terminal:
    """A command the agent runs through terminal/create: output kept up to its byte limit (oldest cut)."""

    def __init__(self, process: asyncio.subprocess.Process, limit: int | None) -> None:
        self.process = process
        self.limit = limit
        self.output = b""
        self.truncated = False
        self.pump = asyncio.create_task(self._pump())

    async def _pump(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk
            if self.limit is not None and len(self.output) > self.limit:
                cut = len(self.output) - self.limit
                while cut < len(self.output) and (self.output[cut] & 0xC0) == 0x80:
                    cut += 1  # never start inside a UTF-8 character
                self.output = self.output[cut:]
                self.truncated = True

    async def drained(self) -> None:
        """The output is complete shortly after the command exits (unless something it started holds it)."""
        await asyncio.wait({self.pump}, timeout=1.0)

    def exit_status(self) -> TerminalExitStatus | None:
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return TerminalExitStatus(exit_code=None, signal=name)
        return TerminalExitStatus(exit_code=code, signal=None)

    def kill(self) -> None:
        if self.process.returncode is None:
            _killpg(self.process.pid, signal.SIGKILL)

    async def close(self) -> None:
        self.kill()
        await self.process.wait()
        self.pump.cancel()
        await asyncio.gather(self.pump, return_exceptions=True)


class HubClient:
    """The ACP Client the agent talks to: session updates and permission requests go to the session's current
    turn; file and terminal requests are served only when the configuration offers them."""

    def __init__(self, runtime: "AcpRuntime") -> None:
        self.runtime = runtime
        self.terminals: dict[str, _Terminal] = {}

    def _turn(self, session_id: str) -> "Turn | None":
        session = self.runtime.sessions_by_acp_id.get(session_id)
        return session.turn if session is not None else None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        turn = self._turn(session_id)
        if turn is not None:  # updates outside a turn (a replayed history, command lists) are not shown
            await turn.update(update)

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        turn = self._turn(session_id)
        if turn is None:
            return _cancelled()
        return await turn.ask_permission(tool_call, options)

    # -- file system --

    def _path(self, path: str) -> Path:
        if not self.runtime.fs:
            raise acp.RequestError(-32601, "File access is not offered to this agent",
                                   {"hint": "Set `fs = true` for this agent in lineup.toml to offer it."})
        target = Path(path)
        root = self.runtime.session_cwd.resolve()
        if not target.is_absolute() or not target.resolve().is_relative_to(root):
            raise acp.RequestError.invalid_params({"details": f"{path} is not inside the working directory {root}"})
        return target.resolve()

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> ReadTextFileResponse:
        target = self._path(path)
        try:
            text = await asyncio.to_thread(target.read_text, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise acp.RequestError.resource_not_found(path) from None
        except OSError as exc:
            raise acp.RequestError.internal_error({"details": f"{path}: {exc.strerror or exc}"}) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            text = "".join(lines[start:start + limit] if limit is not None else lines[start:])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> WriteTextFileResponse:
        target = self._path(path)

        def write() -> None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        try:
            await asyncio.to_thread(write)
        except OSError as exc:
            raise acp.RequestError.internal_error({"details": f"{path}: {exc.strerror or exc}"}) from None
        return WriteTextFileResponse()

    # -- terminals --

    def _require_terminals(self) -> None:
        if not self.runtime.terminal:
            raise acp.RequestError(-32601, "Terminals are not offered to this agent",
                                   {"hint": "Set `terminal = true` for this agent in lineup.toml to offer them."})

    def _terminal(self, terminal_id: str) -> _Terminal:
        self._require_terminals()
        terminal = self.terminals.get(terminal_id)
        if terminal is None:
            raise acp.RequestError.invalid_params({"details": f"no terminal {terminal_id!r}"})
        return terminal

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **kwargs: Any) -> CreateTerminalResponse:
        self._require_terminals()
        try:
            process = await asyncio.create_subprocess_exec(
                command, *(args or []), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, cwd=cwd or str(self.runtime.session_cwd),
                env={**os.environ, **self.runtime.config.env, **{v.name: v.value for v in env or []}},
                start_new_session=True)
        except OSError as exc:
            raise acp.RequestError.internal_error({"details": f"could not start {command!r}: "
                                                              f"{exc.strerror or exc}"}) from None
        terminal_id = f"term_{uuid.uuid4().hex[:12]}"
        self.terminals[terminal_id] = _Terminal(process, output_byte_limit)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
        terminal = self._terminal(terminal_id)
        status = terminal.exit_status()
        if status is not None:
            await terminal.drained()
        return TerminalOutputResponse(output=terminal.output.decode("utf-8", errors="replace"),
                                      truncated=terminal.truncated, exit_status=status)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> WaitForTerminalExitResponse:
        terminal = self._terminal(terminal_id)
        await terminal.process.wait()
        await terminal.drained()
        status = terminal.exit_status()
        assert status is not None
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse:
        self._terminal(terminal_id).kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> ReleaseTerminalResponse:
        await self._terminal(terminal_id).close()
        self.terminals.pop(terminal_id, None)
        return ReleaseTerminalResponse()

    async def close_terminals(self) -> None:
        terminals, self.terminals = list(self.terminals.values()), {}
        await asyncio.gather(*(t.close() for t in terminals), return_exceptions=True)


# ---- sessions and turns --------------------------------------------------------------------------------

@dataclass
class Session:
    """The ACP session of one conversation (or of one task without a conversation)."""

    key: str
    acp_id: str | None = None
    generation: int = 0                    # the agent process the session lives in
    turn: "Turn | None" = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Turn:
    """One prompt and everything the agent sends during it, reported to the hub in the order it arrived."""

    def __init__(self, runtime: "AcpRuntime", task: TaskHandle | None, conversation_id: str | None,
                 reply_task_id: str | None = None) -> None:
        self.runtime = runtime
        self.task = task
        self.conversation_id = conversation_id
        self.reply_task_id = task.id if task is not None else reply_task_id
        self.lock = asyncio.Lock()        # FIFO: notifications are handled concurrently by the ACP library
        self.cancelling = asyncio.Event()  # session/cancel sent: pending permission requests answer cancelled
        self.stream: MessageStream | None = None
        self.message_key: str | None = None
        self.text = ""                    # the reply so far (the tail, when nothing is streamed)
        self.shown = 0                    # characters streamed, against max_reply_chars
        self.cut = False
        self.children: dict[str, ChildTask] = {}
        self.tools: dict[str, str] = {}   # tool call id → title

    async def update(self, update: Any) -> None:
        async with self.lock:
            try:
                await self._update(update)
            except HubError as exc:  # one refused report must not end the turn
                log.warning("reporting an ACP %s update failed: %s", type(update).__name__, exc)

    async def _update(self, update: Any) -> None:
        if isinstance(update, AgentMessageChunk):
            if update.message_id and self.message_key and update.message_id != self.message_key:
                await self._close_stream()  # a new message starts
            self.message_key = update.message_id or self.message_key
            await self._write(_content_text(update.content))
        elif isinstance(update, AgentPlanUpdate):
            await self._plan(update.entries)
        elif isinstance(update, ToolCallStart):
            self.tools[update.tool_call_id] = update.title
            await self._progress(f"Tool: {update.title}")
        elif isinstance(update, ToolCallProgress):
            title = self.tools[update.tool_call_id] = update.title or self.tools.get(update.tool_call_id, "tool call")
            if update.status == "completed":
                await self._progress(f"Done: {title}")
            elif update.status == "failed":
                await self._progress(f"Failed: {title}")
        # thoughts, replayed user chunks, commands, modes, usage: not shown

    async def _write(self, text: str) -> None:
        if not text:
            return
        limit = self.runtime.max_reply_chars
        if self.conversation_id is None:
            self.text = (self.text + text)[-4000:]
            return
        self.text = (self.text + text)[-limit:]
        if self.cut:
            return
        if self.stream is None:
            self.stream = MessageStream(self.runtime.client, self.conversation_id, self.reply_task_id)
        room = limit - self.shown
        self.shown += len(text)
        await self.stream.write(text[:room])
        if len(text) > room:
            self.cut = True
            await self.stream.write(f"\n\n[reply cut after {limit} characters]")

    async def _close_stream(self) -> None:
        stream, self.stream, self.message_key = self.stream, None, None
        if stream is not None:
            await stream.__aexit__(None, None, None)

    async def _progress(self, summary: str | None = None, percent: int | None = None) -> None:
        if self.task is not None:
            await self.task.progress(percent, _clip(summary, 2000) if summary else None)

    async def _plan(self, entries: list[PlanEntry]) -> None:
        if self.task is None or not entries:
            return
        for entry in entries:
            status = PLAN_STATUS.get(entry.status, "queued")
            child = self.children.get(entry.content)
            if child is None:
                title = _clip(entry.content.strip() or "Plan step", 500)
                self.children[entry.content] = await self.task.child(title, status=status)
            else:
                await _advance(child, status)
        done = sum(1 for e in entries if e.status == "completed")
        current = next((e.content for e in entries if e.status == "in_progress"), None)
        summary = f"Plan: {done} of {len(entries)} done" + (f"; now: {_clip(current, 300)}" if current else "")
        await self._progress(summary, done * 100 // len(entries))

    async def ask_permission(self, tool_call: ToolCallUpdate,
                             options: list[PermissionOption]) -> RequestPermissionResponse:
        if self.cancelling.is_set():
            return _cancelled()
        title = tool_call.title or self.tools.get(tool_call.tool_call_id) or "a tool call"
        choices: dict[str, str] = {}  # card option id → ACP option id
        card_options = []
        for option in options[:20]:
            option_id = option.kind if option.kind not in choices else f"{option.kind}_{len(choices) + 1}"
            choices[option_id] = option.option_id
            card_options.append({"id": option_id, "label": _clip(option.name.strip() or option.kind, 200),
                                 "style": OPTION_STYLE.get(option.kind, "secondary"),
                                 "description": OPTION_HINT.get(option.kind, "")})
        if len(card_options) < 2:  # a card needs two options: the other one is "not now"
            card_options.append({"id": "cancel", "label": "Cancel", "style": "danger",
                                 "description": "Answer nothing; the agent is told the request was cancelled."})
        interaction = {"type": "approval", "title": _clip(f"Allow {title}?", 500),
                       "description": _describe_tool_call(tool_call), "options": card_options,
                       "risk": RISK_BY_KIND.get(tool_call.kind or "", "medium"),
                       "details": _tool_details(tool_call)}
        if self.task is not None:
            asking = asyncio.ensure_future(self.task.ask(interaction))
        else:
            asking = asyncio.ensure_future(self.runtime.client.ask(interaction, conversation_id=self.conversation_id))
        stop = asyncio.ensure_future(self.cancelling.wait())
        try:
            await asyncio.wait({asking, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not asking.done():
                return _cancelled()
            outcome: Outcome = asking.result()
        except HubError as exc:  # e.g. the task ended meanwhile
            log.info("the permission request could not be asked: %s", exc)
            return _cancelled()
        finally:
            for future in (asking, stop):
                if not future.done():
                    future.cancel()
        chosen = choices.get(outcome.option_id or "")
        if chosen is None:  # declined without an option, expired, cancelled, or "cancel"
            return _cancelled()
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    async def close(self, succeeded: bool) -> None:
        """Store the streamed reply and settle the plan's children (unfinished ones are cancelled)."""
        async with self.lock:
            try:
                await self._close_stream()
                for child in self.children.values():
                    if child.status != "succeeded":
                        await child.set_status("cancelled", "Not finished when the task ended"
                                               if succeeded else "The task ended before this step")
            except HubError as exc:
                log.warning("closing the turn failed: %s", exc)


async def _advance(child: ChildTask, status: str) -> None:
    """Move a plan child forward only (queued → running → succeeded); the hub allows no shortcut."""
    if CHILD_ORDER.get(status, 0) <= CHILD_ORDER.get(child.status, 0):
        return
    if child.status == "queued" and status == "succeeded":
        await child.set_status("running")
    await child.set_status(status)


def _describe_tool_call(tool_call: ToolCallUpdate) -> str:
    parts: list[str] = []
    for item in tool_call.content or []:
        if isinstance(item, ContentToolCallContent):
            parts.append(_content_text(item.content))
        elif isinstance(item, FileEditToolCallContent):
            parts.append(f"Edit {item.path}:\n{_clip(item.new_text, 2000)}")
    for location in tool_call.locations or []:
        parts.append(f"File: {location.path}" + (f":{location.line}" if location.line is not None else ""))
    return _clip("\n\n".join(p for p in parts if p), 8000)


def _tool_details(tool_call: ToolCallUpdate) -> dict[str, Any]:
    details: dict[str, Any] = {"toolCallId": tool_call.tool_call_id}
    if tool_call.kind:
        details["kind"] = tool_call.kind
    if tool_call.raw_input is not None:
        try:
            raw = json.dumps(tool_call.raw_input)
        except (TypeError, ValueError):
            details["input"] = _clip(repr(tool_call.raw_input), 4000)
        else:
            details["input"] = tool_call.raw_input if len(raw) <= 4000 else _clip(raw, 4000)
    return details


# ---- the runtime ---------------------------------------------------------------------------------------

class AcpRuntime:
    def __init__(self, config: AgentConfig, client: AgentClient) -> None:
        if not config.command:
            raise ValueError(f"agent {config.name!r}: the acp runtime needs `command`")
        self.config = config
        self.client = client
        options = config.options
        for key in ("fs", "terminal"):
            if not isinstance(options.get(key, False), bool):
                raise RuntimeConfigError(f"agent {config.name!r}: `{key}` must be true or false")
        self.fs: bool = options.get("fs", False)
        self.terminal: bool = options.get("terminal", False)
        if self.fs and config.cwd is None:
            raise RuntimeConfigError(f"agent {config.name!r}: `fs = true` needs `cwd`, the folder the agent may "
                                     "read and write")
        self.init_timeout_s = float(options.get("init_timeout_s", 60.0))
        self.cancel_grace_s = float(options.get("cancel_grace_s", 10.0))
        self.kill_grace_s = float(options.get("kill_grace_s", 5.0))
        self.max_reply_chars = int(options.get("max_reply_chars", DEFAULT_MAX_REPLY_CHARS))
        self.hub_client = HubClient(self)
        self.agent: AgentProcess | None = None
        self.generations = 0
        self.sessions: dict[str, Session] = {}
        self.sessions_by_acp_id: dict[str, Session] = {}
        self.waiting: dict[str, TaskHandle] = {}  # tasks queued behind another turn of their session
        self.stopping = False
        self._agent_lock = asyncio.Lock()
        # Kept next to the agent's credential: which ACP session each conversation has (after a hub restart an
        # agent that can `session/load` continues the conversation where it was), and the last messages
        # prompted (after a crash the SDK delivers what came after its saved cursor again: not asked twice).
        self.prompted: collections.deque[str] = collections.deque(maxlen=200)
        self.sessions_path = (client.state_path.parent / f"{config.slug}.acp-sessions.json"
                              if client.state_path is not None else None)
        self._load_sessions()
        client.on_task(self.run_task)
        client.on("message.delivered")(self.on_message)

    def _load_sessions(self) -> None:
        if self.sessions_path is None or not self.sessions_path.exists():
            return
        try:
            stored = json.loads(self.sessions_path.read_text())
        except (OSError, ValueError):
            log.warning("ignoring an unreadable %s", self.sessions_path)
            return
        if not isinstance(stored, dict):
            return
        for key, acp_id in (stored.get("sessions") or {}).items():
            if isinstance(acp_id, str):
                self.sessions[key] = Session(key, acp_id)  # generation 0: loaded (or replaced) on first use
        self.prompted.extend(m for m in stored.get("prompted") or [] if isinstance(m, str))

    def _save_sessions(self) -> None:
        if self.sessions_path is None:
            return
        sessions = {key: s.acp_id for key, s in self.sessions.items() if s.acp_id and not key.startswith("task:")}
        stored = {"sessions": sessions, "prompted": list(self.prompted)}
        tmp = self.sessions_path.with_name(self.sessions_path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(stored))
            os.replace(tmp, self.sessions_path)
        except OSError as exc:
            log.warning("could not save %s: %s", self.sessions_path, exc)

    @property
    def session_cwd(self) -> Path:
        """`cwd`, else the hub's data folder (the supervisor keeps the client's state in <data dir>/agents/)."""
        if self.config.cwd is not None:
            return self.config.cwd.expanduser().resolve()
        if self.client.state_path is not None:
            return self.client.state_path.parent.parent.resolve()
        return Path.cwd()

    @property
    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs),
                                  terminal=self.terminal)

    async def start(self) -> None:
        """Start the agent now, so a broken command shows in the log at once; tasks retry it if it fails."""
        try:
            agent = await self.ensure_agent()
        except TurnError as exc:
            log.error("ACP agent %s did not start: %s", self.config.name, exc.message)
            return
        info = agent.info.agent_info if agent.info is not None else None
        if info is not None:  # the app shows what runs behind the name, e.g. "Claude Code 0.16.2"
            self.client.agent_version = f"{info.title or info.name} {info.version}"

    async def stop(self) -> None:
        self.stopping = True
        for session in list(self.sessions.values()):
            turn = session.turn
            if turn is not None and turn.task is not None:
                try:  # the session ends with the process: say so instead of leaving the task running
                    await asyncio.wait_for(turn.task.fail("runtime_stopped", "The hub stopped while the agent "
                                                          "was working; the ACP session ended with it."), 2.0)
                except (HubError, asyncio.TimeoutError) as exc:
                    log.info("could not report task %s as stopped: %s", turn.task.id, exc)
        for task in list(self.waiting.values()):  # not started: nothing would start them after a restart
            try:
                await asyncio.wait_for(task.cancelled("The hub stopped before the agent could start this task; "
                                                      "create it again."), 2.0)
            except (HubError, asyncio.TimeoutError) as exc:
                log.info("could not report task %s as not started: %s", task.id, exc)
        if self.agent is not None:
            await self.agent.stop()
        await self.hub_client.close_terminals()

    async def ensure_agent(self) -> AgentProcess:
        """The running agent process, started (again) when there is none or it died."""
        async with self._agent_lock:
            if self.agent is not None and self.agent.alive:
                return self.agent
            if self.stopping:
                raise TurnError("runtime_stopped", "The hub is stopping.")
            if self.agent is not None:
                await self.agent.stop()  # reap what is left of the dead one
            self.generations += 1
            # Known before it is up, so that stop() during a slow start stops it too (a failed start stops itself).
            agent = self.agent = AgentProcess(
                self.config.command, self.hub_client, cwd=self.session_cwd, env={**os.environ, **self.config.env},
                capabilities=self.capabilities, generation=self.generations, kill_grace_s=self.kill_grace_s)
            await agent.start(self.init_timeout_s)
            return agent

    async def open_session(self, key: str) -> str:
        """The ACP session id of a conversation (or `task:<id>`), starting the agent and the session if needed."""
        return await self._open(await self.ensure_agent(), self._session(key))

    def _session(self, key: str) -> Session:
        session = self.sessions.get(key)
        if session is None:
            session = self.sessions[key] = Session(key)
        return session

    async def _open(self, agent: AgentProcess, session: Session) -> str:
        """The session's ACP id in this agent process: made with session/new, or loaded after a restart."""
        if session.acp_id is not None and session.generation == agent.generation:
            return session.acp_id
        cwd = str(self.session_cwd)
        self.sessions_by_acp_id.pop(session.acp_id or "", None)
        try:
            acp_id = None
            if session.acp_id is not None and agent.can_load_sessions:
                try:  # the agent keeps its sessions: the conversation continues where it was
                    self.sessions_by_acp_id[session.acp_id] = session  # its replayed history is not shown
                    await asyncio.wait_for(agent.load_session(cwd, session.acp_id), self.init_timeout_s)
                    acp_id = session.acp_id
                except acp.RequestError as exc:
                    self.sessions_by_acp_id.pop(session.acp_id, None)
                    log.info("session/load of %s failed (%s); starting a new session", session.acp_id, exc)
            if acp_id is None:
                acp_id = await asyncio.wait_for(agent.new_session(cwd), self.init_timeout_s)
        except acp.RequestError as exc:
            if exc.code == AUTH_REQUIRED:
                hint = agent.auth_hint()
                raise TurnError("auth_required", "The agent needs you to sign in before it can work"
                                + (f" ({hint})." if hint else ".")) from None
            raise TurnError("session_failed", f"The agent refused session/new: {exc} {exc.data or ''}".strip()) \
                from None
        except asyncio.TimeoutError:
            raise TurnError("session_failed", f"The agent did not open a session within "
                                              f"{self.init_timeout_s:g} s.") from None
        except ConnectionError:
            agent.broken = True
            raise TurnError("agent_exited", agent.describe_exit(
                " It is started again for the next task or message.")) from None
        session.acp_id, session.generation = acp_id, agent.generation
        self.sessions_by_acp_id[acp_id] = session
        if not session.key.startswith("task:"):
            self._save_sessions()
        return acp_id

    async def _prompt(self, session: Session, turn: Turn, text: str) -> str:
        """Run one prompt in the session; returns the stop reason. A cancel request sends session/cancel."""
        agent = await self.ensure_agent()
        acp_id = await self._open(agent, session)
        if turn.task is not None and turn.task.cancel_requested.is_set():
            return "cancelled"  # asked to stop before the prompt was sent
        session.turn = turn
        prompt = asyncio.ensure_future(agent.conn.prompt(session_id=acp_id, prompt=[acp.text_block(text)]))
        cancel = asyncio.ensure_future(turn.task.cancel_requested.wait()) if turn.task is not None else None
        try:
            await asyncio.wait({f for f in (prompt, cancel) if f is not None}, return_when=asyncio.FIRST_COMPLETED)
            if not prompt.done():  # the person asked to stop
                turn.cancelling.set()
                try:
                    await agent.conn.cancel(session_id=acp_id)
                except ConnectionError:
                    pass
                await asyncio.wait({prompt}, timeout=self.cancel_grace_s)
                if not prompt.done():  # the agent ignores the cancel: leave that session behind
                    log.warning("the agent did not end its turn within %s s of session/cancel", self.cancel_grace_s)
                    self.sessions_by_acp_id.pop(acp_id, None)  # its late updates go nowhere
                    session.acp_id = None
                    return "cancelled"
            response: PromptResponse = prompt.result()
            return str(response.stop_reason)
        except ConnectionError:
            agent.broken = True
            await _wait(agent.exited, 2.0)  # for the exit code
            raise TurnError("agent_exited", agent.describe_exit(
                " It is started again for the next task or message.")) from None
        except acp.RequestError as exc:
            raise TurnError("acp_error", f"The agent answered session/prompt with an error: {exc} "
                                         f"{exc.data or ''}".strip()) from None
        finally:
            for future in (prompt, cancel):
                if future is not None and not future.done():
                    future.cancel()
            session.turn = None

    # ---- tasks and messages ----------------------------------------------------------------------------

    async def run_task(self, task: TaskHandle) -> None:
        if task.cancel_requested.is_set():
            return  # cancelled while queued: the hub has ended it already
        key = task.conversation_id or f"task:{task.id}"
        session = self._session(key)
        self.waiting[task.id] = task
        try:
            async with session.lock:  # one turn at a time per session; the task stays queued meanwhile
                self.waiting.pop(task.id, None)
                if task.cancel_requested.is_set() or self.stopping:
                    return
                try:
                    await task.accept()
                except HubError as exc:
                    log.info("task %s not accepted: %s", task.id, exc)
                    return
                await self._run_turn(session, task)
        finally:
            self.waiting.pop(task.id, None)
            if task.conversation_id is None:
                self.sessions.pop(key, None)
                self.sessions_by_acp_id.pop(session.acp_id or "", None)

    async def _run_turn(self, session: Session, task: TaskHandle) -> None:
        turn = Turn(self, task, task.conversation_id)
        text = task.title if not task.description else f"{task.title}\n\n{task.description}"
        try:
            stop_reason = await self._prompt(session, turn, text)
        except TurnError as exc:
            await turn.close(succeeded=False)
            if self.stopping:
                return  # reported by stop()
            if task.cancel_requested.is_set():
                await _report(task.cancelled("Stopped on request"))
            else:
                await _report(task.fail(exc.code, _clip(exc.message, 4000)))
            return
        except Exception as exc:
            log.exception("the ACP turn of task %s failed", task.id)
            await turn.close(succeeded=False)
            await _report(task.fail("runtime_error", _clip(f"{type(exc).__name__}: {exc}", 4000)))
            return
        await turn.close(succeeded=stop_reason == "end_turn")
        if stop_reason == "end_turn":
            await _report(task.succeed(_last_line(turn.text) or "Finished"))
        elif stop_reason == "cancelled":
            await _report(task.cancelled("Stopped on request"))
        else:
            await _report(task.fail(stop_reason, STOP_FAILURES.get(stop_reason, f"The agent stopped: {stop_reason}.")))

    async def on_message(self, envelope: dict[str, Any]) -> None:
        """A person's message in a conversation: a prompt in that conversation's session, the reply streamed."""
        payload = envelope.get("payload") or {}
        conversation_id = envelope.get("conversationId")
        if not conversation_id or (payload.get("author") or {}).get("kind") != "user":
            return
        text = payload.get("content") or ""
        if not text.strip():
            return
        message_id = payload.get("messageId")
        task_id = envelope.get("taskId")
        reply_task_id = task_id if task_id in self.client.tasks else None  # only a timeline of our own task
        session = self._session(conversation_id)
        async with session.lock:
            if message_id in self.prompted:
                return  # delivered again after a crash: it was prompted (and most likely answered) before
            if isinstance(message_id, str):
                self.prompted.append(message_id)
                self._save_sessions()
            turn = Turn(self, None, conversation_id, reply_task_id)
            try:
                stop_reason = await self._prompt(session, turn, text)
            except TurnError as exc:
                await turn.close(succeeded=False)
                if not self.stopping:
                    await self._say(conversation_id, reply_task_id, f"I could not answer ({exc.code}): {exc.message}")
                return
            await turn.close(succeeded=True)
            if stop_reason not in ("end_turn", "cancelled"):
                await self._say(conversation_id, reply_task_id,
                                STOP_FAILURES.get(stop_reason, f"The agent stopped: {stop_reason}."))

    async def _say(self, conversation_id: str, task_id: str | None, text: str) -> None:
        try:
            await self.client.send("message.create", {"content": _clip(text, 8000),
                                                      "messageId": f"msg_{uuid.uuid4().hex}"},
                                   conversationId=conversation_id, taskId=task_id)
        except HubError as exc:
            log.warning("could not post in %s: %s", conversation_id, exc)


async def _report(finishing: Any) -> None:
    """Finish a task; the hub may have ended it already (a cancel while waiting for the person)."""
    try:
        await finishing
    except HubError as exc:
        log.info("the task's end was not recorded: %s", exc)
