"""The ACP Client the agent talks to: updates and permission requests routed to the turn, fs and terminal gated."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import acp
from acp.schema import (
    CreateTerminalResponse,
    CurrentModeUpdate,
    EnvVariable,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    ToolCallUpdate,
    UsageUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from hub.acp.permission import cancelled
from hub.acp.terminal import Terminal

if TYPE_CHECKING:
    from hub.acp.config import AcpOptions
    from hub.acp.observer import SessionObserver
    from hub.acp.sessions import SessionMap
    from hub.acp.turn import Turn
    from hub.runtimes.base import AgentConfig


class ClientRuntime(Protocol):
    """What the ACP client uses of its AcpRuntime (runtime.py), which it is made by: named here, so this module
    does not import the runtime back."""

    @property
    def config(self) -> AgentConfig: ...

    @property
    def options(self) -> AcpOptions: ...

    @property
    def sessions(self) -> SessionMap: ...

    @property
    def session_cwd(self) -> Path: ...

    @property
    def observer(self) -> SessionObserver | None: ...


class HubClient:
    """The ACP Client the agent talks to: session updates and permission requests go to the session's current
    turn; file and terminal requests are served only when the configuration offers them."""

    def __init__(self, runtime: ClientRuntime) -> None:
        self.runtime = runtime
        self.terminals: dict[str, Terminal] = {}

    def _turn(self, session_id: str) -> Turn | None:
        session = self.runtime.sessions.by_acp_id.get(session_id)
        return session.turn if session is not None else None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        session = self.runtime.sessions.by_acp_id.get(session_id)
        if session is None:
            return
        observer = self.runtime.observer
        if observer is not None and session.replay is None:
            if isinstance(update, UsageUpdate):  # tokens in context, the window, the cost so far (as reported)
                report: dict[str, Any] = {"contextUsed": update.used, "contextSize": update.size}
                if update.cost is not None:
                    report["cost"] = {"amount": update.cost.amount, "currency": update.cost.currency}
                observer.usage(session.key, report)
                return
            if isinstance(update, CurrentModeUpdate):
                observer.mode_changed(session.key, update.current_mode_id)
                return
        if session.turn is not None:
            await session.turn.update(update)
        elif session.replay is not None:  # the history of a session/load: watched to its end, not shown
            session.replay.feed(update)
        # other updates outside a turn (command lists, modes) are not shown

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        turn = self._turn(session_id)
        if turn is None:
            return cancelled()
        return await turn.ask_permission(tool_call, options)

    # -- file system --

    def _path(self, path: str) -> Path:
        if not self.runtime.options.fs:
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
        if not self.runtime.options.terminal:
            raise acp.RequestError(-32601, "Terminals are not offered to this agent",
                                   {"hint": "Set `terminal = true` for this agent in lineup.toml to offer them."})

    def _terminal(self, terminal_id: str) -> Terminal:
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
        self.terminals[terminal_id] = Terminal(process, output_byte_limit)
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
