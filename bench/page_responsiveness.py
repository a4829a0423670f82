"""P1, the page stays responsive whatever an agent sends: the longest main-thread task while a conversation opens.

Run: python -m bench.page_responsiveness [--runs 3]

For each hostile message of tests/e2e/hostile_corpus.py (the browser tests' list), and for a conversation of 190
ordinary Markdown messages and one of 20 messages of 256K characters, a real hub on loopback, a real SDK agent that
sends them, and Debian's Chromium: the app opened on another conversation, the browser's own PerformanceObserver
'longtask' entries observed, then the conversation opened until its newest message is on the screen and the
browser is idle. Prints the longest task per case (median of the runs). Target (docs/quality.md P1): none over
200 ms. The browser tests check the same pages against a looser ceiling, since they share two cores with the rest
of the suite; this is the figure that counts, taken on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from tests.e2e.conftest import create_owner
from tests.e2e.hostile_corpus import HOSTILE, TEXT
from tests.e2e.world import Agent
from tests.support.hubproc import HubProcess

TARGET_MS = 200
# The browser's own long tasks (50 ms and more, wall time: the figure P1 names, on a quiet machine), kept in the page.
OBSERVE = """() => { window.__longTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration)); })
    .observe({ type: 'longtask', buffered: false }); }"""
ORDINARY = "Here is **step {n}**:\n\n- read the `schema`\n- write the migration\n\n```python\nx = {n}\n```"


def cases() -> list[tuple[str, list[str]]]:
    made = [(name, [message, "The **newest** message"]) for name, message in HOSTILE]
    made.append(("190-ordinary", [ORDINARY.format(n=n) for n in range(189)] + ["The **newest** message"]))
    made.append(("20-longest", ["a_" * (TEXT // 2 - 8) for _ in range(19)] + ["The **newest** message"]))
    return made


def longest_task(hub: HubProcess, token: str, agent: Agent, messages: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    conversation = agent.conversation("Measured")
    for message in messages:
        agent.say(conversation, message)
    quiet = agent.conversation("Quiet")
    agent.say(quiet, "nothing")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            context = browser.new_context(base_url=hub.base, viewport={"width": 390, "height": 844},
                                          service_workers="block")
            context.add_init_script(f"localStorage.getItem('lineup.token') || "
                                    f"localStorage.setItem('lineup.token', {token!r});")
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.goto(f"/#/conversations/{quiet}")
            page.wait_for_selector(".message.theirs")
            page.evaluate(OBSERVE)
            page.evaluate(f"location.hash = '#/conversations/{conversation}'")
            page.locator(".message.theirs strong").filter(has_text="newest").wait_for()
            page.evaluate("() => new Promise((done) => requestIdleCallback(() => done(), { timeout: 5000 }))")
            return max(page.evaluate("window.__longTasks"), default=0)
        finally:
            browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    hub = HubProcess(Path(tempfile.mkdtemp(prefix="lineup-p1-")) / "hub")
    hub.start()
    worst = 0
    try:
        owner = create_owner(hub)
        agent = Agent(hub, owner.token)
        try:
            print(f"{'case':<18} {'longest task (ms), median of ' + str(args.runs):>34}   runs")
            for name, messages in cases():
                runs = [longest_task(hub, owner.token, agent, messages) for _ in range(args.runs)]
                median = int(statistics.median(runs))
                worst = max(worst, median)
                shown = f"{median}" if median else "none over 50"  # the browser reports tasks of 50 ms and more
                print(f"{name:<18} {shown:>34}   {runs}", flush=True)
        finally:
            agent.close()
    finally:
        hub.stop()
    verdict = "met" if worst <= TARGET_MS else "NOT met"
    print(f"P1: the longest task of any case {worst} ms (target ≤ {TARGET_MS} ms): {verdict}")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
