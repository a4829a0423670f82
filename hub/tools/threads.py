"""The threads plain tool handlers run on: a pool of their own, and only a few of them for any one caller."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class CallerBusy(Exception):
    """The caller already has its share of the threads busy (its earlier calls still run, or hang)."""


class HandlerThreads:
    """`await threads.run(owner, fn)` runs `fn` on one of `size` threads, unless `owner` already has `per_caller`
    of them: a thread cannot be stopped, so a call that timed out keeps its thread until the function returns, and
    counts against its caller until then. One agent calling a hanging tool again and again thus takes at most
    `per_caller` threads, never all of them from the others."""

    def __init__(self, size: int, per_caller: int) -> None:
        self.size = size
        self.per_caller = per_caller
        self._pool = ThreadPoolExecutor(size, thread_name_prefix="lineup-tool")
        self._busy: Counter[Hashable] = Counter()

    def in_use(self) -> int:
        """Threads running a handler now (timed-out calls still running included)."""
        return sum(self._busy.values())

    async def run(self, owner: Hashable, fn: Callable[[], Any]) -> Any:
        if self._busy[owner] >= self.per_caller:
            raise CallerBusy(f"{self._busy[owner]} of your earlier calls to plugin tools are still running (at most "
                             f"{self.per_caller} at once); call again once they have finished.")
        loop = asyncio.get_running_loop()
        future = self._pool.submit(fn)
        self._busy[owner] += 1

        def finished(_: Future[Any]) -> None:  # in the thread that ran fn (or here, if it never started)
            with contextlib.suppress(RuntimeError):  # the hub's loop is closed: nothing left to count
                loop.call_soon_threadsafe(self._release, owner)

        future.add_done_callback(finished)
        return await asyncio.wrap_future(future)

    def _release(self, owner: Hashable) -> None:
        self._busy[owner] -= 1
        if self._busy[owner] <= 0:
            del self._busy[owner]

    def shutdown(self) -> None:
        """Queued calls are dropped; a handler still running finishes on its own."""
        self._pool.shutdown(wait=False, cancel_futures=True)
