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
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from hub.sdk import AgentClient, ToolCallError, pair

__all__ = ["TestHub", "ToolCallError"]


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
        from hub.app import create_app
        from hub.core import Hub
        from hub.server import HubServer, bind_socket, uvicorn_config
        from hub.settings import load_settings, with_changes

        if self._data_dir is None:
            self._data_dir = Path(self._exit.enter_context(tempfile.TemporaryDirectory(prefix="lineup-test-")))
        # environ={}: the test's own LINEUP_* variables do not leak in; only what is passed here counts.
        settings = load_settings({"data_dir": self._data_dir / "hub", "host": "127.0.0.1", "port": 0, "mdns": False,
                                  "log_level": "warning", **self._overrides}, environ={})
        settings = with_changes(settings, plugin_configs={**settings.plugin_configs, **self._config})
        sock = bind_socket("127.0.0.1", 0)
        self._exit.callback(sock.close)
        port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.hub = Hub(settings, plugins=self._named)
        listening = asyncio.Event()

        def on_listening() -> None:
            self.hub.on_listening(self.url, port, ["127.0.0.1"])
            listening.set()

        server = HubServer(uvicorn_config(create_app(settings, self.hub), settings), on_listening)
        serving = asyncio.create_task(server.serve(sockets=[sock]), name="lineup-testing-hub")

        async def stop_server() -> None:
            server.should_exit = True
            async with asyncio.timeout(15):
                await asyncio.shield(serving)

        self._exit.push_async_callback(stop_server)
        waiter = asyncio.create_task(listening.wait())
        await asyncio.wait({serving, waiter}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        if not listening.is_set():
            waiter.cancel()
            if serving.done():
                serving.result()  # raises why the hub did not start
            raise RuntimeError("the test hub did not start within 30 s")
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
