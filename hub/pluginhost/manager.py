"""The plugin manager of one hub: made fresh per hub by `make_plugin_manager`, never at module level.

Every hook is called through pluggy's hook caller (`pm.hook.<name>(...)`), so a plugin's `wrapper=True` (or old
`hookwrapper=True`) implementation sees and may change the results like in any pluggy host. A plugin that raises
must not take the others down, so each implementation is guarded when it is registered: its exception is recorded
with the plugin's name (and the plugin reported and dropped) while the other implementations still run.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from hub import hookspecs
from hub.pluginhost import loader
from hub.pluginhost.loader import PluginSource
from hub.ports import PluginFailure

log = logging.getLogger("lineup.plugins")

# Hooks whose exceptions are logged and ignored: they run after every commit, on the event loop, and a plugin's
# bug there must neither drop the plugin nor reach the writer.
FIRE_AND_FORGET = frozenset({"after_commit"})


class LineupPluginManager(pluggy.PluginManager):
    """pluggy's manager, with every (non-wrapper) implementation guarded as it is registered."""

    def __init__(self) -> None:
        super().__init__("lineup")
        self.raised: list[tuple[str, str, Exception]] = []   # (hook, plugin, exception) not yet reported
        # For `collect`: which plugin returned which list, and which item (a wrapper may rebuild the lists but
        # keep the items); the objects are held so their ids stay theirs until the call is over.
        self.origins: dict[int, tuple[str, Any]] = {}
        self.item_origins: dict[int, tuple[str, Any]] = {}
        self.tracing = False

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        plugin_name = super().register(plugin, name)
        if plugin_name is not None:
            for caller in self.get_hookcallers(plugin) or []:
                for impl in caller.get_hookimpls():
                    if impl.plugin is plugin and not (impl.wrapper or impl.hookwrapper):
                        impl.function = self._guard(impl.function, caller.name, plugin_name)  # type: ignore[misc]
        return plugin_name

    def _guard(self, function: Callable[..., Any], hook: str, plugin: str) -> Callable[..., Any]:
        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.tracing:  # pluggy's own tracing names the hook, not the plugin it went to
                self.trace.root.get("hook")(f"{hook} -> {plugin}")
            try:
                result = function(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - any plugin error is reported with its name
                self._record(hook, plugin, exc)
                return None
            if inspect.isawaitable(result):  # an async startup/shutdown: its failure is this plugin's too
                return self._guard_awaitable(result, hook, plugin)
            if result is not None and hook.startswith("register_"):
                self.origins[id(result)] = (plugin, result)
                for item in result if isinstance(result, (list, tuple)) else ():
                    self.item_origins.setdefault(id(item), (plugin, item))
            return result
        return guarded

    async def _guard_awaitable(self, awaitable: Any, hook: str, plugin: str) -> Any:
        try:
            return await awaitable
        except Exception as exc:  # noqa: BLE001 - an async hook's error is its plugin's, reported by name
            self._record(hook, plugin, exc)
            return None

    def _record(self, hook: str, plugin: str, exc: Exception) -> None:
        if hook in FIRE_AND_FORGET:
            log.error("plugin %s failed in %s", plugin, hook, exc_info=exc)
        else:
            self.raised.append((hook, plugin, exc))


@dataclass
class PluginHost:
    """The manager plus what was loaded from where, what failed and why, and the plugins' `[plugins.<name>]`."""

    pm: LineupPluginManager
    sources: dict[str, PluginSource] = field(default_factory=dict)
    failures: list[PluginFailure] = field(default_factory=list)
    configs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def config(self, name: str) -> dict[str, Any]:
        """The `[plugins.<name>]` table of lineup.toml (a copy; empty when there is none)."""
        return dict(self.configs.get(name) or {})

    def fail(self, name: str, reason: str) -> None:
        source = self.sources.get(name)
        self.failures.append(PluginFailure(name, source.origin if source else "?", reason))
        log.error("plugin %s failed: %s", name, reason)
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin)

    def _report(self, hook_name: str) -> None:
        """Report (and drop) every plugin whose implementation of this hook raised."""
        mine = [entry for entry in self.pm.raised if entry[0] == hook_name]
        self.pm.raised = [entry for entry in self.pm.raised if entry[0] != hook_name]
        for _, plugin, exc in mine:
            self.fail(plugin, f"{hook_name} raised {type(exc).__name__}: {exc}")

    def _call(self, hook_name: str, kwargs: dict[str, Any]) -> Any:
        """`pm.hook.<name>(**kwargs)`; a wrapper that raises is reported and the call made again without it."""
        caller = getattr(self.pm.hook, hook_name)
        while True:
            try:
                return caller(**kwargs)
            except Exception as exc:  # only a wrapper can raise: implementations are guarded
                wrappers = [impl.plugin_name for impl in caller.get_hookimpls() if impl.wrapper or impl.hookwrapper]
                if not wrappers:
                    raise
                for name in dict.fromkeys(wrappers):
                    self.fail(name, f"a wrapper of {hook_name} raised {type(exc).__name__}: {exc}")
                self._report(hook_name)  # and the plugins that raised in this attempt, so they are not called again

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """A `register_*` hook: every item with the plugin it came from, in the order the plugins were loaded
        (the built-ins first, so a plugin cannot take a built-in tool's name); a failing plugin is reported."""
        self.pm.origins.clear()
        self.pm.item_origins.clear()
        try:
            results = self._call(hook_name, kwargs)
            wrappers = {impl.plugin_name for impl in getattr(self.pm.hook, hook_name).get_hookimpls()
                        if impl.wrapper or impl.hookwrapper}
            made_by_wrapper = next(iter(wrappers)) if len(wrappers) == 1 else "?"

            def origin(result: Any, item: Any) -> str:
                """The list's plugin; else (a wrapper rebuilt the list) the item's; else the wrapper's."""
                for table, key in ((self.pm.origins, result), (self.pm.item_origins, item)):
                    if id(key) in table and table[id(key)][1] is key:
                        return str(table[id(key)][0])
                return made_by_wrapper

            # pluggy calls the last registered first; reversed, the built-ins come first as they always did.
            found = [(origin(result, item), item) for result in reversed(results or []) for item in (result or [])]
        finally:
            self.pm.origins.clear()
            self.pm.item_origins.clear()
        self._report(hook_name)
        return found

    async def call_lifecycle(self, hook_name: str, **kwargs: Any) -> None:
        """startup/shutdown: each implementation may be async (awaited one after the other, in pluggy's order);
        one failing does not stop the others."""
        for result in self._call(hook_name, kwargs) or []:
            if inspect.isawaitable(result):
                await result
        self._report(hook_name)

    def notify(self, hook_name: str, **kwargs: Any) -> None:
        """Fire-and-forget hooks (after_commit): exceptions are logged, never raised into the hub."""
        try:
            self._call(hook_name, kwargs)
        except Exception:
            log.exception("the %s hook failed", hook_name)

    def describe(self) -> list[dict[str, Any]]:
        """For /-/plugins.json and `lineup plugins`: each plugin, where it came from, its version and hooks."""
        rows = []
        for name, plugin in sorted(self.pm.list_name_plugin(), key=lambda item: item[0]):
            if plugin is None:
                continue  # a name blocked with set_blocked: pluggy lists it, but nothing was loaded
            source = self.sources.get(name)
            hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or [])
            rows.append({"name": name, "origin": source.origin if source else "?",
                         "version": getattr(plugin, "__version__", None), "hooks": hooks})
        return rows


