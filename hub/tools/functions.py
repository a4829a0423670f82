"""A plain typed Python function as a tool (as llm's `register_tools` does): its schema from its signature.

The parameters' type hints and defaults become the `inputSchema` (msgspec builds the JSON Schema and converts
the arguments back to those types), the docstring becomes the description, and a simple docstring section
(`Args:` with `name: text` lines, or `:param name: text`) describes each argument. A parameter annotated
`ToolContext` receives the call's context and is not part of the schema. A coroutine function is awaited on the
event loop; a plain function runs in a worker thread (hub/tools/router.py `run_handler`).
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from hub.tools.context import ToolContext, ToolError
from hub.tools.definitions import ToolDefinitionError

SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$", re.IGNORECASE)
GOOGLE_ARG = re.compile(r"^\s*(\*{0,2}[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
REST_ARG = re.compile(r"^\s*:param\s+(?:[^:]*\s)?([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
OVERRIDES = "__lineup_tool__"  # set by `tool(...)`: name, description, ui


def tool(function: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None,
         ui: str | None = None) -> Any:
    """Mark a function as a tool and optionally override its name, description or UI module:
    `@tool(name="dice")`. A plain function works without it."""
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, OVERRIDES, {"name": name, "description": description, "ui": ui})
        return fn
    return mark(function) if function is not None else mark


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """(description, {argument: text}) from a docstring; the argument section is left out of the description."""
    description: list[str] = []
    arguments: dict[str, str] = {}
    current: str | None = None
    section_indent: int | None = None   # inside an `Args:` section: the indentation of its entries
    for line in inspect.cleandoc(doc or "").splitlines():
        indent = len(line) - len(line.lstrip())
        if SECTION.match(line):
            section_indent, current = -1, None
            continue
        if section_indent is not None and line.strip() and indent < section_indent:
            section_indent, current = None, None  # dedented: the section is over (`Returns:` ...)
        if section_indent is not None:
            if not line.strip():
                section_indent, current = None, None  # a blank line ends the section
                continue
            match = GOOGLE_ARG.match(line)
            if match and section_indent in (-1, indent):
                section_indent, current = indent, match.group(1).lstrip("*")
                arguments[current] = match.group(2).strip()
            elif current is not None:
                arguments[current] = f"{arguments[current]} {line.strip()}"
            continue
        rest = REST_ARG.match(line)
        if rest:
            current = rest.group(1)
            arguments[current] = rest.group(2).strip()
        elif current is not None and indent > 0:  # a :param continued on the next line
            arguments[current] = f"{arguments[current]} {line.strip()}"
        else:
            current = None
            if not line.lstrip().startswith((":return", ":rtype", ":raise")):
                description.append(line)
    return "\n".join(description).strip(), arguments


def _is_context(hint: Any) -> bool:
    return hint is ToolContext or (isinstance(hint, type) and issubclass(hint, ToolContext))


def function_tool(function: Callable[..., Any]) -> dict[str, Any]:
    """The tool definition (today's dict form, with its `handler`) of a plain typed function."""
    overrides = getattr(function, OVERRIDES, {})
    name = overrides.get("name") or getattr(function, "__name__", "")
    where = f"tool {name!r} (the function {getattr(function, '__qualname__', name)})"
    doc_description, documented = parse_docstring(inspect.getdoc(function))
    description = overrides.get("description") or doc_description
    if not description:
        raise ToolDefinitionError(f"{where} needs a docstring: it is the description agents read")
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # noqa: BLE001 - a hint naming something the module does not define
        raise ToolDefinitionError(f"{where}: its type hints cannot be resolved: {exc}") from None
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    context_parameter: str | None = None
    for parameter in inspect.signature(function).parameters.values():
        hint = hints.get(parameter.name, Any)
        if _is_context(hint):
            context_parameter = parameter.name
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            raise ToolDefinitionError(f"{where}: `{parameter.name}` must be an ordinary named parameter "
                                      "(no *args, **kwargs or positional-only parameters)")
        if parameter.name in documented:
            hint = Annotated[hint, msgspec.Meta(description=documented[parameter.name])]
        if parameter.default is parameter.empty:
            fields.append((parameter.name, hint))
        else:
            fields.append((parameter.name, hint, parameter.default))
    try:
        arguments_type = msgspec.defstruct(f"{name}_arguments", fields, kw_only=True, forbid_unknown_fields=True)
        schema = _inline(msgspec.json.schema(arguments_type), arguments_type.__name__)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{where}: its parameters cannot be described as JSON Schema: {exc}") from None
    definition: dict[str, Any] = {"name": name, "type": "action", "description": description, "inputSchema": schema,
                                  "handler": _handler(function, arguments_type, context_parameter)}
    if overrides.get("ui"):
        definition["ui"] = overrides["ui"]
    return definition


def _inline(schema: dict[str, Any], root: str) -> dict[str, Any]:
    """msgspec answers `{"$ref": "#/$defs/<root>", "$defs": {...}}`: make the root the schema itself."""
    definitions = dict(schema.get("$defs", {}))
    inlined = dict(definitions.pop(root))
    inlined.pop("title", None)
    if not inlined.get("required"):
        inlined.pop("required", None)
    if definitions:  # nested Structs, enums: their `#/$defs/...` references still resolve from the root
        inlined["$defs"] = definitions
    return inlined


def _handler(function: Callable[..., Any], arguments_type: type, context_parameter: str | None) -> Any:
    """The `handler(action, arguments, context)` the router runs: async for a coroutine function (awaited on the
    loop), plain otherwise (run in a worker thread)."""
    names = [field for field in arguments_type.__struct_fields__]  # type: ignore[attr-defined]

    def keywords(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        try:
            typed: Any = msgspec.convert(arguments, arguments_type)
        except msgspec.ValidationError as exc:
            raise ToolError("invalid_arguments", str(exc)) from None
        values = {name: getattr(typed, name) for name in names}
        if context_parameter is not None:
            values[context_parameter] = context
        return values

    if inspect.iscoroutinefunction(function):
        async def run_async(action: str | None, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
            return as_result(await function(**keywords(arguments, context)))
        return run_async

    def run(action: str | None, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        return as_result(function(**keywords(arguments, context)))
    return run


def as_result(value: Any) -> dict[str, Any]:
    """What a function returns, as a tool result: a dict as it is; text as the `message`; None as "done";
    anything else (a number, a list, a Struct) as `value`, with its text as the `message`."""
    if isinstance(value, dict):
        return value
    if value is None:
        return {"message": "done"}
    if isinstance(value, str):
        return {"message": value}
    plain = msgspec.to_builtins(value)
    return {"message": msgspec.json.encode(plain).decode() if not isinstance(plain, (int, float)) else str(plain),
            "value": plain}
