"""The calculator tool (docs/design.md#tool-types): a stateless toolset the hub answers itself."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from hub import ToolContext, ToolError, hookimpl

OPERANDS = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"], "additionalProperties": False}
ACTIONS: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "add": ("Add two numbers", operator.add),
    "subtract": ("Subtract b from a", operator.sub),
    "multiply": ("Multiply two numbers", operator.mul),
    "divide": ("Divide a by b", operator.truediv),
}


def calculate(action: str, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    a, b = arguments["a"], arguments["b"]
    if action == "divide" and b == 0:
        raise ToolError("division_by_zero", "Cannot divide by zero.")
    value = ACTIONS[action][1](a, b)
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("out_of_range", "The result is too large to represent.")
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return {"message": str(value), "value": value}


@hookimpl
def register_tools() -> list[dict[str, Any]]:
    return [{
        "name": "calculator", "type": "toolset", "description": "Basic calculator: each call is independent.",
        "actions": [{"name": name, "description": text, "inputSchema": OPERANDS}
                    for name, (text, _) in ACTIONS.items()],
        "handler": calculate,
    }]
