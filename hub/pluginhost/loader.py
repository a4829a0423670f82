"""Loading plugins: the hub's plugins folder (the built-ins), the user's, --plugins-dir, and `lineup` entry points."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from hub.layout import beside
from hub.ports import PluginFailure

# Built-in features are ordinary plugins (docs/style.md#the-core-is-built-from-its-own-hooks): the files and folders
# of the hub's own plugins folder (`hub_plugins_folder`), loaded by path like an author's. These are the ones the hub
# ships (the wheel and the executable carry them), loaded first and in this order; anything else in that folder (an
# author's own plugin dropped into a checkout's plugins/) loads after them, as a plugin of that folder.
BUILTIN_PLUGINS = ("runtimes", "notifiers", "calculator", "canvas", "choice", "confirm", "input", "review")

@dataclass(frozen=True)
class PluginSource:
    name: str
    origin: str           # "builtin", "folder:<path>" or "entrypoint:<dist>"
    path: Path | None     # the file or package folder, when there is one


def _import_path(name: str, path: Path) -> ModuleType:
    """Import a single-file plugin (`x.py`) or a package plugin (`x/__init__.py`) under a private name."""
    module_name = f"lineup_plugin_{name}"
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(module_name, path / "__init__.py",
                                                      submodule_search_locations=[str(path)])
    else:
        spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def is_test_file(name: str) -> bool:
    """pytest's own file names: a plugin's test kept beside it (`test_dice.py` next to `dice.py`) is not a plugin."""
    return name == "conftest.py" or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))


def folder_plugins(folder: Path) -> list[PluginSource]:
    """Every `*.py` file and every package (folder with `__init__.py`) directly in `folder`, by name; names
    starting with `_` or `.` and test files are skipped."""
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(("_", ".")) or (entry.is_file() and is_test_file(entry.name)):
            continue
        if entry.is_file() and entry.suffix == ".py":
            found.append(PluginSource(entry.stem, f"folder:{folder}", entry))
        elif entry.is_dir() and (entry / "__init__.py").exists():
            found.append(PluginSource(entry.name, f"folder:{folder}", entry))
    return found


def load(source: PluginSource) -> ModuleType:
    """Import a plugin from its file or folder, a built-in as any other (each hub runs the module afresh)."""
    assert source.path is not None
    return _import_path(source.name, source.path)


def entry_point_plugins() -> list[tuple[PluginSource, importlib.metadata.EntryPoint]]:
    found = []
    for entry_point in importlib.metadata.entry_points(group="lineup"):
        dist = entry_point.dist.name if entry_point.dist else "?"
        found.append((PluginSource(entry_point.name, f"entrypoint:{dist}", None), entry_point))
    return found


def describe_failure(source: PluginSource, exc: BaseException) -> PluginFailure:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
    return PluginFailure(source.name, source.origin, f"{type(exc).__name__}: {exc}{where}")


def hub_plugins_folder() -> Path:
    """The hub's own plugins folder: `plugins/` beside `hub/` in a checkout (run with or without `pip install -e .`),
    `hub/plugins/` inside a wheel or the executable, where the build copies the checkout's (hub/layout.py)."""
    return beside("plugins")


def builtin_plugins(folder: Path | None = None) -> list[PluginSource]:
    """Every plugin of the hub's own folder: the shipped built-ins first (origin `builtin`), in BUILTIN_PLUGINS'
    order, then whatever else was dropped there (origin `folder:<path>`, like a plugin of any other folder)."""
    folder = folder or hub_plugins_folder()
    found = {source.name: source for source in folder_plugins(folder)}
    shipped = [PluginSource(name, "builtin", found.pop(name).path) for name in BUILTIN_PLUGINS if name in found]
    return [*shipped, *found.values()]


def searched_folders(user_dir: Path | None, extra_dirs: Iterable[Path] = ()) -> list[tuple[str, Path]]:
    """The folders plugins are looked for in, in load order, by role, with their real paths (symlinks and `~`
    resolved), so `lineup plugins` can tell an author exactly where to put a file. A folder named twice (the
    checkout's plugins/ as --plugins-dir, say) is searched once, under its first role."""
    folders = [("built-in", hub_plugins_folder())]
    if user_dir is not None:
        folders.append(("your folder", user_dir))
    folders.extend(("--plugins-dir", folder) for folder in extra_dirs)
    seen: set[Path] = set()
    searched = []
    for role, folder in folders:
        real = folder.expanduser().resolve()
        if real not in seen:
            seen.add(real)
            searched.append((role, real))
    return searched
