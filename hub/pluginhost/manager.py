"""The plugin manager of one hub: made fresh per hub by `make_plugin_manager`, never at module level."""

from __future__ import annotations

import inspect
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from hub import hookspecs
from hub.pluginhost import loader
from hub.pluginhost.loader import PluginFailure, PluginSource

log = logging.getLogger("lineup.plugins")


@dataclass
class PluginHost:
    """The manager plus what was loaded from where, and what failed and why."""

    pm: pluggy.PluginManager
    sources: dict[str, PluginSource] = field(default_factory=dict)
    failures: list[PluginFailure] = field(default_factory=list)

    def fail(self, name: str, reason: str) -> None:
        source = self.sources.get(name)
        self.failures.append(PluginFailure(name, source.origin if source else "?", reason))
        log.error("plugin %s failed: %s", name, reason)
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin)

    def _trace(self, hook_name: str, plugin: str) -> None:
        """LINEUP_TRACE_PLUGINS=1: hooks are called one implementation at a time (not through `pm.hook`, which
        is all pluggy's own tracing sees), so each call is traced here; without a writer this does nothing."""
        self.pm.trace.root.get("hook")(f"{hook_name} -> {plugin}")

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call a `register_*` hook implementation by implementation; a failing plugin is reported, not fatal."""
        found: list[tuple[str, Any]] = []
        for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
            name = self.pm.get_name(impl.plugin) or "?"
            self._trace(hook_name, name)
            try:
                result = impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
            except Exception as exc:  # noqa: BLE001 - any plugin error is reported with its name
                self.fail(name, f"{hook_name} raised {type(exc).__name__}: {exc}")
                continue
            for item in result or []:
                found.append((name, item))
        return found

    async def call_lifecycle(self, hook_name: str, **kwargs: Any) -> None:
        """startup/shutdown: each implementation may be async; one failing does not stop the others."""
        for impl in reversed(getattr(self.pm.hook, hook_name).get_hookimpls()):
            name = self.pm.get_name(impl.plugin) or "?"
            self._trace(hook_name, name)
            try:
                result = impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # noqa: BLE001
                self.fail(name, f"{hook_name} raised {type(exc).__name__}: {exc}")

    def notify(self, hook_name: str, **kwargs: Any) -> None:
        """Fire-and-forget hooks (after_commit): exceptions are logged, never raised into the hub."""
        for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
            self._trace(hook_name, self.pm.get_name(impl.plugin) or "?")
            try:
                impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
            except Exception:
                log.exception("plugin %s failed in %s", self.pm.get_name(impl.plugin), hook_name)

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


def make_plugin_manager(*, user_dir: Path | None, extra_dirs: list[Path] = (),  # type: ignore[assignment]
                        blocked: list[str] = (), include_entry_points: bool = True) -> PluginHost:  # type: ignore[assignment]
    """A fresh manager: built-ins, then the user's folder, --plugins-dir folders, then entry points."""
    pm = pluggy.PluginManager("lineup")
    pm.add_hookspecs(hookspecs)
    host = PluginHost(pm)
    for name in blocked:
        pm.set_blocked(name)
    sources = [PluginSource(name, "builtin", None) for name in loader.BUILTIN_PLUGINS]
    for folder in [user_dir, *extra_dirs]:
        if folder is not None:
            sources.extend(loader.folder_plugins(folder))
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
            except Exception as exc:  # noqa: BLE001
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
    return host
