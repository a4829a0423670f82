"""The plugin manager in-process: one fresh manager per call, where plugins come from, check_pending, blocking.

These call `make_plugin_manager` directly (fast); tests/plugins/test_plugins_live.py shows the same through a
real hub process, /-/plugins.json and `lineup plugins`.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import cast

import pluggy
import pytest

import hub
from hub.pluginhost import loader
from hub.pluginhost.loader import BUILTIN_PLUGINS, hub_plugins_folder
from hub.pluginhost.manager import PluginHost, make_plugin_manager
from tests.plugins.folders import ALL_HOOKS, BROKEN, GOOD, copy_folder


def names(host: PluginHost) -> set[str]:
    """The plugins registered (pluggy also lists a blocked name, with None as its plugin)."""
    return {name for name, plugin in host.pm.list_name_plugin() if plugin is not None}


def rows(host: PluginHost) -> dict[str, dict[str, object]]:
    return {str(row["name"]): row for row in host.describe()}


def test_each_call_makes_a_fresh_manager_with_the_builtins() -> None:
    first = make_plugin_manager(user_dir=None, include_entry_points=False)
    second = make_plugin_manager(user_dir=None, blocked=["calculator"], include_entry_points=False)
    assert first.pm is not second.pm
    assert names(first) == set(BUILTIN_PLUGINS) and first.failures == []
    # Blocking in one manager does not leak into another (no shared, module-level manager).
    assert "calculator" not in names(second) and "calculator" in names(first)
    assert "calculator" not in rows(second)
    assert not first.pm.is_blocked("calculator")
    described = rows(first)
    assert {row["origin"] for row in described.values()} == {"builtin"}
    assert described["calculator"]["hooks"] == ["register_tools"]
    assert described["canvas"]["hooks"] == ["register_tools", "register_ui_modules"]
    assert described["runtimes"]["hooks"] == ["register_runtimes"]


def test_no_module_of_the_hub_or_its_plugins_holds_a_plugin_manager() -> None:
    """The issue: a plugin manager per hub, none at module level (tests start several hubs in one process)."""
    imported = []
    for info in pkgutil.walk_packages(hub.__path__, "hub."):
        if info.name.endswith(".__main__"):
            continue  # `python -m hub` runs the CLI when imported
        try:
            imported.append(importlib.import_module(info.name))
        except ImportError:
            continue  # an optional dependency (the ACP runtime) that is not installed
    host = make_plugin_manager(user_dir=None, include_entry_points=False)
    plugins = [cast(ModuleType, module) for _, module in host.pm.list_name_plugin()]
    imported += [hub, *plugins, *(module for name, module in list(sys.modules.items())
                                  if name.startswith(tuple(f"lineup_plugin_{p}." for p in BUILTIN_PLUGINS)))]
    assert len(imported) > 30 and len(plugins) == len(BUILTIN_PLUGINS)
    offenders = [f"{module.__name__}.{attr}" for module in imported for attr, value in vars(module).items()
                 if isinstance(value, (pluggy.PluginManager, PluginHost))]
    assert offenders == []


def test_the_built_ins_are_the_files_of_the_hubs_plugins_folder_and_load_by_path() -> None:
    """One meaning of plugins/: the built-ins are files and folders of it, loaded like an author's (no package)."""
    folder = hub_plugins_folder()
    assert folder == Path(__file__).resolve().parents[2] / "plugins" and not (folder / "__init__.py").exists()
    host = make_plugin_manager(user_dir=None, include_entry_points=False)
    assert {name: source.path for name, source in host.sources.items()} == {
        name: folder / name if (folder / name).is_dir() else folder / f"{name}.py" for name in BUILTIN_PLUGINS}
    assert list(host.sources) == list(BUILTIN_PLUGINS)  # loaded first, in their order


def test_a_plugin_dropped_into_the_hubs_folder_loads_after_the_built_ins_and_the_folder_once(tmp_path: Path) -> None:
    """A checkout's plugins/ with an author's plugin in it, also given as --plugins-dir: one load, no duplicates."""
    folder = tmp_path / "plugins"
    shutil.copytree(hub_plugins_folder(), folder, ignore=shutil.ignore_patterns("__pycache__", "test_*.py"))
    (folder / "greeter.py").write_text((GOOD / "greeter.py").read_text())
    (folder / "test_greeter.py").write_text("import greeter\n")
    sources = loader.builtin_plugins(folder)
    assert [s.name for s in sources] == [*BUILTIN_PLUGINS, "greeter"]
    assert {s.origin for s in sources[:-1]} == {"builtin"} and sources[-1].origin == f"folder:{folder}"
    searched = loader.searched_folders(tmp_path / "data" / "plugins", [hub_plugins_folder(), tmp_path / ".." /
                                                                        tmp_path.name / "data" / "plugins"])
    assert [role for role, _ in searched] == ["built-in", "your folder"]
    host = make_plugin_manager(user_dir=None, extra_dirs=[hub_plugins_folder()], include_entry_points=False)
    assert host.failures == [] and list(host.sources) == list(BUILTIN_PLUGINS)


