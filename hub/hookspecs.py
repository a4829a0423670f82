"""Every hook a LineUp plugin can implement, in one place (the model is pytest's hookspec.py).

Rules for all hooks: the hub calls them with keyword arguments only, so an implementation may accept just the
arguments it needs (new arguments can be added without breaking plugins). Hooks named `register_*` collect
contributions: each implementation returns a list (or None) and the hub concatenates them. `startup` and
`shutdown` implementations may be `async def`; the hub awaits them. Every other hook must be a plain function
and return quickly: it runs on the hub's event loop. The hub calls every hook through pluggy's hook caller
(`pm.hook.<name>(...)`, hub/pluginhost/manager.py), so `tryfirst`, `trylast` and wrappers work as in any pluggy host.
Plugins import `hookimpl` and the rest of the public API from `hub` (listed in hub/api.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from hub.ports import PluginHub
    from hub.runtimes.base import RuntimeSpec
    from hub.store.events import StoredEvent

hookspec = pluggy.HookspecMarker("lineup")
hookimpl = pluggy.HookimplMarker("lineup")


@hookspec
def register_tools(hub: PluginHub) -> list[dict[str, Any]] | None:
    """Tools this plugin offers (docs/design.md#tool-types): definitions of type `app`, `toolset` or `action`.

    Called once at start-up. Each item is a plain typed function (its schema from its signature and docstring,
    hub/tools/functions.py) or a tool definition dict, which may carry a hub-side `handler` callable
    (`handler(action, arguments, context) -> result dict`, may be async) and a `ui` module URL. A definition
    that does not validate is reported with the plugin's name and not loaded.
    """


@hookspec
def register_runtimes(hub: PluginHub) -> list[RuntimeSpec] | None:
    """Agent runtimes the hub can start and supervise (`[[agents]] runtime = "<name>"` in lineup.toml).

    Called once at start-up. Each item is a `hub.RuntimeSpec(name, description, create)`;
    `create(config, client)` builds the runtime for one configured agent around its SDK client.
    """


@hookspec
def register_notifiers(hub: PluginHub) -> list[Any] | None:
    """Notification channels (in-app, browser, webhook, mail, ...). Called once at start-up."""


@hookspec
def register_ui_modules(hub: PluginHub) -> list[str] | None:
    """URLs of ES modules the app imports at run time (custom elements for a plugin's cards or tools).

    A package plugin's `static/` folder is served at `/plugins/<name>/static/`; list its modules here.
    """


@hookspec
def register_routes(hub: PluginHub) -> list[Any] | None:
    """Starlette routes added to the hub, under `/plugins/<name>/` by convention. Called once at start-up.

    Each route must check who is asking itself (see `hub.require_user`).
    """


@hookspec
def startup(hub: PluginHub) -> None:
    """Called once the hub's store is open and before it serves; may be `async def`.

    An exception here is reported with the plugin's name; the hub still starts without that plugin.
    """


@hookspec
def shutdown(hub: PluginHub) -> None:
    """Called when the hub stops, before the store closes; may be `async def`."""


@hookspec
def after_commit(hub: PluginHub, events: list[StoredEvent]) -> None:
    """Called with every batch of events right after it is committed, in sequence order.

    Must be quick and must not raise (exceptions are logged and ignored); start a task for slow work.
    """
