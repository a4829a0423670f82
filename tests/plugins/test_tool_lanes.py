"""One slow tool delays only its own caller (hub/tools/router.py's lanes), and calls on one instance stay in order.

Found walking through the plugin guide as a new author: a plain function that blocks (`time.sleep`, a slow HTTP
request) ran in a thread as plugins/README.md says, but the router worked every call of every agent one at a
time, so another agent's `calculator` waited until the blocking call was over (up to its 30 s timeout).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from hub import ToolContext, hookimpl
from hub.domain import accounts
from hub.protocol.actors import Actor
from hub.sdk import AgentClient, pair
from hub.testing import TestHub, ToolCallError
from hub.tools import router

HELD_S = 20.0  # the longest a held call waits for the test to let it go (a safety net: the test sets the event)


class Gate:
    """A plain function's call that blocks until the test lets it go; who ran where."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[str] = []


def make_plugin(gate: Gate) -> Any:
    def hold(label: str) -> str:
        """Block until the test releases the call.

        Args:
            label: Said back.
        """
        gate.threads.append(threading.current_thread().name)
        gate.entered.set()
        gate.release.wait(HELD_S)
        return f"{label} released"

    def tally(action: str, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """An app-type tool whose `add` can be held: the next call on its instance must see what it added."""
        state = context.state
        if action == "open":
            state["marks"] = []
            return {"message": "opened"}
        if arguments.get("hold"):
            gate.entered.set()
            gate.release.wait(HELD_S)
        state["marks"].append(arguments["mark"])
        return {"message": ",".join(state["marks"])}

    instance = {"instance_id": {"type": "string"}}
    tally_tool = {
        "name": "tally", "type": "app", "description": "Marks added one after another", "handler": tally,
        "actions": [
            {"name": "open", "description": "Open", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "add", "description": "Add a mark", "inputSchema": {
                "type": "object", "properties": {**instance, "mark": {"type": "string"}, "hold": {"type": "boolean"}},
                "required": ["instance_id", "mark"]}},
            {"name": "close", "description": "Close", "inputSchema": {
                "type": "object", "properties": instance, "required": ["instance_id"]}}]}

    class Plugin:
        @hookimpl
        def register_tools(self) -> list[Any]:
            return [hold, tally_tool]

    return Plugin()


async def second_agent(hub: TestHub) -> AgentClient:
    """Another agent of the same workspace, paired as every agent is."""
    owner = await hub.hub.execute(accounts.owner_device_for_cli(None, "test"))
    actor = Actor("user", owner["userId"], owner["workspaceId"], device_id=owner["deviceId"])
    command, code = accounts.create_pairing_code(actor, "second", hub.hub.settings.pairing_code_ttl_s)
    await hub.hub.execute(command)
    agent = AgentClient(await pair(hub.url, code, name="second", runtime="test"))
    await agent.start(timeout_s=30)
    return agent


async def test_a_blocking_tool_does_not_hold_up_another_agents_calls() -> None:
    gate = Gate()
    async with TestHub({"slow": make_plugin(gate)}) as hub:
        other = await second_agent(hub)
        try:
            held = asyncio.create_task(hub.call_tool("hold", {"label": "first"}))
            assert await asyncio.to_thread(gate.entered.wait, 10), "the blocking call never started"
            # While the first agent's call blocks its thread, the other agent's calls are answered.
            async with asyncio.timeout(10):
                answer = await other.call_tool("calculator", {"a": 2, "b": 3}, action="add")
            assert answer["value"] == 5
            assert not held.done()  # it was answered while the blocking call was still running
            gate.release.set()
            assert await asyncio.wait_for(held, 10) == {"message": "first released"}
            # On the router's own threads, not asyncio's default pool that the hub hashes passwords on.
            assert gate.threads and all(name.startswith("lineup-tool") for name in gate.threads), gate.threads
        finally:
            gate.release.set()
            await other.close()


async def test_calls_on_one_instance_are_worked_in_order_whoever_makes_them() -> None:
    gate = Gate()
    async with TestHub({"slow": make_plugin(gate)}) as hub:
        other = await second_agent(hub)
        try:
            opened = await hub.call_tool("tally", {}, action="open")
            instance_id = opened["instance_id"]
            first = asyncio.create_task(hub.call_tool("tally", {"instance_id": instance_id, "mark": "a", "hold": True},
                                                      action="add"))
            assert await asyncio.to_thread(gate.entered.wait, 10), "the held call never started"
            second = asyncio.create_task(other.call_tool("tally", {"instance_id": instance_id, "mark": "b"},
                                                         action="add"))
            # The other agent's call on the same instance waits for the held one and sees its mark: run beside it,
            # it would read the state before "a" and answer "b".
            gate.release.set()
            assert (await asyncio.wait_for(first, 10))["message"] == "a"
            assert (await asyncio.wait_for(second, 10))["message"] == "a,b"
        finally:
            gate.release.set()
            await other.close()


async def test_one_agent_calling_a_hanging_tool_again_and_again_keeps_only_its_share_of_the_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread cannot be stopped: a call that timed out keeps its thread until the function returns. Before, an
    agent calling a hanging tool again after each timeout took one more thread each time, until the other agents'
    plain tools (the built-in calculator among them) timed out too. Now a caller has at most THREADS_PER_CALLER
    of them, the calls that timed out included, and is told `busy` beyond that. (Three threads, two per caller, a
    0.3 s timeout here: the production values are 8, 2 and 30 s.)"""
    monkeypatch.setattr(router, "HANDLER_THREADS", 3)
    monkeypatch.setattr(router, "THREADS_PER_CALLER", 2)
    monkeypatch.setattr(router, "HANDLER_TIMEOUT_S", 0.3)
    gate = Gate()
    async with TestHub({"slow": make_plugin(gate)}) as hub:
        other = await second_agent(hub)
        try:
            for attempt in (1, 2):
                with pytest.raises(ToolCallError) as timed_out:
                    await hub.call_tool("hold", {"label": f"try {attempt}"}, timeout_s=10)
                assert timed_out.value.code == "timeout", timed_out.value
                assert "did not answer within 0.3 s" in timed_out.value.message
            with pytest.raises(ToolCallError) as busy:
                await hub.call_tool("hold", {"label": "try 3"}, timeout_s=10)
            assert busy.value.code == "busy" and "2 of your earlier calls" in busy.value.message
            assert len(gate.threads) == 2  # the third call never reached a thread
            # The other agent still has a thread for its plain tools.
            answer = await other.call_tool("calculator", {"a": 2, "b": 3}, action="add")
            assert answer["value"] == 5
            # Once the hanging calls return, the agent has its threads back.
            gate.release.set()
            deadline = time.monotonic() + 10
            while hub.hub.tool_router.threads_in_use():
                assert time.monotonic() < deadline, "the finished calls still count against their caller"
                await asyncio.sleep(0.02)
            assert await hub.call_tool("hold", {"label": "again"}) == {"message": "again released"}
        finally:
            gate.release.set()
            await other.close()
