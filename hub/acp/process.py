"""One ACP agent process: spawned in its own process group, `initialize`d, its stderr kept, stopped in stages."""

from __future__ import annotations

import asyncio
import codecs
import collections
import contextlib
import json
import logging
import os
import signal
from pathlib import Path
from typing import Any

import acp
from acp.schema import ClientCapabilities, Implementation, InitializeResponse, NewSessionResponse

from hub.acp.errors import TurnError
from hub.version import __version__

log = logging.getLogger("lineup.runtimes.acp")

STDIO_LIMIT = 50 * 1024 * 1024          # one JSON-RPC line may carry a whole file or image


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
        self.offers: dict[str, dict[str, Any]] = {}  # what session/new or session/load answered, by session id
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
            async with asyncio.timeout(timeout_s):
                info: InitializeResponse = await self.conn.initialize(
                    protocol_version=acp.PROTOCOL_VERSION, client_capabilities=self.capabilities,
                    client_info=Implementation(name="lineup-agents", title="LineUp Agents", version=__version__))
        except TimeoutError:
            await self.stop()
            raise TurnError("agent_unavailable", f"The agent process ({Path(self.command[0]).name}) did not answer "
                                                 f"`initialize` within {timeout_s:g} s and was stopped."
                                                 + self.stderr_note()) from None
        except (acp.RequestError, ConnectionError, ValueError) as exc:
            await wait_event(self.exited, 1.0)  # for the exit code, when it died
            await self.stop()
            raise TurnError("agent_unavailable", f"`initialize` failed: {exc}. " + self.describe_exit()) from None
        self.info = info
        if info.protocol_version != acp.PROTOCOL_VERSION:
            log.warning("%s speaks ACP version %s; this hub speaks %s", self.command[0],
                        info.protocol_version, acp.PROTOCOL_VERSION)
        return info

    async def new_session(self, cwd: str) -> str:
        answer = await self.request("session/new", {"cwd": cwd, "mcpServers": []})
        session_id = str(NewSessionResponse.model_validate(answer).session_id)
        self.offers[session_id] = offered(answer)
        return session_id

    async def load_session(self, cwd: str, session_id: str) -> None:
        answer = await self.request("session/load", {"cwd": cwd, "sessionId": session_id, "mcpServers": []})
        self.offers[session_id] = offered(answer or {})

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """A JSON-RPC request as the agent answers it, not narrowed to the schema's fields: the session's models
        (`models`, an unstable part of ACP that claude-code-acp sends) would be dropped by the typed call."""
        raw = self.conn._conn  # noqa: SLF001 - the connection under the typed API, which has no untyped call
        return await raw.send_request(method, params)

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
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(2.0, self.kill_grace_s)):
                    await process.wait()
        killpg(process.pid, signal.SIGTERM)  # also helpers left behind by an agent that did exit
        if process.returncode is None:
            try:
                async with asyncio.timeout(self.kill_grace_s):
                    await process.wait()
            except TimeoutError:
                killpg(process.pid, signal.SIGKILL)
                await process.wait()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.exited.set()


OFFERED_KEYS = ("modes", "models", "configOptions")
OFFER_BYTES = 64 * 1024                 # what is kept of a session's modes, models and options


def offered(answer: Any) -> dict[str, Any]:
    """The modes, models and configuration options a session/new or session/load answer offers, as the agent sent
    them (each left out when it is not an object or list, or too large to keep)."""
    if not isinstance(answer, dict):
        return {}
    kept: dict[str, Any] = {}
    for key in OFFERED_KEYS:
        value = answer.get(key)
        if isinstance(value, (dict, list)) and len(json.dumps(value)) <= OFFER_BYTES:
            kept[key] = value
    return kept


async def wait_event(event: asyncio.Event, timeout_s: float) -> None:
    """Wait for `event` at most `timeout_s`; running out of time is not an error here."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            await event.wait()


def killpg(pid: int, sig: signal.Signals) -> None:
    """Signal a process group that may be gone already."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
