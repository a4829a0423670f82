"""After commit: answer tool calls the hub handles, turn answered interactions into tool results, time out calls.

Calls are worked in lanes: the calls on one app-type tool's instance in commit order, one at a time (a handler
always reads the state the previous call left), and each caller's other calls likewise; different lanes run side
by side, so one slow or blocking tool delays only its own caller (or instance), never another agent's calls.
Plain handlers run on the router's own threads (hub/tools/threads.py), never the ones the hub hashes passwords
on, and a caller gets only a few of them. On start-up, calls still pending from before a restart are picked up
again. A call is named by (workspace, call event id): envelope
ids are unique within a workspace.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import TYPE_CHECKING, Any, Protocol

from hub.protocol.envelope import new_id
from hub.store.events import StoredEvent
from hub.store.queries import tools as tool_rows
from hub.tools.context import ToolContext, ToolError
from hub.tools.handlers import complete_call
from hub.tools.registry import ToolRegistry
from hub.tools.threads import CallerBusy, HandlerThreads

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
# Plain handlers' threads: as many blocking calls run at once. Their own pool, not asyncio's default one, which
# the hub needs for itself (password hashing at sign-in): plugins stuck in a call cannot take it from the hub.
HANDLER_THREADS = 8
# A caller's share of them, calls that timed out but still run included: one agent never holds them all.
THREADS_PER_CALLER = 2

Job = tuple[str, str, str]  # (job kind, workspace id, call event id or interaction id)


def lane_of(workspace_id: str, caller_kind: str, caller_id: str, instance_id: str | None) -> Hashable:
    """Which calls must be worked one after another: those on one app instance, and each caller's others."""
    if instance_id is not None:
        return ("instance", workspace_id, instance_id)
    return ("caller", workspace_id, caller_kind, caller_id)


InThread = Callable[[Callable[[], Any]], Awaitable[Any]]


async def run_handler(handler: Any, action: str | None, arguments: dict[str, Any], context: Any,
                      in_thread: InThread | None = None) -> Any:
    """A plugin's handler, under HANDLER_TIMEOUT_S, never on the event loop unless it is a coroutine function.

    A plain function runs in a worker thread (through `in_thread`, else asyncio's default pool): one blocking call
    in a plugin (a slow HTTP request, time.sleep) would otherwise stall every agent's acks. A thread cannot be
    stopped, so past the timeout the call is answered with an error and the thread is left to finish on its own.
    """
    target = handler.func if isinstance(handler, functools.partial) else handler
    # An object whose __call__ is a coroutine function is awaited too (this reads the method; it is no callable() test).
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(getattr(target, "__call__", None)):  # noqa: B004
        async with asyncio.timeout(HANDLER_TIMEOUT_S):
            return await handler(action, arguments, context)
    call = functools.partial(handler, action, arguments, context)
    async with asyncio.timeout(HANDLER_TIMEOUT_S):
        outcome = await (in_thread(call) if in_thread is not None else asyncio.to_thread(call))
    if inspect.isawaitable(outcome):  # a plain function that returned a coroutine
        async with asyncio.timeout(HANDLER_TIMEOUT_S):
            outcome = await outcome
    return outcome


