"""A test plugin that implements every hook in hub/hookspecs.py and records each call it gets.

`GET /plugins/everyhook/status` (a route this plugin adds; it needs an app token) answers with what the hub
called. The tests in tests/plugins/ start real hubs with this folder as LINEUP_PLUGINS_DIR and read it.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub import RuntimeSpec, ToolContext, ToolError, hookimpl, require_user

__version__ = "1.2.3"

CALLS: Counter[str] = Counter()            # hook name -> how many times the hub called it
STARTUP: dict[str, Any] = {}               # what startup saw
COMMITTED: list[dict[str, Any]] = []       # every committed event after_commit saw: sequence and type
NOTIFIERS: list[Notifier] = []
RAISE_TITLE = "everyhook: raise in after_commit"


# ---- tools ---------------------------------------------------------------------------------------------

def echo(action: str, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    text = arguments["text"]
    if action == "shout":
        text = text.upper() + "!"
    return {"message": text, "callId": context.call_id, "caller": context.caller,
            "workspaceId": context.workspace_id}


async def later(action: str, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    await asyncio.sleep(0.01)  # an async handler is awaited
    return {"message": f"later: {arguments.get('text', '')}"}


def explode(action: str | None, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    raise RuntimeError("kaboom from the everyhook plugin")


def refuse(action: str | None, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    raise ToolError("not_today", "The refuse tool says no, politely.")


def tally(action: str, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """An app-type tool: its instance state lives in the hub between calls."""
    state = context.state
    if action == "open":
        state["count"] = int(arguments.get("start", 0))
    elif action == "add":
        state["count"] += int(arguments["by"])
    return {"message": str(state["count"]), "count": state["count"]}


TEXT = {"type": "object", "properties": {"text": {"type": "string", "minLength": 1}}, "required": ["text"]}
INSTANCE = {"type": "object", "properties": {"instance_id": {"type": "string"}}, "required": ["instance_id"]}


@hookimpl
def register_tools(hub: Any) -> list[dict[str, Any]]:
    CALLS["register_tools"] += 1
    return [
        {"name": "echo", "type": "toolset", "description": "Echoes text back",
         "actions": [{"name": "say", "description": "Echo as is", "inputSchema": TEXT},
                     {"name": "shout", "description": "Echo in capitals", "inputSchema": TEXT}],
         "handler": echo, "ui": "/plugins/everyhook/static/everyhook.js"},
        {"name": "later", "type": "action", "description": "Answers from an async handler", "handler": later},
        {"name": "explode", "type": "action", "description": "Raises inside its handler", "handler": explode},
        {"name": "refuse", "type": "action", "description": "Answers with a ToolError", "handler": refuse},
        {"name": "tally", "type": "app", "description": "A counter that lives in the hub",
         "actions": [{"name": "open", "description": "Start counting",
                      "inputSchema": {"type": "object", "properties": {"start": {"type": "integer"}}}},
                     {"name": "add", "description": "Add to the count",
                      "inputSchema": {"type": "object", "properties": {"instance_id": {"type": "string"},
                                                                       "by": {"type": "integer"}},
                                      "required": ["instance_id", "by"]}},
                     {"name": "close", "description": "Stop counting", "inputSchema": INSTANCE}],
         "handler": tally},
        # Two bad definitions: each is reported with this plugin's name and not loaded; the rest works.
        {"name": "badtype", "type": "widget", "description": "Not a tool type", "handler": echo},
        {"name": "nohandler", "type": "action", "description": "Nobody answers this one"},
    ]


# ---- runtimes ------------------------------------------------------------------------------------------

class EchoRuntime:
    """Accepts every task and succeeds with its title (a configured `[[agents]] runtime = "everyhook"`)."""

    def __init__(self, config: Any, client: Any) -> None:
        self.config = config
        client.on_task(self.run_task)

    async def run_task(self, task: Any) -> None:
        await task.accept()
        await task.succeed(f"everyhook echoed: {task.title}")

    async def start(self) -> None:
        CALLS["runtime.start"] += 1

    async def stop(self) -> None:
        CALLS["runtime.stop"] += 1


@hookimpl
def register_runtimes(hub: Any) -> list[RuntimeSpec]:
    CALLS["register_runtimes"] += 1
    return [RuntimeSpec("everyhook", "Echoes each task's title (test plugin)", EchoRuntime)]


# ---- notifiers, UI modules, routes -----------------------------------------------------------------------

class Notifier:
    """A notification channel (hub/notify/channel.py): `name` and `async send(notification, delivery)`."""

    name = "everyhook"

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, notification: dict[str, Any], delivery: Any) -> None:
        self.sent.append(notification)


@hookimpl
def register_notifiers(hub: Any) -> list[Notifier]:
    CALLS["register_notifiers"] += 1
    NOTIFIERS.append(Notifier())
    return NOTIFIERS[-1:]


@hookimpl
def register_ui_modules(hub: Any) -> list[str]:
    CALLS["register_ui_modules"] += 1
    return ["/plugins/everyhook/static/everyhook.js"]


async def status(request: Request) -> JSONResponse:
    await require_user(request)  # hookspecs: every route checks who is asking itself
    return JSONResponse({"calls": dict(CALLS), "startup": STARTUP, "committed": COMMITTED,
                         "notifiers": len(NOTIFIERS)})


@hookimpl
def register_routes(hub: Any) -> list[Route]:
    CALLS["register_routes"] += 1
    return [Route("/plugins/everyhook/status", status)]


# ---- lifecycle -------------------------------------------------------------------------------------------

@hookimpl
async def startup(hub: Any) -> None:
    CALLS["startup"] += 1
    await asyncio.sleep(0)  # an async startup is awaited
    # The store is open: the plugin can read it. The hub does not serve yet.
    head = await hub.read(lambda c: c.execute("SELECT COALESCE(MAX(sequence), 0) FROM events").fetchone()[0])
    STARTUP.update(storeOpen=True, head=head, serving=bool(hub.started), dataDir=str(hub.settings.data_dir))


@hookimpl
async def shutdown(hub: Any) -> None:
    CALLS["shutdown"] += 1
    await asyncio.sleep(0)
    # Written before the store closes, so the test can see the hook ran after the process ended.
    (hub.settings.data_dir / "everyhook-shutdown.json").write_text(json.dumps(
        {"calls": dict(CALLS), "committed": len(COMMITTED)}))


@hookimpl
def after_commit(hub: Any, events: list[Any]) -> None:
    CALLS["after_commit"] += 1
    for event in events:
        COMMITTED.append({"sequence": event.sequence, "type": event.type})
        if event.type == "conversation.created" and event.payload.get("title") == RAISE_TITLE:
            raise RuntimeError("after_commit raised on purpose; the hub logs it and keeps going")
