"""A tool as a plain typed Python function: its schema from its signature and docstring, called as an agent would
(hub.testing's in-process hub: real core, real SQLite, an SDK agent over a real socket)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Literal, cast

import msgspec
import pytest

from hub import ToolContext, ToolError, hookimpl, tool
from hub.sdk import AgentClient
from hub.testing import TestHub, ToolCallError
from hub.tools.definitions import ToolDefinitionError, parse_tool
from hub.tools.functions import function_tool, parse_docstring


class Point(msgspec.Struct):
    x: float
    y: float


def move(point: Point, by: float = 1.0, *, axis: Literal["x", "y"] = "x", note: str | None = None) -> Point:
    """Move a point along one axis.

    Returns the moved point.

    Args:
        point: Where the point is now.
        by: How far to move it,
            in units.
        axis (str): Which axis.
    """
    if axis == "x":
        return Point(point.x + by, point.y)
    return Point(point.x, point.y + by)


def test_the_schema_comes_from_the_signature_and_the_docstring() -> None:
    definition = function_tool(move)
    assert definition["name"] == "move" and definition["type"] == "action"
    assert definition["description"] == "Move a point along one axis.\n\nReturns the moved point."
    schema = definition["inputSchema"]
    assert schema["type"] == "object" and schema["required"] == ["point"]
    assert schema["additionalProperties"] is False  # an unknown argument is refused, not passed on
    properties = schema["properties"]
    assert properties["by"] == {"type": "number", "default": 1.0, "description": "How far to move it, in units."}
    assert properties["axis"] == {"enum": ["x", "y"], "default": "x", "description": "Which axis."}
    assert properties["point"]["description"] == "Where the point is now."
    assert properties["note"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert schema["$defs"]["Point"]["required"] == ["x", "y"]  # a nested Struct, referenced from the root
    parsed = parse_tool({k: v for k, v in definition.items() if k != "handler"})  # a valid tool definition
    action = parsed.action(None)
    assert action is not None and action.errors({"point": {"x": 1, "y": 2}}) == []
    assert action.errors({"point": {"x": 1}, "extra": 1}) != []


def test_docstrings_in_rest_style_and_the_context_parameter_left_out_of_the_schema() -> None:
    def greet(who: str, context: ToolContext, times: int = 1) -> str:
        """Greet someone.

        :param who: The name to greet.
        :param int times: How often,
            at most 3.
        :returns: the greeting
        """
        return "hi"

    assert parse_docstring(greet.__doc__) == ("Greet someone.", {"who": "The name to greet.",
                                                                 "times": "How often, at most 3."})
    schema = function_tool(greet)["inputSchema"]
    assert set(schema["properties"]) == {"who", "times"} and schema["required"] == ["who"]


def test_a_function_the_hub_cannot_describe_is_refused_with_the_reason() -> None:
    def undocumented(a: int) -> int:
        return a

    def variadic(*numbers: int) -> int:
        """Add numbers."""
        return sum(numbers)

    with pytest.raises(ToolDefinitionError, match="needs a docstring"):
        function_tool(undocumented)
    with pytest.raises(ToolDefinitionError, match="ordinary named parameter"):
        function_tool(variadic)
    renamed = function_tool(tool(name="dice", description="Roll a die")(undocumented))
    assert renamed["name"] == "dice" and renamed["description"] == "Roll a die"


# ---- called for real -----------------------------------------------------------------------------------------


class Seen:
    """What the handlers saw, per test."""

    def __init__(self) -> None:
        self.threads: dict[str, int] = {}
        self.contexts: list[ToolContext] = []


def make_plugin(seen: Seen) -> Any:
    def blocking_sum(a: int, b: int = 2) -> int:
        """Add two integers (a plain function: it runs in a worker thread)."""
        seen.threads["sync"] = threading.get_ident()
        return a + b

    async def awaited(text: str) -> dict[str, Any]:
        """Echo text from a coroutine (awaited on the hub's event loop)."""
        seen.threads["async"] = threading.get_ident()
        await asyncio.sleep(0)
        return {"message": text.upper(), "length": len(text)}

    def whoami(context: ToolContext) -> str:
        """Say who called, from the context."""
        seen.contexts.append(context)
        return f"{context.caller['kind']} in {context.workspace_id}; units={context.config.get('units')}"

    def picky(level: int) -> None:
        """Refuse levels above 3."""
        if level > 3:
            raise ToolError("too_high", f"level {level} is above 3")

    class Plugin:
        @hookimpl
        def register_tools(self) -> list[Any]:
            return [blocking_sum, awaited, whoami, picky, move]

    return Plugin()


async def test_function_tools_are_called_as_an_agent_calls_them() -> None:
    seen = Seen()
    async with TestHub({"maths": make_plugin(seen)}, config={"maths": {"units": "cm"}}) as hub:
        loop_thread = threading.get_ident()
        assert hub.plugins.failures == []
        listed = {t["name"]: t for t in await hub.list_tools()}
        assert listed["blocking_sum"]["provider"] == {"kind": "hub", "plugin": "maths"}
        assert listed["blocking_sum"]["inputSchema"]["required"] == ["a"]

        # A number is the result's value, and its text the message; a plain function ran off the event loop.
        assert await hub.call_tool("blocking_sum", {"a": 40}) == {"message": "42", "value": 42}
        assert seen.threads["sync"] != loop_thread
        assert await hub.call_tool("awaited", {"text": "hey"}) == {"message": "HEY", "length": 3}
        assert seen.threads["async"] == loop_thread

        # The context: who called, in which workspace, and this plugin's [plugins.maths] table.
        result = await hub.call_tool("whoami")
        (context,) = seen.contexts
        assert context.caller == {"kind": "agent", "id": cast(AgentClient, hub.agent).credential.agent_id}
        assert result == {"message": f"agent in {context.workspace_id}; units=cm"}

        # Arguments are converted to the declared types (a Struct), and a Struct result is sent as its value.
        moved = await hub.call_tool("move", {"point": {"x": 1, "y": 2}, "by": 2.5, "axis": "y"})
        assert moved["value"] == {"x": 1.0, "y": 4.5}

        assert await hub.call_tool("picky", {"level": 1}) == {"message": "done"}
        with pytest.raises(ToolCallError) as refused:
            await hub.call_tool("picky", {"level": 5})
        assert refused.value.code == "too_high" and "above 3" in refused.value.message
        with pytest.raises(ToolCallError) as invalid:
            await hub.call_tool("blocking_sum", {"a": "forty"})
        assert invalid.value.code == "invalid_arguments" and "integer" in invalid.value.message
        assert invalid.value.message.startswith("Invalid arguments for blocking_sum: a:"), invalid.value.message
        with pytest.raises(ToolCallError) as unknown:
            await hub.call_tool("blocking_sum", {"a": 1, "c": 3})
        assert unknown.value.code == "invalid_arguments"
