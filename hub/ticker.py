"""The hub's one housekeeping tick: every TICK_S, each part's due timers in a fixed order (hub/core.py lists them)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("lineup.ticker")
TICK_S = 0.25

Step = tuple[str, Callable[[], Awaitable[None] | None]]


class Ticker:
    """Runs the steps one after another on each tick. The parts (presence, streams, the tool router) know nothing of
    each other's timers: the hub hands them all to this one loop instead of one part calling into another."""

    def __init__(self, steps: list[Step], interval_s: float = TICK_S) -> None:
        self.steps = steps
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lineup-ticker")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def tick(self) -> None:
        for name, step in self.steps:
            try:
                result = step()
                if result is not None:
                    await result
            except Exception:
                # One part's failure must not stop the others' timers (a stuck presence must not keep tool calls
                # from timing out), nor the loop: the next tick tries again.
                log.exception("housekeeping tick: %s failed", name)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.tick()
