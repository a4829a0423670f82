"""An in-process hub for plugin authors' tests: the real hub with your plugin, real SQLite, a real agent.

```python
import pytest
from hub.testing import TestHub

@pytest.mark.asyncio                               # pytest-asyncio (or set its asyncio_mode = "auto")
async def test_dice():
    async with TestHub(dice) as hub:               # dice: your plugin module (or any object with hookimpls)
        result = await hub.call_tool("dice", {"sides": 20})
        assert 1 <= int(result["message"]) <= 20
```

`TestHub` starts the hub's real core and web app, served by uvicorn on a free loopback port in the test's own
event loop, with its data (SQLite included) in a temporary folder; it registers the plugins you pass after the
built-ins, as a hub registers a plugins folder, and connects one agent with the SDK (`hub.sdk.AgentClient`),
paired as every agent is. `call_tool` sends a `tool.call` as that agent and returns the `result` (a call answered
with an error raises `hub.sdk.ToolCallError`, with `.code`). Nothing here depends on the hub's own test suite.

`running_hub(settings)` is the one builder of a running hub below it: `hub/server.py::build_server` (what `lineup
serve` runs) served in the current event loop until the block ends. TestHub uses it; so do the hub's own tests, in a
thread of their own (tests/support/inproc.py), and a process only where a test needs one (`lineup serve`, which
builds the same server).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hub.sdk import AgentClient, ToolCallError, pair

if TYPE_CHECKING:
    from hub.core import Hub
    from hub.server import HubServer
    from hub.settings import Settings

__all__ = ["RunningHub", "TestHub", "ToolCallError", "running_hub"]

log = logging.getLogger("lineup")


@dataclass
class RunningHub:
    """A hub served by `running_hub`: the Hub, its uvicorn server, where it listens, and the task serving it."""

    hub: Hub
    server: HubServer
    url: str
    port: int
    serving: asyncio.Task[None]

    async def stopped(self) -> None:
        """Until the server has stopped (someone set `server.should_exit`, or it failed)."""
        await asyncio.shield(self.serving)


@contextlib.asynccontextmanager
async def running_hub(settings: Settings, sock: socket.socket | None = None, *,
                      plugins: Mapping[str, Any] | None = None, out: Callable[[str], Any] = log.debug,
                      start_timeout_s: float = 30.0, stop_timeout_s: float = 15.0,
                      owns_loop: bool = False) -> AsyncIterator[RunningHub]:
    """The hub `lineup serve` builds (hub/server.py::build_server), served in this event loop on `sock` (or on a
    socket bound to settings.host/port, 0 for a free one) from when it listens until the block ends. `out` takes
    the console banner. A hub that fails to start raises why; one that does not stop raises too. `owns_loop`: the
    loop is the hub's alone (a thread of its own), so every socket still open in it at stop is closed, as the end
    of a `lineup serve` process closes them; never in a loop the caller shares."""
    from hub.server import bind_socket, build_server

    own_socket = sock is None
    sock = sock if sock is not None else bind_socket(settings.host, settings.port)
    try:
        listening = asyncio.Event()
        server = _built(lambda: build_server(settings, sock, out=out, plugins=plugins, ready=listening.set))
        serving = asyncio.create_task(_serve_then_settle(server, sock, owns_loop),
                                      name=f"lineup-hub-{settings.data_dir.name}")
        waiter = asyncio.create_task(listening.wait())
        try:
            await asyncio.wait({serving, waiter}, timeout=start_timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if not listening.is_set():
            if serving.done():
                serving.result()  # raises why the hub did not start
                raise RuntimeError("the hub stopped before it listened (its log says why)")
            # uvicorn's start-up does not look at should_exit: the serving task is cancelled, not asked.
            serving.cancel()
            await asyncio.wait({serving}, timeout=stop_timeout_s)  # wait() never raises what serving raised
            if serving.done() and not serving.cancelled():
                serving.exception()  # retrieved, so asyncio does not log it as never retrieved
            raise RuntimeError(f"the hub did not listen within {start_timeout_s:g} s")
        try:
            assert server.hub is not None and server.hub.url is not None  # both set once it listens
            yield RunningHub(server.hub, server, server.hub.url, sock.getsockname()[1], serving)
        finally:
            await _stop(server, serving, stop_timeout_s)
    finally:
        if own_socket:
            sock.close()


def _built(build: Callable[[], HubServer]) -> HubServer:
    """build_server's server; what `lineup serve` would exit with (a TLS file missing, a port taken) raised."""
    try:
        return build()
    except SystemExit as refused:
        raise RuntimeError(f"the hub cannot start: {refused.code}") from None


