"""AcpRuntime: one configured ACP agent — its options, its one agent process, the hub's hooks, start and stop."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from acp.schema import ClientCapabilities, FileSystemCapabilities

from hub.acp.client import HubClient
from hub.acp.config import read_options
from hub.acp.errors import TurnError
from hub.acp.observer import SessionObserver
from hub.acp.process import AgentProcess
from hub.acp.scheduler import TurnScheduler
from hub.acp.sessions import Session, SessionMap
from hub.runtimes.base import AgentConfig
from hub.sdk import AgentClient

log = logging.getLogger("lineup.runtimes.acp")


class AcpRuntime:
    """The `acp` runtime of one configured agent; its options are documented in the package docstring."""

    def __init__(self, config: AgentConfig, client: AgentClient, *, handlers: bool = True,
                 sessions_path: Path | None = None, observer: SessionObserver | None = None) -> None:
        """`handlers=False`: the runtime registers nothing on the client; its driver (the session host, which runs
        one runtime per session on one agent's client) hands it the tasks and messages that are its own
        (`scheduler.run_task`, `scheduler.on_message`). Then `sessions_path` says where its session map is kept
        and `observer` hears of its turns; a session that existed continues (session/load) or fails, never starts
        afresh in its place."""
        self.options = read_options(config)
        self.config = config
        self.client = client
        self.hub_client = HubClient(self)
        self.agent: AgentProcess | None = None
        self.generations = 0
        self.stopping = False
        self.observer = observer
        self._agent_lock = asyncio.Lock()
        if sessions_path is None and client.state_path is not None:
            sessions_path = client.state_path.parent / f"{config.slug}.acp-sessions.json"
        self.sessions = SessionMap(sessions_path, observer, continue_or_fail=not handlers)
        self.sessions.load()
        self.scheduler = TurnScheduler(self)
        if handlers:
            client.on_task(self.scheduler.run_task)
            client.on("message.delivered")(self.scheduler.on_message)

    @property
    def sessions_by_acp_id(self) -> dict[str, Session]:
        """The sessions by their ACP id (the tests look a session up by what the agent calls it)."""
        return self.sessions.by_acp_id

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
        fs = self.options.fs
        return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
                                  terminal=self.options.terminal)

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
        await self.scheduler.report_stopped()
        if self.agent is not None:
            await self.agent.stop()
        await self.hub_client.close_terminals()

    def stop_turn(self, key: str) -> bool:
        """Stop the turn running in session `key` (ACP `session/cancel`); False when none runs. A task's turn is
        stopped by cancelling its task instead (the SDK hears `task.cancel_requested`)."""
        session = self.sessions.by_key.get(key)
        turn = session.turn if session is not None else None
        if turn is None:
            return False
        turn.stop.set()
        return True

    @property
    def busy(self) -> bool:
        """A turn is running or waiting for its session."""
        return any(s.turn is not None or s.lock.locked() for s in self.sessions.by_key.values())

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
                capabilities=self.capabilities, generation=self.generations, kill_grace_s=self.options.kill_grace_s)
            try:
                await agent.start(self.options.init_timeout_s)
            except TurnError as exc:
                raise self._with_hint(exc) from None
            return agent

    def _with_hint(self, exc: TurnError) -> TurnError:
        """The entry's `unavailable_hint` (what this agent needs to start: OpenClaw's Gateway) after the error."""
        hint = self.options.unavailable_hint
        if hint and exc.code in ("agent_unavailable", "agent_exited", "session_failed"):
            return TurnError(exc.code, f"{exc.message}\n{hint}")
        return exc

    async def open_session(self, key: str) -> str:
        """The ACP session id of a conversation (or `task:<id>`), starting the agent and the session if needed."""
        agent = await self.ensure_agent()
        try:
            return await self.sessions.open(agent, self.sessions.get(key), str(self.session_cwd),
                                            self.options.init_timeout_s)
        except TurnError as exc:
            raise self._with_hint(exc) from None