def test_single_file_and_package_plugins_from_the_users_folder_and_an_extra_folder(tmp_path: Path) -> None:
    user = copy_folder(GOOD, tmp_path / "user")
    host = make_plugin_manager(user_dir=user, include_entry_points=False)
    assert host.failures == []
    described = rows(host)
    assert described["everyhook"] == {"name": "everyhook", "origin": f"folder:{user}", "version": "1.2.3",
                                      "hooks": ALL_HOOKS}
    assert described["greeter"]["hooks"] == ["register_tools"] and described["greeter"]["version"] is None
    assert "_skipped" not in names(host) and "lineup_plugin__skipped" not in sys.modules
    assert host.sources["everyhook"].path == user / "everyhook"
    assert host.sources["greeter"].path == user / "greeter.py"

    extra = copy_folder(GOOD, tmp_path / "extra")
    (extra / "everyhook").rename(extra / "second")  # a second package plugin, named after its folder
    both = make_plugin_manager(user_dir=user, extra_dirs=[extra], include_entry_points=False)
    assert rows(both)["second"]["origin"] == f"folder:{extra}"
    # greeter.py is in both folders: the first one wins and the second is reported, not silently dropped.
    assert [(f.name, f.origin) for f in both.failures] == [("greeter", f"folder:{extra}")]
    assert f"already loaded from folder:{user}" in both.failures[0].reason
    assert rows(both)["greeter"]["origin"] == f"folder:{user}"


def test_check_pending_reports_every_plugin_with_a_misspelled_hook(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "misspelled_hook.py").write_text((BROKEN / "misspelled_hook.py").read_text())
    (folder / "also_misspelled.py").write_text(
        "from hub import hookimpl\n\n@hookimpl\ndef after_comit(hub, events):\n    pass\n")
    (folder / "greeter.py").write_text((GOOD / "greeter.py").read_text())
    host = make_plugin_manager(user_dir=folder, include_entry_points=False)
    failed = {f.name: f.reason for f in host.failures}
    assert set(failed) == {"misspelled_hook", "also_misspelled"}
    assert "unknown hook" in failed["misspelled_hook"] and "register_tool" in failed["misspelled_hook"]
    assert "after_comit" in failed["also_misspelled"]
    # The whole plugin is left out (also its correctly spelled hooks); the others load.
    assert names(host) == set(BUILTIN_PLUGINS) | {"greeter"}
    offered = [item["name"] for _, item in host.collect("register_tools", hub=None)]
    assert "misspelled_tool" not in offered and "greeter" in offered


def test_blocked_plugins_are_never_imported(tmp_path: Path) -> None:
    folder = copy_folder(BROKEN, tmp_path / "broken")
    before = set(sys.modules)
    host = make_plugin_manager(user_dir=folder, blocked=["blocked_me", "import_error", "review"],
                               include_entry_points=False)
    failed = {f.name for f in host.failures}
    assert "blocked_me" not in failed and "import_error" not in failed
    assert "lineup_plugin_blocked_me" not in set(sys.modules) - before
    assert "review" not in names(host) and host.pm.is_blocked("review")
    assert not {"review", "blocked_me", "import_error"} & set(rows(host))  # not listed as loaded either
    assert {"misspelled_hook", "broken_package", "calculator"} <= failed  # the others are still tried


def test_register_hook_that_raises_is_reported_and_the_rest_is_collected(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "register_raises.py").write_text((BROKEN / "register_raises.py").read_text())
    host = make_plugin_manager(user_dir=folder, include_entry_points=False)
    offered = [item["name"] for _, item in host.collect("register_tools", hub=None)]
    assert {"calculator", "canvas", "choice", "confirm", "input", "review"} <= set(offered)
    assert [(f.name, f.reason) for f in host.failures] == [
        ("register_raises", "register_tools raised ValueError: register_raises has no tools today")]
    assert "register_raises" not in names(host)


def test_a_plugins_tests_beside_it_are_not_loaded_as_plugins(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The guide keeps `test_dice.py` next to `dice.py`; loaded as a plugin it would fail (`import dice` is not on
    the hub's path), so pytest's file names are skipped, silently."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "greeter.py").write_text((GOOD / "greeter.py").read_text())
    for test_file in ("test_greeter.py", "greeter_test.py", "conftest.py"):
        (folder / test_file).write_text("import greeter\n\nraise RuntimeError('a test file was loaded')\n")
    with caplog.at_level(logging.DEBUG, logger="lineup.plugins"):
        host = make_plugin_manager(user_dir=folder, include_entry_points=False)
    assert host.failures == [] and caplog.records == []
    assert names(host) == set(BUILTIN_PLUGINS) | {"greeter"}
    assert not any(name.startswith("lineup_plugin_") and "test" in name for name in sys.modules)
