"""The hub bounds its waits with `asyncio.timeout`, never `asyncio.wait_for`: on Python 3.11 (the oldest this
project supports) `wait_for` loses a cancellation that arrives as the awaited thing completes (CPython gh-86296,
fixed in 3.12), and a lost cancellation is a task that does not stop: a demo agent that outlived its Ctrl+C by
ten seconds in a full run (the SDK's wait for the welcome frame), a hub whose shutdown waits on it."""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path

import pytest

HUB = Path(__file__).resolve().parents[2] / "hub"


def wait_for_calls(source: str) -> list[int]:
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr == "wait_for"
            and isinstance(node.value, ast.Name) and node.value.id == "asyncio"]


def test_no_module_of_the_hub_calls_asyncio_wait_for() -> None:
    found = {path.relative_to(HUB.parent).as_posix(): lines for path in sorted(HUB.rglob("*.py"))
             if (lines := wait_for_calls(path.read_text(encoding="utf-8")))}
    assert not found, f"use `async with asyncio.timeout(s):` instead of asyncio.wait_for: {found}"


def test_the_check_finds_a_call() -> None:
    assert wait_for_calls("async def f():\n    await asyncio.wait_for(g(), 1)\n") == [2]


async def _cancel_as_it_completes(bounded: bool) -> str:
    """Cancel a task in the same turn of the loop as the future it waits on completes: what a Ctrl+C does when it
    lands as the hub's answer arrives."""
    future: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def waiter() -> str:
        if bounded:
            async with asyncio.timeout(5):
                await future
        else:
            await asyncio.wait_for(future, 5)
        return "carried on"

    task = asyncio.create_task(waiter())
    for _ in range(3):
        await asyncio.sleep(0)  # the waiter is parked on the future
    future.set_result("answer")
    task.cancel()
    try:
        return await task
    except asyncio.CancelledError:
        return "cancelled"


async def test_asyncio_timeout_keeps_a_cancellation_that_lands_as_the_wait_ends() -> None:
    assert await _cancel_as_it_completes(bounded=True) == "cancelled"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="fixed in CPython 3.12 (gh-86296)")
async def test_on_python_3_11_wait_for_loses_that_cancellation() -> None:
    """Why the rule above exists: this is what the SDK and the hub did before."""
    assert await _cancel_as_it_completes(bounded=False) == "carried on"
