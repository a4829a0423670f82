"""What plugins add to the web side: their routes, their `static/` folders and the app's UI module list."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

if TYPE_CHECKING:
    from hub.core import Hub


def static_dir(plugin: Any) -> Path | None:
    """A package plugin may ship a `static/` folder beside its `__init__.py`."""
    if not hasattr(plugin, "__path__") or not getattr(plugin, "__file__", None):
        return None
    folder = Path(plugin.__file__).parent / "static"
    return folder if folder.is_dir() else None


def plugin_routes(hub: Hub) -> list[BaseRoute]:
    """`/plugins/<name>/static/…` for every package plugin with static files, then the plugins' own routes."""
    routes: list[BaseRoute] = []
    for name, plugin in hub.plugins.pm.list_name_plugin():
        folder = static_dir(plugin)
        if folder is not None:
            # StaticFiles refuses paths that leave `folder` (../), so a plugin serves only its own files.
            routes.append(Mount(f"/plugins/{name}/static", app=StaticFiles(directory=folder), name=f"plugin-{name}"))
    for _, route in hub.plugins.collect("register_routes", hub=hub):
        if isinstance(route, BaseRoute):
            routes.append(route)
    return routes


def ui_modules(hub: Hub) -> list[dict[str, str]]:
    """The ES modules the app imports at start, each named with its plugin so a failure can say whose."""
    return [{"plugin": plugin, "url": url} for plugin, url in hub.plugins.collect("register_ui_modules", hub=hub)
            if isinstance(url, str)]
