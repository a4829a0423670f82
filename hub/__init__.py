"""LineUp Agents hub: one process where a person works with the AI agents they already run.

The public plugin API is listed in hub/api.py and importable from here (`from hub import hookimpl, ToolError`);
it is loaded on first use, so `import hub` (the CLI, the SDK) stays light.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from hub.hookspecs import hookimpl
from hub.version import __version__

PROTOCOL_VERSION = "0.1"

if TYPE_CHECKING:
    from hub.api import *  # noqa: F403 - for type checkers: the names __getattr__ provides


def __getattr__(name: str) -> Any:
    """`from hub import ToolError`: the names of hub/api.py's `__all__`, imported when first asked for."""
    if name.startswith("__") or importlib.util.find_spec(f"hub.{name}") is not None:
        raise AttributeError(name)  # a submodule (`from hub import plugins`) is the import system's to load
    api = importlib.import_module("hub.api")  # not `from hub import api`: that asks this very function
    if name in api.__all__:
        value = globals()[name] = getattr(api, name)  # asked for once: a plain attribute from now on
        return value
    raise AttributeError(f"module 'hub' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *importlib.import_module("hub.api").__all__})


__all__ = ["__version__", "PROTOCOL_VERSION", "hookimpl"]  # and, loaded on first use, hub.api.__all__
