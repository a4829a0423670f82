"""Narrow views of the Hub that its parts depend on instead of hub/core.py, so the imports run one way."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from hub.bus import CommitBus
    from hub.pluginhost.loader import PluginFailure
    from hub.settings import Settings
    from hub.store.writer import Command, Writer

T = TypeVar("T")


class Reader(Protocol):
    """Reads on the hub's reader connection (hub/store)."""

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T: ...


class Store(Reader, Protocol):
    """Reads, and commands run through the one writer (its refusal raised as a LapError)."""

    async def execute(self, command: Command) -> Any: ...


class Plugins(Protocol):
    """The plugin host as the tool registry uses it: a `register_*` hook's items by plugin, and what failed."""

    @property
    def failures(self) -> list[PluginFailure]: ...

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]: ...


class HubCore(Store, Protocol):
    """What most parts use of the hub: its settings, the store, the commit bus, the writer, background tasks.

    hub/core.py's `Hub` satisfies it; a part that needs one more thing names it in a Protocol of its own.
    """

    @property
    def settings(self) -> Settings: ...

    @property
    def bus(self) -> CommitBus: ...

    @property
    def writer(self) -> Writer: ...

    @property
    def epoch(self) -> str: ...

    @property
    def hub_id(self) -> str: ...

    async def read_replay(self, fn: Callable[[sqlite3.Connection], T]) -> T: ...

    def spawn(self, coro: Any) -> None: ...