class ToolRouter:
    def __init__(self, hub: RouterHub, registry: ToolRegistry) -> None:
        self.hub = hub
        self.registry = registry
        self.lanes: dict[Hashable, deque[Job]] = {}  # lane -> its jobs, the first one being worked
        self.app_deadlines: dict[tuple[str, str], float] = {}  # (workspace id, call event id) -> deadline
        self._workers: set[asyncio.Task[None]] = set()  # one per lane with jobs
        self._threads: HandlerThreads | None = None
        self._stopped = False  # after stop(), nothing new is started (a last housekeeping tick may still expire calls)
        self._unsubscribe: Callable[[], None] | None = None  # from the commit bus, while the router runs

    async def start(self) -> None:
        self._threads = HandlerThreads(HANDLER_THREADS, THREADS_PER_CALLER)
        # Subscribed before reading what is pending: a call committed meanwhile is not missed (at worst seen twice).
        self._unsubscribe = self.hub.bus.subscribe(self.observe, name="tool_router")
        rows = await self.hub.read(tool_rows.pending_calls)
        now = asyncio.get_running_loop().time()
        for row in rows:
            if row.target_kind == "hub":
                self._add(self._lane(row.workspace_id, row.name, row.caller_kind, row.caller_id, row.instance_id),
                          ("run", row.workspace_id, row.id))
            elif row.target_kind == "interaction" and row.target_id is not None:  # always set for a question
                question = row.target_id
                self._add(("question", row.workspace_id, question), ("interaction", row.workspace_id, question))
            elif row.target_kind in ("app", "agent"):
                self.app_deadlines[(row.workspace_id, row.id)] = now + self.hub.settings.tool_call_timeout_s

    async def stop(self) -> None:
        self._stopped = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self.lanes.clear()
        if self._threads is not None:
            self._threads.shutdown()

    def threads_in_use(self) -> int:
        """Plain handlers running now, calls that timed out but have not returned included."""
        return self._threads.in_use() if self._threads is not None else 0

    def observe(self, events: list[StoredEvent]) -> None:
        now = asyncio.get_running_loop().time()
        for event in events:
            workspace_id = event.workspace_id or ""
            if event.type == "tool.call":
                kind = event.payload["target"]["kind"]
                if kind == "hub":
                    caller = event.payload["caller"]
                    instance_id = (event.payload.get("arguments") or {}).get("instance_id")
                    lane = self._lane(workspace_id, event.payload["name"], caller["kind"], caller["id"],
                                      instance_id if isinstance(instance_id, str) else None)  # as tool_calls has it
                    self._add(lane, ("run", workspace_id, event.id))
                elif kind in ("app", "agent"):
                    self.app_deadlines[(workspace_id, event.id)] = now + self.hub.settings.tool_call_timeout_s
            elif event.type in ("interaction.resolved", "interaction.expired"):
                interaction_id = event.payload["interactionId"]
                self._add(("question", workspace_id, interaction_id), ("interaction", workspace_id, interaction_id))
            elif event.type == "tool.result":
                self.app_deadlines.pop((workspace_id, event.payload.get("callEventId", "")), None)

    def expire_due(self) -> None:
        """Called by the hub's housekeeping tick (hub/ticker.py): calls nobody answered in time get an error result."""
        now = asyncio.get_running_loop().time()
        for (workspace_id, call_event_id), deadline in list(self.app_deadlines.items()):
            if now >= deadline:
                del self.app_deadlines[(workspace_id, call_event_id)]
                self._add(("call", workspace_id, call_event_id), ("timeout", workspace_id, call_event_id))

    def _lane(self, workspace_id: str, name: str, caller_kind: str, caller_id: str,
              instance_id: str | None) -> Hashable:
        """lane_of, with `instance_id` counting only for an app-type tool (any other tool's argument of that name is
        just an argument)."""
        tool = self.registry.hub_tools.get(name)
        is_app = tool is not None and tool.definition.type == "app"
        return lane_of(workspace_id, caller_kind, caller_id, instance_id if is_app else None)

    def _add(self, lane: Hashable, job: Job) -> None:
        """Queue `job` in its lane, starting the lane's worker when the lane was idle."""
        if self._stopped:
            return  # picked up again from the tool_calls table at the next start
        jobs = self.lanes.get(lane)
        if jobs is not None:
            jobs.append(job)
            return
        self.lanes[lane] = deque([job])
        worker = asyncio.create_task(self._work(lane), name="lineup-tools")
        self._workers.add(worker)
        worker.add_done_callback(self._workers.discard)

    async def _work(self, lane: Hashable) -> None:
        jobs = self.lanes[lane]
        try:
            while jobs:
                await self._do(jobs[0])  # left in the lane while worked: what comes meanwhile queues behind it
                jobs.popleft()
        finally:
            if self.lanes.get(lane) is jobs:
                del self.lanes[lane]

    async def _do(self, job: Job) -> None:
        kind, workspace_id, key = job
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
        threads = self._threads
        owner = (workspace_id, call.caller_kind, call.caller_id)

        def in_thread(fn: Callable[[], Any]) -> Awaitable[Any]:
            assert threads is not None  # started
            return threads.run(owner, fn)

        try:
            result = dict(await run_handler(tool.handler, call.action, arguments, context, in_thread) or {})
        except CallerBusy as exc:
            await self.hub.execute(complete_call(workspace_id, call_event_id, error={"code": "busy",
                                                                                    "message": str(exc)}))
            return
        except TimeoutError:
            await self.hub.execute(complete_call(workspace_id, call_event_id, error={
                "code": "timeout", "message": f"The {call.name} tool did not answer within {HANDLER_TIMEOUT_S:g} s."}))
            return
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
