"""Raises inside `register_tools`: reported with the hook's name; the other plugins' tools still load."""

from typing import Any

from hub import hookimpl


@hookimpl
def register_tools(hub: Any) -> list[dict[str, Any]]:
    raise ValueError("register_raises has no tools today")
