"""After commit: answer tool calls the hub handles, turn answered interactions into tool results, time out calls.

Calls are worked one at a time in commit order, so an app-type tool's instance sees its calls in order and a
handler always reads the state the previous call left. On start-up, calls still pending from before a restart
are picked up again. A call is named by (workspace, call event id): envelope ids are unique within a workspace.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from hub.domain.tools import complete_call
from hub.protocol.envelope import new_id
from hub.store.events import StoredEvent
from hub.store.queries import tools as tool_rows
from hub.tools.context import ToolContext, ToolError
from hub.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from hub.ports import HubCore

    class PluginConfigs(Protocol):
        def config(self, name: str) -> dict[str, Any]: ...

    class RouterHub(HubCore, Protocol):
        """What the router uses of the hub: the core, and each plugin's own settings for its tools' context."""

        @property
        def plugins(self) -> PluginConfigs: ...

log = logging.getLogger("lineup.tools")
HANDLER_TIMEOUT_S = 30.0


async def run_handler(handler: Any, action: str | None, arguments: dict[str, Any], context: Any) -> Any:
    """A plugin's handler, under HANDLER_TIMEOUT_S, never on the event loop unless it is a coroutine function.

    A plain function runs in a worker thread: one blocking call in a plugin (a slow HTTP request, time.sleep)
    would otherwise stall every agent's acks. A thread cannot be stopped, so past the timeout the call is answered
    with an error and the thread is left to finish on its own.
    """
    target = handler.func if isinstance(handler, functools.partial) else handler
    # An object whose __call__ is a coroutine function is awaited too (this reads the method; it is no callable() test).
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(getattr(target, "__call__", None)):  # noqa: B004
        async with asyncio.timeout(HANDLER_TIMEOUT_S):
            return await handler(action, arguments, context)
    async with asyncio.timeout(HANDLER_TIMEOUT_S):
        outcome = await asyncio.to_thread(handler, action, arguments, context)
    if inspect.isawaitable(outcome):  # a plain function that returned a coroutine
        async with asyncio.timeout(HANDLER_TIMEOUT_S):
            outcome = await outcome
    return outcome


class ToolRouter:
    def __init__(self, hub: RouterHub, registry: ToolRegistry) -> None:
        self.hub = hub
        self.registry = registry
        # (job kind, workspace id, call event id or interaction id)
        self.queue: asyncio.Queue[tuple[str, str, str]] = asyncio.Queue()
        self.app_deadlines: dict[tuple[str, str], float] = {}  # (workspace id, call event id) -> deadline
        self._worker: asyncio.Task[None] | None = None
        self._unsubscribe: Callable[[], None] | None = None  # from the commit bus, while the router runs

    async def start(self) -> None:
        # Subscribed before reading what is pending: a call committed meanwhile is not missed (at worst seen twice).
        self._unsubscribe = self.hub.bus.subscribe(self.observe, name="tool_router")
        rows = await self.hub.read(tool_rows.pending_calls)
        now = asyncio.get_running_loop().time()
        for row in rows:
            if row.target_kind == "hub":
                self.queue.put_nowait(("run", row.workspace_id, row.id))
            elif row.target_kind == "interaction" and row.target_id is not None:  # always set for a question
                self.queue.put_nowait(("interaction", row.workspace_id, row.target_id))
            elif row.target_kind in ("app", "agent"):
                self.app_deadlines[(row.workspace_id, row.id)] = now + self.hub.settings.tool_call_timeout_s
        self._worker = asyncio.create_task(self._work(), name="lineup-tools")

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)

    def observe(self, events: list[StoredEvent]) -> None:
        now = asyncio.get_running_loop().time()
        for event in events:
            workspace_id = event.workspace_id or ""
            if event.type == "tool.call":
                kind = event.payload["target"]["kind"]
                if kind == "hub":
                    self.queue.put_nowait(("run", workspace_id, event.id))
                elif kind in ("app", "agent"):
                    self.app_deadlines[(workspace_id, event.id)] = now + self.hub.settings.tool_call_timeout_s
            elif event.type in ("interaction.resolved", "interaction.expired"):
                self.queue.put_nowait(("interaction", workspace_id, event.payload["interactionId"]))
            elif event.type == "tool.result":
                self.app_deadlines.pop((workspace_id, event.payload.get("callEventId", "")), None)

    def expire_due(self) -> None:
        """Called by the presence tick: calls nobody answered in time get an error result."""
        now = asyncio.get_running_loop().time()
        for (workspace_id, call_event_id), deadline in list(self.app_deadlines.items()):
            if now >= deadline:
                del self.app_deadlines[(workspace_id, call_event_id)]
                self.queue.put_nowait(("timeout", workspace_id, call_event_id))

    async def _work(self) -> None:
        while True:
            kind, workspace_id, key = await self.queue.get()
            try:
                if kind == "run":
                    await self._run_handler(workspace_id, key)
                elif kind == "interaction":
                    await self._finish_interaction(workspace_id, key)
                else:
                    await self.hub.execute(complete_call(workspace_id, key, error={
                        "code": "no_answer",
                        "message": f"Nobody answered within {self.hub.settings.tool_call_timeout_s:g} s: "
                                   "the app or agent offering this tool is offline."}))
            except Exception:
                log.exception("tool job %s %s failed", kind, key)

    async def _run_handler(self, workspace_id: str, call_event_id: str) -> None:
        call = await self.hub.read(lambda c: tool_rows.tool_call(c, call_event_id, workspace_id))
        if call is None or call.status != "pending":
            return
        tool = self.registry.hub_tools.get(call.name)
        if tool is None or tool.handler is None:
            await self.hub.execute(complete_call(workspace_id, call_event_id, error={
                "code": "unknown_tool", "message": f"{call.name!r} is gone."}))
            return
        arguments = json.loads(call.arguments)
        context = ToolContext(call.call_id, {"kind": call.caller_kind, "id": call.caller_id},
                              call.workspace_id, config=self.hub.plugins.config(tool.plugin))
        is_app = tool.definition.type == "app"
        if is_app:
            if call.action == "open":
                context.instance_id = new_id("inst")
            else:
                context.instance_id = call.instance_id
                instance_id = context.instance_id
                row = None if instance_id is None else await self.hub.read(
                    lambda c: tool_rows.tool_instance(c, instance_id, workspace_id))
                # Checked again here: a close queued just before this call may have committed since it was stored.
                if row is None or row.status != "open":
                    await self.hub.execute(complete_call(workspace_id, call_event_id, error={
                        "code": "instance_closed", "message": f"The {call.name} instance {context.instance_id!r} "
                                                              "is closed."}))
                    return
                context.state = json.loads(row.state)
        try:
            result = dict(await run_handler(tool.handler, call.action, arguments, context) or {})
        except ToolError as exc:
            await self.hub.execute(complete_call(workspace_id, call_event_id,
                                                 error={"code": exc.code, "message": exc.message}))
            return
        except Exception as exc:  # a plugin's bug is this call's error; the hub keeps serving
            log.exception("tool %s (plugin %s) raised", call.name, tool.plugin)
            await self.hub.execute(complete_call(workspace_id, call_event_id, error={
                "code": "tool_failed",
                "message": f"The {call.name} tool failed: {type(exc).__name__}: {exc}"[:500]}))
            return
        instance = None
        if is_app:
            if call.action == "open":
                result.setdefault("message", f"instance_id: {context.instance_id}")
                result.setdefault("instance_id", context.instance_id)
            instance = {"id": context.instance_id, "state": context.state,
                        "status": "closed" if call.action == "close" else "open",
                        "createdBy": f"{call.caller_kind}:{call.caller_id}"}
        await self.hub.execute(complete_call(workspace_id, call_event_id, result=result, instance=instance))

    async def _finish_interaction(self, workspace_id: str, interaction_id: str) -> None:
        row = await self.hub.read(lambda c: tool_rows.pending_call_of_interaction(c, interaction_id, workspace_id))
        if row is None or row.status == "pending":
            return
        tool = self.registry.hub_tools.get(row.name)
        spec, response = json.loads(row.spec), json.loads(row.response) if row.response else None
        outcome = row.status
        if outcome in ("expired", "cancelled"):
            await self.hub.execute(complete_call(workspace_id, row.call_event_id, error={
                "code": outcome, "message": f"The person did not answer: the question was {outcome}."}))
            return
        try:
            result = tool.result(spec, outcome, response or {}) if tool and tool.result else {"message": outcome}
        except Exception as exc:  # noqa: BLE001
            await self.hub.execute(complete_call(workspace_id, row.call_event_id,
                                                 error={"code": "tool_failed", "message": str(exc)[:500]}))
            return
        await self.hub.execute(complete_call(workspace_id, row.call_event_id,
                                             result={**result, "outcome": outcome}))
