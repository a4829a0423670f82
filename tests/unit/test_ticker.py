"""The hub's housekeeping tick (hub/ticker.py): every step runs in order, a failing one does not stop the rest."""

from __future__ import annotations

import asyncio
import logging

import pytest

from hub.ticker import Ticker


async def test_each_tick_runs_the_steps_in_order_sync_and_async() -> None:
    ran: list[str] = []

    async def later() -> None:
        await asyncio.sleep(0)
        ran.append("async")

    ticker = Ticker([("first", lambda: ran.append("sync") and None), ("second", later)])
    await ticker.tick()
    assert ran == ["sync", "async"]


async def test_a_failing_step_is_logged_and_the_next_still_runs(caplog: pytest.LogCaptureFixture) -> None:
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("boom")

    ticker = Ticker([("presence", broken), ("tool calls", lambda: ran.append("expired") and None)])
    with caplog.at_level(logging.ERROR, logger="lineup.ticker"):
        await ticker.tick()
    assert ran == ["expired"]
    assert "housekeeping tick: presence failed" in caplog.text


async def test_the_loop_ticks_until_stopped() -> None:
    ticks = asyncio.Event()
    count = 0

    def step() -> None:
        nonlocal count
        count += 1
        if count == 3:
            ticks.set()

    ticker = Ticker([("count", step)], interval_s=0.01)
    ticker.start()
    async with asyncio.timeout(5):
        await ticks.wait()
    running = ticker._task
    await ticker.stop()
    # The loop's task is the only caller of the steps: once it has ended, no tick can follow.
    assert running is not None and running.done() and ticker._task is None
