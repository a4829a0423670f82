"""Implements `register_tool` (no such hook): check_pending reports it and the plugin is not loaded at all."""

from typing import Any

from hub import hookimpl


@hookimpl
def register_tool(hub: Any) -> list[dict[str, Any]]:
    return []


@hookimpl
def register_tools(hub: Any) -> list[dict[str, Any]]:
    return [{"name": "misspelled_tool", "type": "action", "description": "Never offered",
             "handler": lambda action, arguments, context: {"message": "should not run"}}]
