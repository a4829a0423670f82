"""The main-thread measure the responsiveness tests rely on (tests/e2e/main_thread.py) counts work, not waiting.

A page that computes for most of a second has a task over the bound; a page whose thread is held a second without
using the CPU (a synchronous request, standing for a renderer the machine's load has descheduled) has a task a
second long in wall time that is not over the bound. Without the first, a test of it would pass whatever the page
did.
"""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Route

from tests.e2e.conftest import wait_for_js
from tests.support.fixtures import OpenPage
from tests.support.hubproc import HubProcess

BOUND_MS = 200
HELD_S = 1.0

# A fixed amount of work, not a fixed time: in a suite run a second of wall time got the renderer 181 ms of CPU.
# 60 million steps are about 800 ms of CPU on this machine (13 ns a step in Node 24), over the bound on one 3x faster.
BUSY = """() => setTimeout(() => {
  let x = 1;
  for (let i = 0; i < 60_000_000; i++) x = (x * 1103515245 + 12345) % 2147483648;
  window.__busyDone = x + 1;
}, 0)"""

HELD = """() => setTimeout(() => {
  const request = new XMLHttpRequest();
  request.open('GET', '/held-answer', false);  // synchronous: the thread waits, and uses no CPU
  request.send();
  window.__heldDone = request.status;
}, 0)"""


def test_work_on_the_main_thread_is_counted_and_waiting_is_not(hub: HubProcess, open_page: OpenPage,
                                                              main_thread: Any) -> None:
    page = open_page(hub)
    page.wait_for_load_state("load")

    def held(route: Route) -> None:
        time.sleep(HELD_S)
        route.fulfill(status=200, body="ok")

    page.route("**/held-answer", held)
    tasks = main_thread()
    page.evaluate(HELD)
    wait_for_js(page, "window.__heldDone === 200", timeout_ms=20_000)
    page.evaluate(BUSY)
    wait_for_js(page, "window.__busyDone > 0", timeout_ms=60_000)
    everything = tasks.stop()
    over = tasks.over(BOUND_MS)
    assert len(over) == 1, f"the busy second is the one task over {BOUND_MS} ms of CPU: {sorted(everything, key=lambda t: -t.wall_ms)[:4]}"
    assert over[0].wall_ms >= over[0].cpu_ms
    waited = [t for t in everything if t.wall_ms >= HELD_S * 1000 and t not in over]
    assert waited and all(t.cpu_ms < BOUND_MS for t in waited), f"the held second is not counted: {waited}"


def test_a_trace_a_failed_test_left_running_does_not_stop_the_next(main_thread: Any) -> None:
    """The browser takes one trace at a time: the fixture stops one its test did not read (the test failed first)."""
    left = main_thread()
    left.close()  # what the fixture does when the test ends
    assert not left.tracing
    main_thread().close()  # the browser takes a new trace: the first is stopped