async def _stop(server: HubServer, serving: asyncio.Task[None], timeout_s: float) -> None:
    """uvicorn's graceful shutdown (what SIGTERM does to `lineup serve`); its forced one if that hangs."""
    server.should_exit = True
    for _ in range(2):
        done, _ = await asyncio.wait({serving}, timeout=timeout_s)
        if done:
            serving.result()
            return
        server.force_exit = True
    raise RuntimeError(f"the hub did not stop within {2 * timeout_s:g} s")


async def _serve_then_settle(server: HubServer, sock: socket.socket, owns_loop: bool) -> None:
    """uvicorn's serve, then a few turns of the loop: a transport closes its socket in a callback of the loop's
    next turns, and a loop closed before those run leaves the sockets (a browser's, an agent's) to the garbage
    collector, which warns in whatever test runs then. Only a loop the hub owns is swept for sockets left open."""
    try:
        await server.serve(sockets=[sock])
    except SystemExit as exit_:  # uvicorn's answer to a start-up that failed; it has logged why
        raise RuntimeError(f"the hub's start-up failed (uvicorn exit status {exit_.code}); its log says why") from None
    if owns_loop:
        # uvicorn's own list as well: a connection whose reading is paused (a request still being answered) is not
        # registered with the loop's selector, so the sweep's own search would not see it.
        await close_left_sockets("test hub", [getattr(c, "transport", None) for c in server.server_state.connections])
    else:
        for _ in range(3):
            await asyncio.sleep(0)


async def close_left_sockets(who: str, known: Iterable[asyncio.BaseTransport | None] = ()) -> int:
    """At the end of a server that owns its loop (before the loop closes): a few turns for the transports closing
    already, then every socket still open in the loop (and each of `known` not closed yet) is aborted and the loop
    turns again, so that none is left to the garbage collector (a ResourceWarning in whatever test runs then). How
    many were left is the answer."""
    for _ in range(3):
        await asyncio.sleep(0)
    left = _open_transports()
    seen = {id(t) for t in left}
    left += [t for t in known if isinstance(t, asyncio.Transport) and not t.is_closing() and id(t) not in seen]
    for transport in left:
        # What the end of a process does to every socket it still holds. Logged, so that a test which leaves one
        # can be found.
        log.warning("%s: a socket was still open at stop (%s -> %s); closed", who,
                    transport.get_extra_info("sockname"), transport.get_extra_info("peername"))
        transport.abort()
    if left:
        for _ in range(3):
            await asyncio.sleep(0)
    return len(left)


def _open_transports() -> list[asyncio.Transport]:
    """The transports still registered with this loop's selector (reading or writing): asyncio keeps no other list."""
    selector = getattr(asyncio.get_running_loop(), "_selector", None)
    found: dict[int, asyncio.Transport] = {}
    for key in list(selector.get_map().values()) if selector is not None else []:
        for handle in key.data or ():
            owner = getattr(getattr(handle, "_callback", None), "__self__", None)
            if isinstance(owner, asyncio.Transport) and not owner.is_closing():
                found[id(owner)] = owner
    return list(found.values())


