"""The Hub object: owns the database connections, the writer, the broker, presence and streams."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path
from typing import Any, Callable, TypeVar

import aiosqlite

from hub import __version__
from hub.auth.limits import GuessLimiter
from hub.auth.secrets import new_setup_code
from hub.discovery.advertise import Advertiser, txt_record
from hub.notify.service import Notifier
from hub.pluginhost.manager import PluginHost, make_plugin_manager
from hub.relay import Uplink
from hub.runtimes.base import RuntimeSpec
from hub.runtimes.supervisor import Supervisor
from hub.tools.registry import ToolRegistry
from hub.tools.router import ToolRouter
from hub.settings import Settings
from hub.store import database
from hub.store.anchor import Anchorer
from hub.store.events import StoredEvent
from hub.store.migrations import migrate, read_meta
from hub.store.writer import Command, Writer

log = logging.getLogger("lineup.hub")
T = TypeVar("T")


def inbound_handlers(registry: ToolRegistry) -> dict[str, dict[str, Any]]:
    """The handler of every event type an app or an agent may send, by sender kind."""
    from functools import partial

    from hub.domain import tools
    from hub.domain.collaboration import AGENT_HANDLERS, APP_HANDLERS

    tool_handlers = {"tool.list": partial(tools.tool_list, registry), "tool.call": partial(tools.tool_call, registry),
                     "tool.result": partial(tools.tool_result, registry)}
    return {"agent": {**AGENT_HANDLERS, **tool_handlers}, "app": {**APP_HANDLERS, **tool_handlers}}


class Hub:
    """One per process (tests make several). Start with `await hub.start()`, stop with `await hub.stop()`."""

    def __init__(self, settings: Settings) -> None:
        from hub.gateway.broker import Broker
        from hub.gateway.presence import Presence
        from hub.gateway.recent import RecentEvents
        from hub.gateway.streams import Streams

        self.settings = settings
        self.version = __version__
        self.broker = Broker()
        self.recent = RecentEvents(max_events=settings.replay_window_events)  # shared by receivers resuming at once
        self.presence = Presence(self)
        self.streams = Streams(self)
        self.epoch = ""
        self.hub_id = ""
        self.setup_code: str | None = None
        self.sign_in_limiter = GuessLimiter(attempts=10, window_s=300)
        self.pairing_limiter = GuessLimiter(attempts=20, window_s=60)
        self.commit_listeners: list[Callable[[list[StoredEvent]], None]] = []
        self._write_conn: aiosqlite.Connection | None = None
        self._replay_conn: aiosqlite.Connection | None = None
        self._api_conn: aiosqlite.Connection | None = None
        self.writer: Writer
        self.plugins: PluginHost
        self.runtime_specs: dict[str, RuntimeSpec] = {}
        self.supervisor: Supervisor
        self.tools: ToolRegistry
        self.tool_router: ToolRouter
        self.handlers: dict[str, dict[str, Any]] = {}
        self.notifier: Notifier
        self.relay = Uplink(self)  # the WuKongIM uplink (issue 8, docs/relay.md); idle unless [relay] is set
        self.started = False
        self.loop_lag_ms = 0.0
        self._lag_task: asyncio.Task[None] | None = None
        self.anchorer: Anchorer | None = None
        self._data_version: int | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.url: str | None = None
        self.public_url: str | None = None  # how a phone reaches the hub (links in notifications)
        self.tls_fingerprint: str | None = None  # SHA-256 of the certificate, for clients to pin
        self.advertiser: Advertiser | None = None
        self.advertised_name: str | None = None
        self._name: str | None = None

    @property
    def db_path(self) -> Path:
        return self.settings.db_path

    async def start(self) -> None:
        # The owner's alone: the database holds password hashes, conversations and decisions.
        self.settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        conn_options = {"synchronous": self.settings.synchronous}
        self._write_conn = await database.connect(self.db_path, max_pages=self.settings.db_max_pages, **conn_options)
        await database.run(self._write_conn, migrate)
        self.epoch = await database.run(self._write_conn, lambda c: read_meta(c, "epoch"))
        self.hub_id = await database.run(self._write_conn, lambda c: read_meta(c, "hub_id"))
        self._replay_conn = await database.connect(self.db_path, **conn_options)
        self._api_conn = await database.connect(self.db_path, **conn_options)
        self.writer = Writer(self._write_conn, self._on_commit)
        await self.writer.start()
        # The head of the chain, kept outside the database (hub/store/anchor.py): read on a reader, off the hot path.
        self.anchorer = Anchorer(self.settings.data_dir, self.epoch, self.read, self.settings.chain_anchor_interval_s)
        await self.anchorer.start()
        self._name = await self.read(lambda c: (c.execute("SELECT value FROM meta WHERE key = 'hub_name'").fetchone()
                                                or [None])[0])
        if not await self.read(lambda c: c.execute("SELECT 1 FROM users LIMIT 1").fetchone()):
            self.setup_code = new_setup_code()
        self.plugins = make_plugin_manager(
            user_dir=self.settings.data_dir / "plugins",
            extra_dirs=[self.settings.plugins_dir] if self.settings.plugins_dir else [],
            blocked=self.settings.blocked_plugin_names)
        await self.plugins.call_lifecycle("startup", hub=self)
        self.runtime_specs = {spec.name: spec for _, spec in self.plugins.collect("register_runtimes", hub=self)}
        self.tools = ToolRegistry()
        self.tools.load(self.plugins, self)
        self.tool_router = ToolRouter(self, self.tools)
        self.handlers = inbound_handlers(self.tools)
        await self.tool_router.start()
        self.notifier = Notifier(self)
        await self.notifier.start()
        await self.relay.start()
        self.supervisor = Supervisor(self, self.runtime_specs)
        await self.presence.start()
        self._lag_task = asyncio.create_task(self._measure_loop_lag(), name="lineup-loop-lag")
        self.started = True

    async def stop(self) -> None:
        """Reverse order of start: presence, sockets, writer (drains its queue), connections."""
        if not self.started:
            return
        self.started = False
        if self._lag_task is not None:
            self._lag_task.cancel()
            await asyncio.gather(self._lag_task, return_exceptions=True)
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        if self.advertiser is not None:
            await self.advertiser.stop()  # goodbye packets while the loop still runs
        await self.supervisor.stop()
        await self.relay.stop()
        await self.tool_router.stop()
        await self.notifier.stop()
        await self.plugins.call_lifecycle("shutdown", hub=self)
        await self.presence.stop()
        await self.streams.flush_all()
        await self.writer.stop()
        if self.anchorer is not None:
            await self.anchorer.stop()  # everything is committed now: anchor the last head once more
        for conn in (self._api_conn, self._replay_conn, self._write_conn):
            if conn is not None:
                await conn.close()

    # ---- writing and reading -------------------------------------------------------------------------

    async def execute(self, command: Command) -> Any:
        """Run a command through the writer; raise its LapError, return its value."""
        outcome = await self.writer.execute(command)
        if outcome.error is not None:
            raise outcome.error
        return outcome.value

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        assert self._api_conn is not None
        return await database.run(self._api_conn, fn)

    async def read_replay(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        assert self._replay_conn is not None
        return await database.run(self._replay_conn, fn)

    def _on_commit(self, events: list[StoredEvent]) -> None:
        """After COMMIT, in commit order: fan out, then let the rest of the hub react."""
        self.recent.append(events)
        self.broker.publish(events)
        self.presence.observe(events)
        self.streams.observe(events)
        self.tool_router.observe(events)
        self.notifier.observe(events)
        for event in events:
            if event.type == "agent.revoked":
                for session in self.broker.agent_sessions(event.payload["agentId"]):
                    session.close(4401, "credential revoked")
            elif event.type == "device.revoked":
                for session in self.broker.device_sessions(event.payload["deviceId"]):
                    session.close(4401, "device signed out")
            elif event.type == "user.created" and self.setup_code is not None:
                self.setup_code = None
                self._readvertise()
            elif event.type == "hub.renamed":
                self._name = event.payload["name"]
                self._readvertise()
        self.plugins.notify("after_commit", hub=self, events=events)
        for listener in self.commit_listeners:
            try:
                listener(events)
            except Exception:
                log.exception("commit listener failed")

    def on_listening(self, url: str, port: int, addresses: list[str]) -> None:
        """Called once the socket accepts connections: now agents may connect and the LAN may hear of us."""
        self.url = url
        self._background.add(asyncio.create_task(self.supervisor.start(url), name="lineup-supervisor"))
        if self.settings.mdns:
            self.advertiser = Advertiser(interfaces=self.settings.mdns_interface_list or None,
                                         addresses=self.settings.mdns_interface_list or addresses, port=port)
            self._background.add(asyncio.create_task(self._advertise(), name="lineup-mdns"))

    @property
    def name(self) -> str:
        return self._name or self.settings.hub_name

    def discovery_properties(self) -> dict[str, str]:
        return txt_record(self.hub_id, self.version, self.setup_code is not None)

    def spawn(self, coro: Any) -> None:
        """Run a coroutine in the background for as long as the hub runs (cancelled by stop())."""
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _readvertise(self) -> None:
        if self.advertiser is not None and self.advertiser.info is not None:
            self._background.add(asyncio.create_task(self.advertiser.update(self.name, self.discovery_properties())))

    async def _advertise(self) -> None:
        assert self.advertiser is not None
        try:
            self.advertised_name = await self.advertiser.start(self.name, self.discovery_properties())
        except Exception:  # noqa: BLE001 - discovery is a convenience; the hub serves without it
            log.exception("could not advertise the hub on the LAN (mDNS); it is still reachable by address")

    async def notice_foreign_writes(self) -> None:
        """Publish rows another process (the `lineup` CLI) committed: its `data_version` moves, ours not."""
        assert self._write_conn is not None
        version = await database.run(self._write_conn, lambda c: c.execute("PRAGMA data_version").fetchone()[0])
        if self._data_version is not None and version != self._data_version:
            await self.writer.execute(Command(run=lambda tx: None))  # the writer picks the rows up and publishes
        self._data_version = version

    async def _measure_loop_lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(0.25)
            self.loop_lag_ms = max(0.0, (loop.time() - before - 0.25) * 1000)
