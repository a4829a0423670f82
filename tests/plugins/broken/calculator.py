"""Has the name of a built-in plugin: refused as a duplicate; the built-in calculator keeps working."""

from typing import Any

from hub import hookimpl


@hookimpl
def register_tools(hub: Any) -> list[dict[str, Any]]:
    raise AssertionError("a second plugin named calculator must never be registered")
