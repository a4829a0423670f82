"""The suite's one way to wait for something: poll a check until it holds, with a deadline generous for a busy machine."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

TIMEOUT_S = 10.0
INTERVAL_S = 0.05


class NotInTime(AssertionError, TimeoutError):
    """The check did not hold by the deadline: a test failure (AssertionError) that code waiting for a
    TimeoutError also recognises."""


def _failure(what: str, timeout: float, value: Any) -> NotInTime:
    return NotInTime(f"{what or 'the condition'} did not hold within {timeout} s; last value {value!r}")


async def eventually(check: Callable[[], Any], timeout: float = TIMEOUT_S, what: str = "",
                     interval: float = INTERVAL_S) -> Any:
    """Call `check` (a plain or an async function) until it returns something truthy, and return that; after
    `timeout` seconds fail with `what` and the last value. A check that raises stops the wait with its error."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise _failure(what, timeout, value)
        await asyncio.sleep(interval)


def eventually_sync(check: Callable[[], Any], timeout: float = TIMEOUT_S, what: str = "",
                    interval: float = INTERVAL_S) -> Any:
    """`eventually` for code that is not async: the same checks, deadline and failure, blocking the thread."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise _failure(what, timeout, value)
        time.sleep(interval)
