"""Waiting for the hub or the person while the MCP caller gets a progress notification every few seconds."""

# A person may take minutes or hours to answer; MCP clients give up on silent requests long before that (many
# after 60 s, unless progress resets their clock). The wait itself lives in its own asyncio task, so a caller that
# gives up (and cancels its request) leaves the question waiting for the next, re-issued call.

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger("lineup.mcp")


class Progress:
    """Sends `notifications/progress` for one MCP request (a no-op when the caller sent no progress token)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.count = 0.0

    async def report(self, message: str) -> None:
        self.count += 1  # progress must increase with every notification
        try:
            await self.ctx.session.report_progress(self.count, None, message)
        except Exception as exc:  # noqa: BLE001 - the caller went away; the wait goes on regardless
            log.debug("progress notification not sent: %s", exc)


async def wait_with_progress(task: asyncio.Future[T], progress: Progress, interval_s: float,
                             message: Callable[[float], str]) -> T:
    """The task's result; a progress notification every `interval_s` until then. Cancelling this wait does not
    cancel the task (it belongs to whoever asks next)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        done, _ = await asyncio.wait({task}, timeout=interval_s)
        if done:
            return task.result()
        await progress.report(message(loop.time() - started))


def waited(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def shared(keep: dict[str, asyncio.Future[Any]], key: str, start: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
    """One task per key: a second caller waiting for the same thing joins the first one's task."""
    existing = keep.get(key)
    if existing is not None and not existing.done():
        return existing
    task: asyncio.Future[T] = asyncio.ensure_future(start())
    keep[key] = task

    def forget(done: asyncio.Future[Any]) -> None:
        if keep.get(key) is done:
            keep.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved: an error nobody awaits any more is not logged as "never retrieved"

    task.add_done_callback(forget)
    return task
