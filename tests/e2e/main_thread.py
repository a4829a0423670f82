"""The CPU time each task took on a page's main thread, from Chromium's own trace, for tests that hold it down.

A PerformanceObserver 'longtask' entry is wall time. In a suite run the page shares two cores with other browsers and
real agents, and its renderer is descheduled in the middle of a task: run 49 saw a task of 1,006 ms in a test whose
tasks take under 90 ms of CPU on the same machine with four busy loops beside it. Chromium's trace gives every task
its thread time as well (`tdur`: the CPU the thread used in it), which other processes do not lengthen, so a test can
hold the work the page does to a bound, and not the machine's load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # conftest imports this module before it knows Playwright is installed
    from playwright.sync_api import Browser, Page

TASK = "ThreadControllerImpl::RunTask"  # every task a Chromium thread runs, category "toplevel"
MAIN = "CrRendererMain"                 # a renderer's main thread: the page's scripts, style, layout


@dataclass(frozen=True)
class Task:
    cpu_ms: int
    wall_ms: int


class MainThreadTasks:
    """Tasks of every renderer's main thread from `start()` to `stop()`: the test's page is the only one at work."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.tasks: list[Task] | None = None
        self.tracing = False

    def start(self) -> MainThreadTasks:
        self.browser.start_tracing(categories=["toplevel"])  # toplevel only: a few % of the page's time
        self.tracing = True
        return self

    def stop(self) -> list[Task]:
        if self.tasks is None:
            self.tracing = False
            self.tasks = tasks_of(json.loads(self.browser.stop_tracing()))
        return self.tasks

    def close(self) -> None:
        """Stop a trace a failed test left running: the browser takes one at a time, and the next test's would fail."""
        if self.tracing:
            self.tracing = False
            self.browser.stop_tracing()

    def over(self, limit_ms: int) -> list[Task]:
        """The tasks whose CPU time was over `limit_ms`, longest first (stops the trace)."""
        return sorted((t for t in self.stop() if t.cpu_ms > limit_ms), key=lambda t: -t.cpu_ms)


def idle(page: Page) -> None:
    """Wait until the page's main thread is idle (at most 2 s): what it was doing is done, and in the trace."""
    page.evaluate("() => new Promise((done) => requestIdleCallback(() => done(), { timeout: 2000 }))")


def tasks_of(trace: Any) -> list[Task]:
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    mains = {(e["pid"], e["tid"]) for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == MAIN}
    found = [e for e in events if e.get("ph") == "X" and e.get("name") == TASK and (e["pid"], e["tid"]) in mains]
    assert found, "no main-thread tasks in Chromium's trace: was the page at work while it was taken?"
    # Thread time is what makes the bound hold under load; without it the measure would be wall time again.
    # Chromium leaves thread time out of the shortest tasks (a few µs): those count at their wall time.
    return [Task(cpu_ms=round(e.get("tdur", e["dur"]) / 1000), wall_ms=round(e["dur"] / 1000)) for e in found]
