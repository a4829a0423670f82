"""The supervisor: runs every `[[agents]]` entry as an SDK client of this hub, with its runtime's handlers.

Each supervised agent is paired with this hub once (the credential is kept in `<data dir>/agents/`, readable
by the owner only) and connects over loopback like any other agent, so it gets the same protocol, resume
and presence as an agent on another machine.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hub.domain import accounts, housekeeping
from hub.protocol.actors import hub_actor
from hub.runtimes import orphans
from hub.runtimes.base import AgentConfig, RuntimeConfigError, RuntimeSpec, SupervisedAgent, load_agent_configs
from hub.sdk.client import AgentClient
from hub.sdk.credentials import Credential, load_credential, save_credential
from hub.store.queries import accounts as people
from hub.store.queries import agents as agent_rows
from hub.store.queries import presence as presence_rows

if TYPE_CHECKING:
    from hub.ports import HubCore
    from hub.store.events import StoredEvent

log = logging.getLogger("lineup.runtimes")


@dataclass
class Supervised:
    config: AgentConfig
    client: AgentClient
    runtime: SupervisedAgent
    task: asyncio.Task[None]


class SessionPart(Protocol):
    """The session host (hub/sessions/host.py) as the supervisor starts and stops it."""

    async def start(self, hub_url: str) -> None: ...

    async def stop(self) -> None: ...


class NoWorkspaceYet(RuntimeConfigError):
    """The entry's workspace does not exist yet (a new hub before its first-run setup): it starts once it does."""


WAITING_FOR_SETUP = "waiting for the first-run setup: it starts as soon as the workspace exists, no restart needed"


