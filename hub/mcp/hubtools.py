"""The hub's own tools (calculator, canvas, plugins' and apps' tools) as MCP tools."""

# docs/design.md#tools-and-mcp maps a LineUp tool to an MCP server and each of its actions to an MCP tool: a `toolset`
# or `app` tool becomes one MCP tool per action, named `<tool>_<action>` (an `action`-type tool keeps its own name),
# with the action's JSON Schema as its inputSchema. The tools that ask the person (choice, confirm, input, review)
# are left out: ask_choice, ask_approval, ask_input and request_review ask the same, and survive a restart.

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types

log = logging.getLogger("lineup.mcp")

HUMAN_UI = "builtin:interaction"  # how the hub marks a tool answered by the person (hub/tools/human.py)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")  # clients pass tool names to model APIs that allow only these

# Honest hints for the hub's built-in tools, which declare none: (read-only, destructive, idempotent, open world).
KNOWN_HINTS: dict[tuple[str, str | None], tuple[bool, bool, bool, bool]] = {
    ("calculator", None): (True, False, True, False),
    ("canvas", "open"): (False, False, False, False),
    ("canvas", "draw"): (False, False, False, False),
    ("canvas", "undo"): (False, True, False, False),    # removes the last stroke
    ("canvas", "clear"): (False, True, True, False),    # removes every stroke
    ("canvas", "export"): (True, False, True, False),
    ("canvas", "close"): (False, True, True, False),    # no more drawing on it
}
# What MCP assumes of a tool nobody described: it may change and destroy things, and reach outside.
UNKNOWN_HINTS = (False, True, False, True)


@dataclass(frozen=True)
class HubAction:
    """One MCP tool backed by a hub tool's action (`action` is None for an action-type tool)."""

    tool: str
    action: str | None
    kind: str
    definition: types.Tool


def mcp_name(tool: str, action: str | None) -> str:
    return _UNSAFE.sub("_", tool if action is None else f"{tool}_{action}")[:64]


def _hints(tool: str, action: str | None, title: str, declared: Any) -> types.ToolAnnotations:
    if isinstance(declared, dict):  # an action may declare MCP annotations itself (readOnlyHint, ...)
        try:
            return types.ToolAnnotations.model_validate({"title": title, **declared})
        except ValueError as exc:
            log.warning("ignoring the annotations of %s.%s: %s", tool, action, exc)
    read_only, destructive, idempotent, open_world = KNOWN_HINTS.get(
        (tool, action), KNOWN_HINTS.get((tool, None), UNKNOWN_HINTS))
    return types.ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                                 idempotent_hint=idempotent, open_world_hint=open_world)


def _object_schema(schema: Any) -> dict[str, Any] | None:
    """MCP wants an object schema at the root; the hub's arguments are always an object."""
    if not isinstance(schema, dict):
        return {"type": "object"}
    if schema.get("type", "object") != "object":
        return None
    return {**schema, "type": "object"}


def _entries(tool: dict[str, Any]) -> list[tuple[str | None, str, Any, Any]]:
    if tool.get("type") == "action":
        return [(None, "", tool.get("inputSchema"), tool.get("annotations"))]
    return [(a.get("name"), a.get("description", ""), a.get("inputSchema"), a.get("annotations"))
            for a in tool.get("actions") or [] if isinstance(a, dict) and a.get("name")]


def to_mcp(tools: list[dict[str, Any]], reserved: set[str]) -> dict[str, HubAction]:
    """The MCP tools for what the hub offers this agent (tool.list), by MCP name."""
    found: dict[str, HubAction] = {}
    for tool in tools:
        if tool.get("ui") == HUMAN_UI or (tool.get("provider") or {}).get("kind") == "agent":
            continue
        name, kind, about = tool["name"], tool.get("type", "action"), tool.get("description", "")
        provider = tool.get("provider") or {}
        where = "the LineUp hub" if provider.get("kind") == "hub" else "an app connected to LineUp"
        for action, action_about, schema, declared in _entries(tool):
            exposed = mcp_name(name, action)
            input_schema = _object_schema(schema)
            if input_schema is None or exposed in reserved or exposed in found:
                log.warning("hub tool %s%s is not offered over MCP (name %s taken or schema not an object)",
                            name, f".{action}" if action else "", exposed)
                continue
            text = f"{about} — {action}: {action_about}" if action else about
            if kind == "app":
                text += (f" Open one with {mcp_name(name, 'open')}; it returns an instance_id that the other "
                         f"{name} actions take. The instance lives in the LineUp hub.")
            text += f" (Offered by {where}.)"
            title = f"{name.capitalize()}: {action}" if action else name.capitalize()
            definition = types.Tool(name=exposed, title=title, description=text.strip(), input_schema=input_schema,
                                    annotations=_hints(name, action, title, declared))
            found[exposed] = HubAction(name, action, kind, definition)
    return found
