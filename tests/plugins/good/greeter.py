"""A single-file plugin (the README's `greeter` example): one toolset, no static folder."""

from typing import Any

from hub import hookimpl


@hookimpl
def register_tools(hub: Any) -> list[dict[str, Any]]:
    return [{"name": "greeter", "type": "toolset", "description": "Greetings",
             "actions": [{"name": "hello", "description": "Say hello",
                          "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}},
                                          "required": ["who"]}}],
             "handler": lambda action, arguments, context: {"message": f"Hello, {arguments['who']}!"}}]
