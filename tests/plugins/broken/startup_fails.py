"""Raises in `startup`: reported with its name; the hub starts without this plugin (its tool is not offered)."""

from typing import Any

from hub import hookimpl


@hookimpl
def startup(hub: Any) -> None:
    raise RuntimeError("startup_fails cannot find its configuration")


@hookimpl
def register_tools(hub: Any) -> list[dict[str, Any]]:
    return [{"name": "startup_fails_tool", "type": "action", "description": "Never offered",
             "handler": lambda action, arguments, context: {"message": "should not run"}}]
