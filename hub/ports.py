"""Narrow views of the Hub that its parts depend on instead of hub/core.py, so the imports run one way."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from hub.bus import CommitBus
    from hub.settings import Settings
    from hub.store.writer import Command, Writer

T = TypeVar("T")


class Reader(Protocol):
    """Reads on the hub's reader connection (hub/store)."""

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T: ...


class Store(Reader, Protocol):
    """Reads, and commands run through the one writer (its refusal raised as a LapError)."""

    async def execute(self, command: Command) -> Any: ...


@dataclass(frozen=True)
class PluginFailure:
    """A plugin (or one of its tools) that did not load or was dropped: its name, where it came from, and why."""

    name: str
    origin: str
    reason: str


class Plugins(Protocol):
    """The plugin host as the tool registry uses it: a `register_*` hook's items by plugin, and what failed."""

    @property
    def failures(self) -> list[PluginFailure]: ...

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]: ...

    def fail(self, name: str, reason: str) -> None: ...


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


class ChannelOptions(Protocol):
    """One channel's `[notify.<name>]` options (hub/notify/config.py's `ChannelConfig`)."""

    @property
    def options(self) -> dict[str, Any]: ...


class NotifyOptions(Protocol):
    """What a plugin reads of the `[notify]` settings (hub/notify/config.py's `NotifyConfig`); named here so the
    ports, which hub/notify depends on, do not import hub/notify back."""

    @property
    def action_link_ttl_s(self) -> float: ...

    def channel(self, name: str) -> ChannelOptions: ...


class NotifierSettings(Protocol):
    """The notifier as a plugin sees it: its `[notify]` settings (channels' options, the action links' lifetime)."""

    @property
    def config(self) -> NotifyOptions: ...


class PluginHub(Protocol):
    """The `hub` every hook is given (hub/hookspecs.py): what a plugin may use of it, and nothing more.

    Exactly what plugins/README.md documents under "The hooks" (tests/plugins/test_public_api.py holds the two
    to each other): no writer, no commit bus, no commands; everything a plugin writes goes through the public API.
    hub/core.py's `Hub` satisfies it. Typing plugins against this instead of the Hub itself keeps the plugin API
    (hub/api.py, hub/hookspecs.py, the notifiers' `Delivery`) from importing the core back.
    """

    @property
    def settings(self) -> Settings: ...

    @property
    def started(self) -> bool: ...

    @property
    def public_url(self) -> str | None: ...

    def plugin_config(self, name: str) -> dict[str, Any]: ...

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T: ...

    def spawn(self, coro: Any) -> None: ...


class NotifyPort(Store, Protocol):
    """What the notification channels' helpers use of the hub (hub/notify/channel.py): the store, for action links
    and in-app notifications, and the `[notify]` settings. Internal: a plugin reaches these only through `Delivery`,
    `notify_channel_options` and `post_in_app`."""

    @property
    def notifier(self) -> NotifierSettings: ...
