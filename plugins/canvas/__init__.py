"""The canvas tool (docs/design.md#the-canvas): an app-type tool whose instances live in the hub and survive restarts.

Each instance's state (size and the list of strokes) is stored with every result, so a page reload or a hub
restart shows the same drawing, and the event log holds its whole history.
"""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import quoteattr

from hub import ToolContext, ToolError, hookimpl

MAX_STROKES = 5000
MAX_PATH = 20_000
# SVG path data: commands and numbers only, so exporting can never inject markup.
PATH_DATA = re.compile(r"^[MmLlHhVvCcSsQqTtAaZz0-9eE.,+\- \t\n]*$")
COLOUR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,20}|rgba?\([0-9., %]+\))$")

INSTANCE = {"instance_id": {"type": "string", "description": "The canvas instance id"}}
ACTIONS = [
    {"name": "open", "description": "Create a canvas instance; returns instance_id",
     "inputSchema": {"type": "object", "properties": {"width": {"type": "integer", "minimum": 1, "maximum": 10000},
                                                      "height": {"type": "integer", "minimum": 1, "maximum": 10000},
                                                      "title": {"type": "string", "maxLength": 200}},
                     "required": ["width", "height"]}},
    {"name": "draw", "description": "Draw an SVG path on the canvas",
     "inputSchema": {"type": "object", "properties": {**INSTANCE, "path": {"type": "string", "maxLength": MAX_PATH},
                                                      "color": {"type": "string"},
                                                      "width": {"type": "integer", "minimum": 1, "maximum": 200}},
                     "required": ["instance_id", "path"]}},
    {"name": "undo", "description": "Undo the last stroke",
     "inputSchema": {"type": "object", "properties": INSTANCE, "required": ["instance_id"]}},
    {"name": "clear", "description": "Clear the canvas",
     "inputSchema": {"type": "object", "properties": INSTANCE, "required": ["instance_id"]}},
    {"name": "export", "description": "Export the drawing as an SVG document",
     "inputSchema": {"type": "object", "properties": INSTANCE, "required": ["instance_id"]}},
    {"name": "close", "description": "Close the canvas and release it",
     "inputSchema": {"type": "object", "properties": INSTANCE, "required": ["instance_id"]}},
]


def to_svg(state: dict[str, Any]) -> str:
    strokes = "".join(
        f'<path d={quoteattr(s["path"])} stroke={quoteattr(s["color"])} stroke-width="{int(s["width"])}" '
        'fill="none" stroke-linecap="round" stroke-linejoin="round"/>' for s in state.get("strokes", []))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{int(state["width"])}" height="{int(state["height"])}" '
            f'viewBox="0 0 {int(state["width"])} {int(state["height"])}">{strokes}</svg>')


def handle(action: str, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    state = context.state
    if action == "open":
        state.update(width=arguments["width"], height=arguments["height"], title=arguments.get("title", ""),
                     strokes=[])
        return {"message": f"instance_id: {context.instance_id}"}
    if action == "draw":
        path, color = arguments["path"], arguments.get("color", "#1b1f24")
        if not PATH_DATA.match(path):
            raise ToolError("invalid_path", "`path` must be SVG path data (commands and numbers).")
        if not COLOUR.match(color):
            raise ToolError("invalid_color", "`color` must be a CSS colour such as red, #ff0000 or rgb(255,0,0).")
        if len(state["strokes"]) >= MAX_STROKES:
            raise ToolError("canvas_full", f"A canvas holds at most {MAX_STROKES} strokes; clear it first.")
        state["strokes"].append({"path": path, "color": color, "width": arguments.get("width", 2)})
        return {"message": f"drawn; {len(state['strokes'])} strokes"}
    if action == "undo":
        if not state["strokes"]:
            return {"message": "nothing to undo"}
        state["strokes"].pop()
        return {"message": f"undone; {len(state['strokes'])} strokes"}
    if action == "clear":
        state["strokes"] = []
        return {"message": "cleared"}
    if action == "export":
        return {"message": "exported as SVG", "svg": to_svg(state)}
    if action == "close":
        return {"message": "closed", "svg": to_svg(state)}
    raise ToolError("unknown_action", f"canvas has no action {action!r}")


@hookimpl
def register_tools() -> list[dict[str, Any]]:
    return [{"name": "canvas", "type": "app",
             "description": "A drawing canvas: open, draw, undo, clear, export, close.",
             "actions": ACTIONS, "handler": handle, "ui": "/plugins/canvas/static/lineup-canvas.js"}]


@hookimpl
def register_ui_modules() -> list[str]:
    return ["/plugins/canvas/static/lineup-canvas.js"]
