"""What plugins add to the web side: their routes, their `static/` folders and the app's UI module list."""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any, Protocol

import pluggy
from starlette.routing import BaseRoute, Mount

from hub.web.static_app import AppFiles


class LoadedPlugins(Protocol):
    """The plugin host (hub/pluginhost/manager.py) as the web side reads it: the plugins, and a hook's results."""

    @property
    def pm(self) -> pluggy.PluginManager: ...

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]: ...


class Hub(Protocol):
    """What the plugins' routes and files need of the hub (not hub/core.py's, which the web side does not import)."""

    @property
    def plugins(self) -> LoadedPlugins: ...

# Each hub's plugin static files, read once; dropped with the hub (tests run several hubs in one process).
_files_by_hub: weakref.WeakKeyDictionary[Hub, dict[str, AppFiles]] = weakref.WeakKeyDictionary()


def static_dir(plugin: Any) -> Path | None:
    """A package plugin may ship a `static/` folder beside its `__init__.py`."""
    if not hasattr(plugin, "__path__") or not getattr(plugin, "__file__", None):
        return None
    folder = Path(plugin.__file__).parent / "static"
    return folder if folder.is_dir() else None


def plugin_routes(hub: Hub) -> list[BaseRoute]:
    """`/plugins/<name>/static/…` for every package plugin with static files, then the plugins' own routes."""
    routes: list[BaseRoute] = []
    for name, files in plugin_files(hub).items():
        # Only the files read from `folder` at start are served: a plugin serves nothing outside it (no ../).
        routes.append(Mount(f"/plugins/{name}/static", app=files, name=f"plugin-{name}"))
    for _, route in hub.plugins.collect("register_routes", hub=hub):
        if isinstance(route, BaseRoute):
            routes.append(route)
    return routes


def plugin_files(hub: Hub) -> dict[str, AppFiles]:
    """Each package plugin's `static/` files, read once (compressed, versioned like the app's own files)."""
    cached = _files_by_hub.get(hub)
    if cached is None:
        cached = {}
        for name, plugin in hub.plugins.pm.list_name_plugin():
            folder = static_dir(plugin)
            if folder is not None:
                cached[name] = AppFiles(folder)
        _files_by_hub[hub] = cached
    return cached


def ui_modules(hub: Hub) -> list[dict[str, str]]:
    """The ES modules the app imports at start, each named with its plugin so a failure can say whose.

    A module in a plugin's own static folder is named under that folder's version, so browsers keep it for good."""
    files = plugin_files(hub)
    modules = []
    for plugin, url in hub.plugins.collect("register_ui_modules", hub=hub):
        if not isinstance(url, str):
            continue
        prefix = f"/plugins/{plugin}/static/"
        if plugin in files and url.startswith(prefix) and url[len(prefix):] in files[plugin].files:
            modules.append({"plugin": plugin, "url": prefix + files[plugin].prefix.lstrip("/") + url[len(prefix):]})
        else:
            modules.append({"plugin": plugin, "url": url})
    return modules
