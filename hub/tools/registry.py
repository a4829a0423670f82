"""Who offers which tool: the hub's plugins, agents (agent.hello / tool.list) and apps (tool.list).

A plugin's `register_tools` returns definitions (dicts with a `handler` or an `interaction`) or plain typed
functions, whose definition comes from their signature and docstring (hub/tools/functions.py).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub.ports import PluginFailure
from hub.store.queries import tools as tool_rows
from hub.tools.definitions import ToolDef, ToolDefinitionError, parse_tool
from hub.tools.functions import function_tool

if TYPE_CHECKING:
    from hub.ports import Plugins

log = logging.getLogger("lineup.tools")

# What a plugin's definition may carry besides the public definition (docs/design.md#tool-types).
HANDLER_KEYS = ("handler", "interaction", "result", "ui")


@dataclass(frozen=True)
class HubTool:
    """A tool the hub itself answers: by a handler (calculator, canvas) or by asking the person (choice, ...)."""

    definition: ToolDef
    plugin: str
    handler: Callable[..., Any] | None = None        # (action, arguments, context) -> result dict (may be async)
    interaction: Callable[..., dict[str, Any]] | None = None  # (action, arguments) -> interaction request
    result: Callable[..., dict[str, Any]] | None = None       # (request, outcome, response) -> result dict
    ui: str | None = None

    @property
    def kind(self) -> str:
        return "interaction" if self.interaction is not None else "hub"

    def public(self) -> dict[str, Any]:
        return {**self.definition.raw, "provider": {"kind": "hub", "plugin": self.plugin},
                **({"ui": self.ui} if self.ui else {})}


@dataclass(frozen=True)
class Target:
    """Where a call goes: kind is hub, interaction, agent or app; `tool` is what was found."""

    kind: str
    tool: ToolDef
    owner_id: str | None = None
    hub_tool: HubTool | None = None


class ToolRegistry:
    def __init__(self) -> None:
        self.hub_tools: dict[str, HubTool] = {}

    def load(self, plugins: Plugins, hub: Any) -> None:
        """Collect register_tools from every plugin; a bad definition is reported with its plugin's name."""
        for plugin, offered in plugins.collect("register_tools", hub=hub):
            try:
                item = function_tool(offered) if callable(offered) and not isinstance(offered, dict) else offered
                if not isinstance(item, dict):
                    raise ToolDefinitionError("register_tools must return tool definitions (dicts) or functions")
                definition = parse_tool({k: v for k, v in item.items() if k not in HANDLER_KEYS})
                if definition.name in self.hub_tools:
                    raise ToolDefinitionError(f"tool {definition.name!r} is already offered by plugin "
                                              f"{self.hub_tools[definition.name].plugin!r}")
                tool = HubTool(definition, plugin, item.get("handler"), item.get("interaction"), item.get("result"),
                               item.get("ui"))
                if tool.handler is None and tool.interaction is None:
                    raise ToolDefinitionError(f"tool {definition.name!r} needs a `handler` or an `interaction`")
                self.hub_tools[definition.name] = tool
            except ToolDefinitionError as exc:
                plugins.failures.append(PluginFailure(plugin, "tool", str(exc)))
                log.error("plugin %s: tool not loaded: %s", plugin, exc)

    # ---- registrations of agents and apps (stored in tool_registrations) ------------------------------

    @staticmethod
    def registered(conn: sqlite3.Connection, workspace_id: str, owner_kind: str) -> list[tuple[str, dict[str, Any]]]:
        rows = tool_rows.registrations_of_kind(conn, workspace_id, owner_kind)
        return [(row.owner_id, tool) for row in rows for tool in json.loads(row.tools)]

    def offered_to(self, conn: sqlite3.Connection, workspace_id: str, kind: str) -> list[dict[str, Any]]:
        """tool.list for an agent (the hub's and apps' tools) or for an app (the hub's and agents' tools)."""
        tools = [tool.public() for tool in self.hub_tools.values()]
        other = "app" if kind == "agent" else "agent"
        seen = set(self.hub_tools)
        for owner_id, tool in self.registered(conn, workspace_id, other):
            if kind == "agent" and tool["name"] in seen:
                continue  # an agent calls by name: the first provider wins, as `resolve` does
            seen.add(tool["name"])
            tools.append({**tool, "provider": {"kind": other, "id": owner_id}})
        return tools

    def resolve(self, conn: sqlite3.Connection, workspace_id: str, caller_kind: str, name: str,
                target_agent_id: str | None = None) -> Target | None:
        """The hub's tools first; then, for an agent, apps' tools; for an app, agents' tools."""
        hub_tool = self.hub_tools.get(name)
        if hub_tool is not None:
            return Target(hub_tool.kind, hub_tool.definition, None, hub_tool)
        other = "app" if caller_kind == "agent" else "agent"
        for owner_id, tool in self.registered(conn, workspace_id, other):
            if tool["name"] == name and (target_agent_id is None or owner_id == target_agent_id):
                try:
                    return Target(other, parse_tool(tool), owner_id)
                except ToolDefinitionError:
                    continue
        return None
