"""Tool definitions (docs/design.md#tool-types): checked when registered, and arguments checked per call."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
TOOL_TYPES = ("app", "toolset", "action")
EMPTY_SCHEMA: dict[str, Any] = {"type": "object"}


class ToolDefinitionError(ValueError):
    """A definition that cannot be registered; the message says which field is wrong."""


@dataclass(frozen=True)
class ActionDef:
    name: str
    description: str
    input_schema: dict[str, Any]
    validator: Draft202012Validator = field(compare=False, repr=False)

    def errors(self, arguments: Any) -> list[str]:
        """Every schema violation as `path: message` (empty when the arguments are fine)."""
        found = []
        for error in sorted(self.validator.iter_errors(arguments), key=lambda e: list(e.absolute_path)):
            path = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
            found.append(f"{path}: {error.message}")
        return found


@dataclass(frozen=True)
class ToolDef:
    name: str
    type: str
    description: str
    actions: dict[str, ActionDef]
    raw: dict[str, Any]   # the public definition, as it goes out in tool.list

    def action(self, name: str | None) -> ActionDef | None:
        """The action to run; an `action`-type tool takes any action name it documents, or none
        (docs/design.md#tool-types)."""
        if self.type == "action":
            return self.actions[""]
        if name is None:
            return None
        return self.actions.get(name)


def _schema(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return dict(EMPTY_SCHEMA)
    if not isinstance(value, dict):
        raise ToolDefinitionError(f"{where}.inputSchema must be a JSON Schema object")
    try:
        Draft202012Validator.check_schema(value)
    except jsonschema.SchemaError as exc:
        raise ToolDefinitionError(f"{where}.inputSchema is not a valid JSON Schema: {exc.message}") from None
    return value


def _text(definition: dict[str, Any], key: str, where: str, required: bool = True) -> str:
    value = definition.get(key, "" if not required else None)
    if not isinstance(value, str) or (required and not value.strip()):
        raise ToolDefinitionError(f"{where}.{key} must be {'non-empty ' if required else ''}text")
    return value


PUBLIC_KEYS = ("name", "type", "description", "actions", "inputSchema", "ui", "title")


def parse_tool(definition: Any) -> ToolDef:
    """Check one definition against docs/design.md#tool-types and return it parsed; raise ToolDefinitionError."""
    if not isinstance(definition, dict):
        raise ToolDefinitionError("a tool definition must be an object")
    name = _text(definition, "name", "tool")
    if not NAME.match(name):
        raise ToolDefinitionError(f"tool name {name!r} must start with a letter and use letters, digits, _ . -")
    where = f"tool {name!r}"
    kind = definition.get("type")
    if kind not in TOOL_TYPES:
        raise ToolDefinitionError(f"{where}.type must be one of {TOOL_TYPES}")
    description = _text(definition, "description", where)
    actions: dict[str, ActionDef] = {}
    if kind == "action":
        schema = _schema(definition.get("inputSchema"), where)
        actions[""] = ActionDef("", description, schema, Draft202012Validator(schema))
    else:
        raw_actions = definition.get("actions")
        if not isinstance(raw_actions, list) or not raw_actions:
            raise ToolDefinitionError(f"{where}.actions must be a non-empty list for type {kind!r}")
        for index, action in enumerate(raw_actions):
            action_where = f"{where}.actions[{index}]"
            if not isinstance(action, dict):
                raise ToolDefinitionError(f"{action_where} must be an object")
            action_name = _text(action, "name", action_where)
            if action_name in actions:
                raise ToolDefinitionError(f"{action_where}.name {action_name!r} is used twice")
            schema = _schema(action.get("inputSchema"), action_where)
            actions[action_name] = ActionDef(action_name, _text(action, "description", action_where, False),
                                             schema, Draft202012Validator(schema))
        if kind == "app" and "open" not in actions:
            raise ToolDefinitionError(f"{where}: an app tool needs an `open` action that creates an instance")
    public = {k: definition[k] for k in PUBLIC_KEYS if k in definition}
    return ToolDef(name, kind, description, actions, public)