def _plugin_name(plugin: Any) -> str:
    """A module is named after its last dotted part (`my_plugins.dice` -> dice), anything else after its class."""
    name = getattr(plugin, "__name__", None) or type(plugin).__name__
    return str(name).rsplit(".", 1)[-1]


class TestHub:
    """`async with TestHub(plugin, ..., config={"dice": {...}}) as hub:` — see the module's docstring.

    `config` is what `[plugins.<name>]` tables of lineup.toml would hold. `plugins` may also be a dict
    {name: plugin}. Attributes once started: `hub.hub` (the Hub), `hub.url`, `hub.agent` (the agent's
    AgentClient), `hub.plugins` (the plugin host: `failures` says why a plugin or tool did not load).
    """

    __test__ = False  # pytest: not a test class, despite its name

    def __init__(self, *plugins: Any, config: dict[str, dict[str, Any]] | None = None,
                 data_dir: Path | str | None = None, agent_name: str = "test-agent",
                 settings: dict[str, Any] | None = None) -> None:
        named: dict[str, Any] = {}
        for plugin in plugins:
            named.update(plugin if isinstance(plugin, dict) else {_plugin_name(plugin): plugin})
        self._named = named
        self._config = config or {}
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self._agent_name = agent_name
        self._overrides = settings or {}
        self._exit = contextlib.AsyncExitStack()
        self.hub: Any = None
        self.url = ""
        self.agent: AgentClient | None = None

    @property
    def plugins(self) -> Any:
        return self.hub.plugins

    async def __aenter__(self) -> TestHub:
        try:
            await self._start()
        except BaseException:
            await self._exit.aclose()
            raise
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self._exit.aclose()

    async def _start(self) -> None:
        from hub.settings import load_settings, with_changes

        if self._data_dir is None:
            self._data_dir = Path(self._exit.enter_context(tempfile.TemporaryDirectory(prefix="lineup-test-")))
        # environ={}: the test's own LINEUP_* variables do not leak in; only what is passed here counts.
        settings = load_settings({"data_dir": self._data_dir / "hub", "host": "127.0.0.1", "port": 0, "mdns": False,
                                  "log_level": "warning", **self._overrides}, environ={})
        settings = with_changes(settings, plugin_configs={**settings.plugin_configs, **self._config})
        running = await self._exit.enter_async_context(running_hub(settings, plugins=self._named))
        self.hub, self.url = running.hub, running.url
        self.agent = await self._connect_agent()

    async def _connect_agent(self) -> AgentClient:
        """Pair one agent as `lineup pair` and the SDK do, and connect it."""
        from hub.domain import accounts
        from hub.protocol.actors import Actor

        owner = await self.hub.execute(accounts.owner_device_for_cli(None, "hub.testing"))
        actor = Actor("user", owner["userId"], owner["workspaceId"], device_id=owner["deviceId"])
        command, code = accounts.create_pairing_code(actor, self._agent_name, self.hub.settings.pairing_code_ttl_s)
        await self.hub.execute(command)
        credential = await pair(self.url, code, name=self._agent_name, runtime="hub.testing")
        agent = AgentClient(credential)
        await agent.start(timeout_s=30)
        self._exit.push_async_callback(agent.close)
        return agent

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *, action: str | None = None,
                        timeout_s: float = 30.0) -> dict[str, Any]:
        """Call a tool as the test's agent does: the `result` of the `tool.result`; an error raises
        ToolCallError (`.code`, `.message`)."""
        assert self.agent is not None, "use `async with TestHub(...)`"
        async with asyncio.timeout(timeout_s):
            return await self.agent.call_tool(name, arguments or {}, action=action)

    async def list_tools(self) -> list[dict[str, Any]]:
        """What the agent's `tool.list` answers: every tool the hub offers it, with its schema."""
        assert self.agent is not None, "use `async with TestHub(...)`"
        return await self.agent.list_tools()
