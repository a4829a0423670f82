"""The Hub object: owns the database connections, the writer, the broker, presence and streams."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from hub import __version__
from hub.auth.limits import GuessLimiter, SignInLimits
from hub.auth.secrets import new_setup_code
from hub.bus import CommitBus
from hub.discovery.advertise import Advertiser, txt_record
from hub.domain import accounts
from hub.domain.collaboration import AGENT_HANDLERS, APP_HANDLERS
from hub.gateway.broker import Broker
from hub.gateway.fanout import subscribe_gateway
from hub.gateway.presence import Presence
from hub.gateway.ratelimit import AgentRateLimiter
from hub.gateway.recent import RecentEvents
from hub.gateway.streams import Streams
from hub.notify.service import Notifier
from hub.pluginhost.manager import PluginHost, make_plugin_manager
from hub.relay import Uplink
from hub.runtimes.base import RuntimeSpec
from hub.runtimes.supervisor import Supervisor
from hub.sessions.host import SessionHost
from hub.settings import Settings
from hub.store import database
from hub.store.anchor import Anchorer
from hub.store.events import StoredEvent
from hub.store.migrations import migrate, read_meta
from hub.store.queries import meta
from hub.store.writer import Command, Writer
from hub.ticker import Ticker
from hub.tools import handlers as tools
from hub.tools.registry import ToolRegistry
from hub.tools.router import ToolRouter

log = logging.getLogger("lineup.hub")
T = TypeVar("T")


def inbound_handlers(registry: ToolRegistry) -> dict[str, dict[str, Any]]:
    """The handler of every event type an app or an agent may send, by sender kind."""
    tool_handlers = {"tool.list": partial(tools.tool_list, registry), "tool.call": partial(tools.tool_call, registry),
                     "tool.result": partial(tools.tool_result, registry)}
    return {"agent": {**AGENT_HANDLERS, **tool_handlers}, "app": {**APP_HANDLERS, **tool_handlers}}


@dataclass(frozen=True)
class Reach:
    """How other devices reach the hub, known once its socket is bound (hub/server.py::build_server hands it in)."""

    public_url: str | None = None  # how a phone reaches the hub (links in notifications)
    lan_urls: tuple[str, ...] = ()  # the URLs other devices can use (none when listening on loopback only)
    tls_fingerprint: str | None = None  # SHA-256 of the certificate, for clients to pin
    agent_tls_port: int | None = None  # the TLS listener for agents, for the pairing command


class Hub:
    """One per process (tests make several). Start with `await hub.start()`, stop with `await hub.stop()`."""

    def __init__(self, settings: Settings, *, plugins: dict[str, Any] | None = None,
                 reach: Reach | None = None) -> None:
        self.settings = settings
        self.version = __version__
        # The one way to hear about commits (hub/bus.py): the writer publishes each committed batch to it.
        self.bus = CommitBus()
        self.broker = Broker()
        self.recent = RecentEvents(max_events=settings.replay_window_events)  # shared by receivers resuming at once
        self.presence = Presence(self)
        self.streams = Streams(self)
        subscribe_gateway(self.bus, self.recent, self.broker, self.presence, self.streams)  # first on the bus
        # One housekeeping tick runs every part's due timers, so no part calls into another's (presence used to
        # expire tool calls): presence first, then streams' flushes, tool calls' deadlines, other processes' writes.
        self.ticker = Ticker([("presence", self.presence.tick), ("streams", self.streams.flush_due),
                              ("tool calls", lambda: self.tool_router.expire_due()),  # noqa: PLW0108 (made in start)
                              ("foreign writes", self.notice_foreign_writes)])
        self.epoch = ""
        self.hub_id = ""
        self.setup_code: str | None = None
        self.sign_in_limiter = GuessLimiter(attempts=10, window_s=300)
        self.pairing_limiter = GuessLimiter(attempts=20, window_s=60)
        # Passwords: per source, per account and hub-wide (docs/security.md#guessing).
        self.login_limits = SignInLimits(per_source=10, per_account=20, hub_wide=100, window_s=300)
        self.agent_rate = AgentRateLimiter(settings.agent_events_per_second, settings.agent_event_burst)
        self.question_rate = AgentRateLimiter(settings.agent_questions_per_second, settings.agent_question_burst)
        self._write_conn: aiosqlite.Connection | None = None
        self._replay_conn: aiosqlite.Connection | None = None
        self._api_conn: aiosqlite.Connection | None = None
        self.writer: Writer
        self.plugins: PluginHost
        self.extra_plugins = dict(plugins or {})  # name -> plugin object, registered after the others (hub.testing)
        self.runtime_specs: dict[str, RuntimeSpec] = {}
        self.supervisor: Supervisor
        self.tools: ToolRegistry
        self.tool_router: ToolRouter
        self.handlers: dict[str, dict[str, Any]] = {}
        self.notifier: Notifier
        self.relay = Uplink(self)  # the WuKongIM uplink (docs/relay.md); idle unless [relay] is set
        self.started = False
        self.loop_lag_ms = 0.0
        self._lag_task: asyncio.Task[None] | None = None
        self.anchorer: Anchorer | None = None
        self._data_version: int | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._exit = AsyncExitStack()  # what start() started, stopped by stop() in reverse
        self.url: str | None = None  # this machine's own address of the hub, once it listens (on_listening)
        reach = reach or Reach()
        self.public_url = reach.public_url
        self.lan_urls = list(reach.lan_urls)
        self.tls_fingerprint = reach.tls_fingerprint
        self.agent_tls_port = reach.agent_tls_port
        self.advertiser: Advertiser | None = None
        self._name: str | None = None

    @property
    def db_path(self) -> Path:
        return self.settings.db_path

    def plugin_config(self, name: str) -> dict[str, Any]:
        """The `[plugins.<name>]` table of lineup.toml: a plugin's own settings (empty when there is none)."""
        return dict(self.settings.plugin_configs.get(name) or {})

    async def start(self) -> None:
        """Start the parts in order; if one fails, those already started are stopped in reverse, then it raises."""
        async with AsyncExitStack() as stack:
            await self._start(stack)
            self._exit = stack.pop_all()
        self.started = True

    async def stop(self) -> None:
        """Stop what start() started, in reverse: presence, sockets, writer (drains its queue), connections."""
        if not self.started:
            return
        self.started = False
        await self._exit.aclose()

    async def _start(self, stack: AsyncExitStack) -> None:
        # Each part's stop is pushed where it must unwind, which is not always right after its start: a few keep
        # the order stop() has always had (the anchorer after the writer; presence after the plugins' shutdown;
        # the relay, then the tool router, then the notifier). Unwinding runs every callback even if one raises.
        # The owner's alone: the database holds password hashes, conversations and decisions.
        self.settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        conn_options = {"synchronous": self.settings.synchronous}
        self._write_conn = await database.connect(self.db_path, max_pages=self.settings.db_max_pages, **conn_options)
        stack.push_async_callback(self._write_conn.close)
        await database.run(self._write_conn, migrate)
        self.epoch = await database.run(self._write_conn, lambda c: read_meta(c, "epoch"))
        self.hub_id = await database.run(self._write_conn, lambda c: read_meta(c, "hub_id"))
        self._replay_conn = await database.connect(self.db_path, **conn_options)
        stack.push_async_callback(self._replay_conn.close)
        self._api_conn = await database.connect(self.db_path, **conn_options)
        stack.push_async_callback(self._api_conn.close)
        stack.push_async_callback(self._stop_anchorer)  # after the writer: everything is committed by then
        self.writer = Writer(self._write_conn, self.bus.publish)
        await self.writer.start()
        stack.push_async_callback(self.writer.stop)
        stack.push_async_callback(self.streams.flush_all)  # open streams saved while the writer still runs
        stack.push_async_callback(self.ticker.stop)  # started last, but stopped after the plugins' shutdown
        # The head of the chain, kept outside the database (hub/store/anchor.py): read on a reader, off the hot path.
        anchorer = Anchorer(self.settings.data_dir, self.epoch, self.read, self.settings.chain_anchor_interval_s)
        await anchorer.start()
        self.anchorer = anchorer
        self._name = await self.read(meta.hub_name)
        if await self.read(accounts.needs_setup):  # no owner who can sign in (a CLI-made one has no password)
            self.setup_code = new_setup_code()
        self.plugins = make_plugin_manager(
            user_dir=self.settings.data_dir / "plugins",
            extra_dirs=[self.settings.plugins_dir] if self.settings.plugins_dir else [],
            blocked=self.settings.blocked_plugin_names, extra_plugins=self.extra_plugins,
            configs=self.settings.plugin_configs)
        await self.plugins.call_lifecycle("startup", hub=self)
        stack.push_async_callback(self.plugins.call_lifecycle, "shutdown", hub=self)
        self.runtime_specs = {spec.name: spec for _, spec in self.plugins.collect("register_runtimes", hub=self)}
        self.tools = ToolRegistry()
        self.tools.load(self.plugins, self)
        self.tool_router = ToolRouter(self, self.tools)
        self.handlers = inbound_handlers(self.tools)
        self.notifier = Notifier(self)
        stack.push_async_callback(self.notifier.stop)  # after the tool router's stop, as it always was
        await self.tool_router.start()  # subscribes to the bus: after the gateway
        stack.push_async_callback(self.tool_router.stop)
        await self.notifier.start()  # subscribes to the bus: after the tool router
        stack.callback(self.bus.subscribe(self._observe, name="hub"))
        stack.callback(self.bus.subscribe(self._after_commit_hook, name="plugins.after_commit"))
        stack.push_async_callback(self.relay.stop)
        await self.relay.start()  # subscribes to the bus (when [relay] is set): last
        self.supervisor = Supervisor(self, self.runtime_specs, partial(SessionHost, self))  # started by on_listening
        stack.push_async_callback(self.supervisor.stop)
        stack.push_async_callback(self._stop_advertiser)  # goodbye packets while the loop still runs
        stack.push_async_callback(self._cancel_background)
        await self.presence.start()
        self.ticker.start()
        self._lag_task = asyncio.create_task(self._measure_loop_lag(), name="lineup-loop-lag")
        stack.push_async_callback(self._cancel_lag)

    async def _cancel_lag(self) -> None:
        if self._lag_task is not None:
            self._lag_task.cancel()
            await asyncio.gather(self._lag_task, return_exceptions=True)

    async def _cancel_background(self) -> None:
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)

    async def _stop_advertiser(self) -> None:
        if self.advertiser is not None:
            await self.advertiser.stop()

    async def _stop_anchorer(self) -> None:
        if self.anchorer is not None:
            await self.anchorer.stop()  # everything is committed now: anchor the last head once more

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

    def _observe(self, events: list[StoredEvent]) -> None:
        """The hub's own subscriber: the setup code ends once an owner exists; a new name is announced."""
        for event in events:
            if self.setup_code is not None and accounts.closes_setup(event.type, event.payload):
                self.setup_code = None
                self._readvertise()
            elif event.type == "hub.renamed":
                self._name = event.payload["name"]
                self._readvertise()

    def _after_commit_hook(self, events: list[StoredEvent]) -> None:
        """The plugins' `after_commit` hook is one subscriber of the bus (exceptions logged by the plugin host)."""
        self.plugins.notify("after_commit", hub=self, events=events)

    def on_listening(self, url: str, port: int, addresses: list[str]) -> None:
        """Called once the socket accepts connections: now agents may connect and the LAN may hear of us."""
        self.url = url
        self._background.add(asyncio.create_task(self.supervisor.start(url), name="lineup-supervisor"))
        if self.settings.mdns:
            # A hub that listens on loopback only is announced on loopback only: the LAN could not reach it.
            local_only = bool(addresses) and all(a.startswith("127.") or a == "::1" for a in addresses)
            interfaces = self.settings.mdns_interface_list or (addresses if local_only else None)
            self.advertiser = Advertiser(interfaces=interfaces or None,
                                         addresses=self.settings.mdns_interface_list or addresses, port=port,
                                         hub_id=self.hub_id)
            self._background.add(asyncio.create_task(self._advertise(), name="lineup-mdns"))

    @property
    def name(self) -> str:
        return self._name or self.settings.hub_name

    def discovery_properties(self) -> dict[str, str]:
        return txt_record(self.hub_id, self.version, self.setup_code is not None, self.agent_tls_port)

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
            await self.advertiser.start(self.name, self.discovery_properties())
        except Exception:  # discovery is a convenience; the hub serves without it
            log.exception("could not advertise the hub on the LAN (mDNS); it is still reachable by address")

    async def notice_foreign_writes(self) -> None:
        """Publish rows another process (the `lineup` CLI) committed: its `data_version` moves, ours not."""
        assert self._write_conn is not None
        version = await database.run(self._write_conn, meta.data_version)
        if self._data_version is not None and version != self._data_version:
            await self.writer.execute(Command(run=lambda tx: None))  # the writer picks the rows up and publishes
        self._data_version = version

    async def _measure_loop_lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(0.25)
            self.loop_lag_ms = max(0.0, (loop.time() - before - 0.25) * 1000)