class Supervisor:
    def __init__(self, hub: HubCore, specs: dict[str, RuntimeSpec],
                 sessions: Callable[[Supervisor], SessionPart]) -> None:
        self.hub = hub
        self.specs = specs
        self.running: dict[str, Supervised] = {}
        self.problems: dict[str, str] = {}   # agent name (or "config") -> why it is not running
        # Entries whose workspace did not exist at start: `lineup agents add`, the hub's first start, then the setup in
        # the browser needed a second restart. Started when a workspace is created.
        self.waiting: list[AgentConfig] = []
        self._hub_url = ""
        self._unsubscribe: Callable[[], None] | None = None
        self._retrying: asyncio.Task[None] | None = None
        # Sessions started from the phone (docs/sessions.md): agents paired here, one process per session. The hub
        # hands in how to make the host, as sessions build on runtimes and not the other way round.
        self.sessions = sessions(self)

    @property
    def credentials_dir(self) -> Path:
        return self.hub.settings.data_dir / "agents"

    async def start(self, hub_url: str) -> None:
        try:
            await self._start_agents(hub_url)
        finally:
            await self.sessions.start(hub_url)

    async def _start_agents(self, hub_url: str) -> None:
        try:
            configs = load_agent_configs(self.hub.settings.data_dir / "lineup.toml")
        except RuntimeConfigError as exc:
            self.problems["config"] = str(exc)
            log.error("%s", exc)
            return
        self._hub_url = hub_url
        for config in configs:
            await self._try(config, hub_url)
        if self.waiting and self._unsubscribe is None:
            self._unsubscribe = self.hub.bus.subscribe(self._on_commit, name="supervisor.waiting_for_workspace")

    async def _try(self, config: AgentConfig, hub_url: str) -> None:
        try:
            await self._start_one(config, hub_url)
        except NoWorkspaceYet:
            self.waiting.append(config)
            self.problems[config.name] = WAITING_FOR_SETUP
            log.info("agent %s waits for its workspace (first-run setup)", config.name)
        except Exception as exc:  # noqa: BLE001 - one bad entry must not stop the others
            self.problems[config.name] = f"{type(exc).__name__}: {exc}"
            log.error("agent %s (%s) not started: %s", config.name, config.runtime, exc)

    def _on_commit(self, events: list[StoredEvent]) -> None:
        """A workspace was created (the first-run setup): start the entries that waited for one."""
        if self.waiting and any(e.type == "workspace.created" for e in events) \
                and (self._retrying is None or self._retrying.done()):
            self._retrying = asyncio.create_task(self._start_waiting(), name="lineup-supervisor-waiting")

    async def _start_waiting(self) -> None:
        waiting, self.waiting = self.waiting, []
        for config in waiting:
            await self._try(config, self._hub_url)
        if not self.waiting and self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    async def _start_one(self, config: AgentConfig, hub_url: str) -> None:
        spec = self.specs.get(config.runtime)
        if spec is None:
            raise RuntimeConfigError(f"unknown runtime {config.runtime!r}; available: {sorted(self.specs)}")
        credential = await self._credential(config, hub_url)
        client = AgentClient(credential, state_path=self.credentials_dir / f"{config.slug}.state.json",
                             runtime=config.runtime, agent_version="supervised")
        await self._fail_orphans(credential.agent_id)
        runtime = spec.create(config, client)
        if inspect.isawaitable(runtime):
            runtime = await runtime
        await runtime.start()
        task = asyncio.create_task(client.run(), name=f"lineup-agent-{config.slug}")
        self.running[config.name] = Supervised(config, client, runtime, task)
        self.problems.pop(config.name, None)

    async def _credential(self, config: AgentConfig, hub_url: str) -> Credential:
        path = self.credentials_dir / f"{config.slug}.credential.json"

        async def workspace() -> str:
            workspace_id = await self.hub.read(lambda c: people.workspace_id_named_or_first(c, config.workspace))
            if workspace_id is None:
                raise NoWorkspaceYet("no workspace yet: finish the first-run setup" if config.workspace is None
                                     else f"no workspace named {config.workspace!r} yet")
            return workspace_id

        return await self.credential(path, config.name, config.runtime, hub_url, workspace)

    async def credential(self, path: Path, name: str, runtime: str, hub_url: str,
                         workspace: Callable[[], Awaitable[str]], agent_version: str = "supervised") -> Credential:
        """The agent's stored credential at `path`, or a new agent paired into `workspace()` and kept there (also the
        session host's preset agents, hub/sessions/host.py). A revoked agent stays revoked: RuntimeConfigError."""
        if path.exists():
            stored = load_credential(path)
            agent = await self.hub.read(lambda c: agent_rows.agent_by_id(c, stored.agent_id))
            if agent is not None and agent.revoked_at is not None:
                # A person revoked it: that decision stands across restarts.
                raise RuntimeConfigError(f"this agent was revoked; delete {path} to pair it again")
            if agent is not None:
                return Credential(hub_url, stored.agent_id, stored.workspace_id, stored.credential)
        workspace_id = await workspace()
        # Pair through the same commands a person's pairing code would use, so the log shows it.
        command, code = accounts.create_pairing_code(hub_actor(workspace_id), name, 60)
        await self.hub.execute(command)
        pair, secret = accounts.pair_agent(code, name, runtime, agent_version)
        result = await self.hub.execute(pair)
        credential = Credential(hub_url, result["agentId"], result["workspaceId"], secret)
        save_credential(credential, path)
        return credential

    async def fail_orphans(self, agent_id: str) -> None:
        await self._fail_orphans(agent_id)

    async def _fail_orphans(self, agent_id: str) -> None:
        """Tasks this agent was running when the hub stopped: their process is gone, so they fail clearly
        instead of staying `running` for ever (a supervised runtime cannot pick a process up again). An ACP agent's
        questions still waiting are withdrawn first (its new process never heard them; a task waiting for one runs
        again, then fails), and a message it was streaming where it asked one is finished (hub/runtimes/orphans.py).
        Other runtimes' handlers may ask the same question again after a restart and wait for its answer."""
        agent = await self.hub.read(lambda c: agent_rows.agent_by_id(c, agent_id))
        if agent is not None and agent.runtime == "acp":
            asked_in = await orphans.withdraw_pending(self.hub, agent_id)
            await orphans.finish_streams(self.hub, agent_id, agent.workspace_id, asked_in)
        rows = await self.hub.read(lambda c: presence_rows.running_tasks_of_agent(c, agent_id))
        for row in rows:
            await self.hub.execute(housekeeping.fail_interrupted(row.id, row.workspace_id))

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._retrying is not None:
            self._retrying.cancel()
            await asyncio.gather(self._retrying, return_exceptions=True)
        await self.sessions.stop()
        for supervised in list(self.running.values()):
            try:
                await supervised.runtime.stop()
            except Exception:
                log.exception("stopping agent %s failed", supervised.config.name)
            await supervised.client.close()
        self.running.clear()

    def describe(self) -> list[dict[str, object]]:
        rows: list[dict[str, object]] = []
        for name, supervised in self.running.items():
            rows.append({"name": name, "runtime": supervised.config.runtime,
                         "agentId": supervised.client.credential.agent_id, "connected": supervised.client.connected})
        for name, problem in self.problems.items():
            rows.append({"name": name, "problem": problem})
        return rows
