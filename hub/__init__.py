"""LineUp Agents hub: one process where a person works with the AI agents they already run."""

from __future__ import annotations

from hub.hookspecs import hookimpl

__version__ = "0.1.0"
PROTOCOL_VERSION = "0.1"

__all__ = ["__version__", "PROTOCOL_VERSION", "hookimpl"]