def _duplicate(host: PluginHost, source: PluginSource) -> PluginFailure:
    return PluginFailure(source.name, source.origin,
                         f"a plugin named {source.name!r} is already loaded from {host.sources[source.name].origin}")


def _same_file(source: PluginSource | None, plugin: Any) -> bool:
    """Whether a plugin object is the module a folder's source was loaded from (its file, or its package's)."""
    if source is None or source.path is None or not getattr(plugin, "__file__", None):
        return False
    path = source.path / "__init__.py" if source.path.is_dir() else source.path
    return Path(plugin.__file__).resolve() == path.resolve()


def make_plugin_manager(*, user_dir: Path | None, extra_dirs: Iterable[Path] = (), blocked: Iterable[str] = (),
                        include_entry_points: bool = True, extra_plugins: Mapping[str, Any] | None = None,
                        configs: Mapping[str, Mapping[str, Any]] | None = None) -> PluginHost:
    """A fresh manager: the hub's plugins folder (built-ins first), then the user's folder, --plugins-dir folders
    (each folder once), entry points, then `extra_plugins` (objects registered as they are: hub.testing's plugins
    under test)."""
    pm = LineupPluginManager()
    pm.add_hookspecs(hookspecs)
    host = PluginHost(pm, configs=dict(configs or {}))
    for name in blocked:
        pm.set_blocked(name)
    sources = []
    for role, folder in loader.searched_folders(user_dir, extra_dirs):
        sources.extend(loader.builtin_plugins(folder) if role == "built-in" else loader.folder_plugins(folder))
    for source in sources:
        if pm.is_blocked(source.name):
            continue
        if source.name in host.sources:
            host.failures.append(_duplicate(host, source))
            continue
        try:
            module = loader.load(source)
            host.sources[source.name] = source
            pm.register(module, name=source.name)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the hub
            host.failures.append(loader.describe_failure(source, exc))
    if include_entry_points:
        for source, entry_point in loader.entry_point_plugins():
            if pm.is_blocked(source.name):
                continue
            if source.name in host.sources:
                host.failures.append(_duplicate(host, source))
                continue
            try:
                pm.register(entry_point.load(), name=source.name)
                host.sources[source.name] = source
            except Exception as exc:  # noqa: BLE001 - a broken entry point must not stop the hub
                host.failures.append(loader.describe_failure(source, exc))
    for name, plugin in (extra_plugins or {}).items():
        source = PluginSource(name, "testing", None)
        if _same_file(host.sources.get(name), plugin):  # a checkout's plugins/dice.py, tested by its test_dice.py:
            pm.unregister(name=name)                    # one plugin, imported by the test as well
            del host.sources[name]
        if name in host.sources:
            host.failures.append(_duplicate(host, source))
            continue
        try:
            pm.register(plugin, name=name)
            host.sources[name] = source
        except Exception as exc:  # noqa: BLE001 - a plugin object that cannot be registered is reported
            host.failures.append(loader.describe_failure(source, exc))
    while True:  # a misspelled hook name is an error, not silently ignored; report every such plugin
        try:
            pm.check_pending()
            break
        except pluggy.PluginValidationError as exc:
            host.fail(pm.get_name(exc.plugin) or "?", f"implements an unknown hook: {exc}")
    for failure in host.failures:
        log.error("plugin %s (%s) not loaded: %s", failure.name, failure.origin, failure.reason)
    if os.environ.get("LINEUP_TRACE_PLUGINS") == "1":
        pm.trace.root.setwriter(lambda message: sys.stderr.write(f"[lineup plugins] {message}"))
        pm.enable_tracing()
        pm.tracing = True
    return host
