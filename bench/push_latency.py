"""Web Push figures: the time from "agent asks" to the push leaving the hub, and the installed app's cold open with
the hub out of reach.

push: a real hub (`lineup serve`) with Web Push pointed at the loopback push service of the tests
(tests/support/fake_push.py, which checks the VAPID JWT and decrypts every message), D subscribed devices, one agent.
For N approvals, one at a time (each answered once its push is out): the agent's `interaction.requested` sent → the encrypted POST received by the push
service, per device (one clock: time.time() in one process). Whatever the hub does in between is in it: the outbox
row, the action links, the encryption, the signature. The flood rule (three separate pushes a minute per device, then
a digest) does not change what is measured: a digest leaves as fast.

open: Chromium (the headless shell, as the tests) with its own profile folder, at 390×844: the app opened once with
the hub up (its service worker installed, its last state kept), the hub stopped, then R cold starts of the browser on
that profile, each timing navigation start → the last-known inbox (the question's title and the "Last known state"
mark both on screen), from the page's own clock (a MutationObserver, no polling).

    python -m bench.push_latency [--count 100] [--devices 1] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.browsers import ARGS, executable
from tests.support.fake_push import FakePushService
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient

PHONE = {"width": 390, "height": 844}
TITLE = "Deploy the fix?"
SEEN = f"""
(() => {{
  const seen = () => document.querySelector('.last-known-mark')
    && (document.querySelector('#main')?.textContent || '').includes({TITLE!r});
  new MutationObserver((_, observer) => {{
    if (window.__lastKnownAt === undefined && seen()) {{ window.__lastKnownAt = performance.now(); observer.disconnect(); }}
  }}).observe(document, {{ childList: true, subtree: true, characterData: true }});
}})();
"""


def percentiles(values_ms: list[float]) -> str:
    ordered = sorted(values_ms)
    pick = lambda p: ordered[min(len(ordered) - 1, int(p * len(ordered)))]  # noqa: E731
    return (f"n={len(ordered)} P50={statistics.median(ordered):.1f} P95={pick(0.95):.1f} "
            f"P99={pick(0.99):.1f} max={ordered[-1]:.1f} ms")


async def push_run(count: int, devices: int) -> list[float]:
    push = FakePushService()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp) / "hub"
            data_dir.mkdir()
            (data_dir / "lineup.toml").write_text(
                f'[notify]\nrate_per_minute = 1000000\n[notify.webpush]\nendpoints = ["{push.origin}"]\n')
            hub = HubProcess(data_dir).start()
            try:
                subscriptions = []
                for _ in range(devices):
                    token = hub.token()
                    made = push.subscribe()
                    httpx.post(f"{hub.base}/api/push/subscriptions", headers={"Authorization": f"Bearer {token}"},
                               json=made.as_json()).raise_for_status()
                    subscriptions.append(made)
                paired = pair_agent(hub, token, name="bench")
                agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
                app = await LapClient.connect(hub.ws_base, "app", token)
                await app.ok("conversation.create", {"title": "Bench", "agentIds": [paired["agentId"]]},
                             conversationId="c1")
                await app.ok("task.create", {"title": "Bench"}, conversationId="c1", taskId="t1")
                await agent.ok("task.accepted", {}, taskId="t1")
                latencies: list[float] = []
                for n in range(count):
                    before = len(push.pushed)
                    sent = time.time()
                    await agent.ok("interaction.requested", {"interaction": {
                        "id": f"bench-{n}", "type": "approval", "title": f"Approve step {n}?"}}, taskId="t1")
                    deadline = time.monotonic() + 10
                    while len(push.pushed) < before + devices and time.monotonic() < deadline:
                        await asyncio.sleep(0.002)
                    latencies += [(p.received_at - sent) * 1000 for p in push.pushed[before:]]
                    # Answered at once, as a person would: the agent never holds hundreds of open questions.
                    await app.ok("interaction.respond", {"interactionId": f"bench-{n}",
                                                         "response": {"optionId": "reject"}})
                    await asyncio.sleep(0.12)  # under the hub's 10 questions a second per agent (agent_questions_per_second)
                await agent.close()
                await app.close()
            finally:
                hub.stop()
        if push.refused:
            raise SystemExit(f"the push service refused {len(push.refused)}: {push.refused[0]}")
        return latencies
    finally:
        push.close()


async def ask_one(hub: HubProcess, token: str) -> tuple[LapClient, LapClient]:
    paired = pair_agent(hub, token, name="Deployer")
    agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
    app = await LapClient.connect(hub.ws_base, "app", token)
    await app.ok("conversation.create", {"title": "Ops", "agentIds": [paired["agentId"]]}, conversationId="c1")
    await app.ok("task.create", {"title": "Ship it"}, conversationId="c1", taskId="t1")
    await agent.ok("task.accepted", {}, taskId="t1")
    await agent.ok("interaction.requested", {"interaction": {"id": "q1", "type": "approval", "title": TITLE}},
                   taskId="t1")
    return agent, app


def open_run(runs: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        data_dir, profile = Path(tmp) / "hub", Path(tmp) / "profile"
        data_dir.mkdir()
        hub = HubProcess(data_dir).start()
        token = hub.token()
        # The agent's loop runs beside Playwright's (its sync API holds this thread's).
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        clients = asyncio.run_coroutine_threadsafe(ask_one(hub, token), loop).result(30)

        def browser():  # type: ignore[no-untyped-def]
            return playwright.chromium.launch_persistent_context(
                profile, executable_path=executable(), headless=True, args=ARGS, viewport=PHONE,
                base_url=hub.base, service_workers="allow")

        context = browser()
        page = context.new_page()
        page.add_init_script(f"localStorage.setItem('lineup.token', {token!r});")
        page.goto("/")
        page.locator(".connection-indicator[data-connection=live]").wait_for(state="attached", timeout=30_000)
        deadline = time.monotonic() + 30  # polled: wait_for_function evaluates a string, which the app's CSP refuses
        while not page.evaluate("navigator.serviceWorker.controller !== null") and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        page.wait_for_timeout(3000)  # the kept state is saved 1.5 s after the last change
        context.close()
        for client in clients:
            asyncio.run_coroutine_threadsafe(client.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        hub.stop()
        times: list[float] = []
        for _ in range(runs):
            context = browser()
            page = context.pages[0] if context.pages else context.new_page()
            page.add_init_script(SEEN)
            page.goto("/")
            deadline = time.monotonic() + 30
            value = None
            while value is None and time.monotonic() < deadline:
                value = page.evaluate("window.__lastKnownAt ?? null")
                if value is None:
                    page.wait_for_timeout(50)
            context.close()
            if value is None:
                raise SystemExit("the last-known inbox never showed")
            times.append(float(value))
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pushed = asyncio.run(push_run(args.count, args.devices))
    print(f"push ({args.devices} device(s); interaction.requested -> POST at the push service): {percentiles(pushed)}")
    opened = open_run(args.runs)
    print(f"cold open, hub unreachable (navigation -> last-known inbox on screen, Chromium): {percentiles(opened)}")


if __name__ == "__main__":
    main()
