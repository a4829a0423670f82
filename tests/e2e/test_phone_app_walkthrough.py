"""A new person's phone, start to end: trust the hub, install the app, a push for a question, the hub away, the card.

One walk through what a person does with LineUp on a phone, at 390x844 with touch, against a real hub (in this
process, serving https on its port beside plain http with its own name-constrained CA), the full Chromium and a real
agent on the Python SDK:

1. Trust this hub: the phone fetches the hub's CA from the public download the hub's Settings points its QR code at
   (/trust/lineup-hub-ca.crt) and trusts it. A phone's settings app does that import; here Debian's certutil puts it
   in the NSS database of the HOME the phone's Chromium is launched with (test_trust_hub.nss_home), the store Chromium
   on Linux reads. The app then opens at https://localhost:<port>/ with no certificate error, a secure context.
2. Sign in with the account set up on the hub's machine, and install the app: the manifest is served as an installable
   app's (standalone, start_url /) and the service worker controls the page. Playwright cannot press "Add to home
   screen" (that is the browser's own menu); what the installed app is made of, the manifest and the worker that opens
   it without the hub, is here.
3. A task for the agent from Tasks, New task; pushes turned on in Settings. Chromium's own PushManager.subscribe needs
   Google's push service (FCM), which this machine cannot reach, so PushManager.prototype.subscribe (and
   getSubscription) are stubbed to return the subscription a browser would make, its endpoint the loopback push
   service of tests/support/fake_push.py (as tests/e2e/test_web_push.py does); the rest is the app's own path.
4. The agent asks to run a command. The hub encrypts and signs the push; the fake push service checks and decrypts it
   with the subscription's keys, and that very message is delivered to the service worker through Chromium's push
   hook (DevTools Protocol ServiceWorker.deliverPushMessage). The notification it shows (read back with
   registration.getNotifications(): a system notification is not in a screenshot) has the question's declining
   option (the SDK's "Reject": the Deny of the rule) and Open only: no approving action for a command, which the
   app shows whole.
5. The hub stops; the app, opened again at its start_url, opens to the last-known inbox, the question in it, marked
   with its age.
6. The hub starts again; a tap on the notification (the worker's own notificationclick handler called with it: a
   click on a system notification cannot be scripted) opens that card; it is answered, Reject, in the app, and the
   agent gets the no.

Screenshots of every step go to tests/e2e/artifacts/<test>/."""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, Playwright, expect

from hub.sdk import AgentClient, Outcome, TaskHandle, pair
from tests.e2e.conftest import PHONE, api, create_owner, wait_for_js
from tests.e2e.flows import go, sign_in
from tests.e2e.test_last_known_state import KEPT
from tests.e2e.test_trust_hub import nss_home
from tests.e2e.test_web_push import NOTIFICATIONS, Worker, notifications, stub_push_manager
from tests.integration.test_notifications import write_config
from tests.support import browsers
from tests.support.fake_push import FakePushService
from tests.support.fixtures import HubFactory, Shots

QUESTION = "Run the database migration?"
COMMAND = "psql -f migrations/0042_drop_old_tables.sql prod"
WHAT_TO_DO = "Migrate the orders database"

# The inbox's "Waiting for me" as the app kept it for when the hub is out of reach (test_last_known_state.KEPT gives
# only when it was kept): the question is in the kept interactions before the inbox is read again and kept with it.
KEPT_WAITING = KEPT.replace("all.result[0].savedAt", "JSON.stringify(all.result[0].state.inbox.waitingForMe)")


class SdkAgent:
    """An agent on the Python SDK, on an event loop of its own thread: it accepts its task, asks to run COMMAND when
    told to, and ends the task by the answer. Quick to reconnect, so it is back soon after the hub."""

    def __init__(self, hub_base: str, code: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.accepted, self.ask, self.answered = threading.Event(), threading.Event(), threading.Event()
        self.task_id = ""
        self.outcome: Outcome | None = None
        credential = self.run(pair(hub_base, code, name="Deployer", runtime="test-deployer"))
        self.client = AgentClient(credential, runtime="test-deployer", backoff_initial_s=0.2, backoff_max_s=1.0)
        self.client.on_task(self._work)
        self.run(self.client.start())

    def run(self, coro: Coroutine[Any, Any, Any], timeout_s: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)

    async def _work(self, task: TaskHandle) -> None:
        await task.accept()
        self.task_id = task.id
        self.accepted.set()
        await asyncio.to_thread(self.ask.wait, 300)
        self.outcome = await task.ask_approval(QUESTION, "The old order tables go; the new ones take their rows.",
                                               command=COMMAND)
        self.answered.set()
        if self.outcome.approved:
            await task.succeed("Migrated")
        else:
            await task.fail("declined", "The person said no: nothing was run")

    def close(self) -> None:
        try:
            self.run(self.client.close())
        finally:
            self.ask.set()  # a handler stopped before it was told to ask leaves no thread waiting behind it
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


def wait_for(event: threading.Event, what: str, timeout_s: float = 60) -> None:
    assert event.wait(timeout_s), f"{what}: not within {timeout_s} s"


def installability_errors(page: Page) -> list[dict[str, Any]]:
    """What Chromium says keeps it from offering to install the page as an app (empty: installable)."""
    cdp = page.context.new_cdp_session(page)
    try:
        return list(cdp.send("Page.getInstallabilityErrors")["installabilityErrors"])
    finally:
        cdp.detach()


def test_a_new_persons_phone_trusts_installs_gets_a_push_opens_without_the_hub_and_answers_from_it(
        hub_factory: HubFactory, playwright: Playwright, tmp_path: Path, shots: Shots) -> None:
    push = FakePushService()
    agent: SdkAgent | None = None
    phone_browser = None
    try:
        hub = hub_factory(start=False)
        write_config(hub, f'[notify.webpush]\nendpoints = ["{push.origin}"]\n')
        hub.start()
        owner = create_owner(hub)  # set up on the hub's own machine (first run, from loopback)
        origin = f"https://localhost:{hub.port}"

        # 1. Trust this hub: the certificate the QR code on the hub's machine points to, fetched as a phone does
        # (no sign-in), and trusted in the phone's certificate store.
        download = httpx.get(f"{hub.base}/trust/lineup-hub-ca.crt", timeout=10)
        assert download.status_code == 200 and download.headers["content-type"] == "application/x-x509-ca-cert"
        certificate = tmp_path / "lineup-hub-ca.crt"
        certificate.write_bytes(download.content)
        home = nss_home(tmp_path / "phone-home", certificate)
        phone_browser = playwright.chromium.launch(executable_path=browsers.executable(full=True), headless=True,
                                                   args=browsers.ARGS, env={**os.environ, "HOME": str(home)})
        context = phone_browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US",
                                            base_url=origin, service_workers="allow")
        context.set_default_timeout(15_000)
        context.grant_permissions(["notifications"], origin=origin)
        subscription = push.subscribe()
        context.add_init_script(stub_push_manager(subscription))
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        opened = page.goto("/")
        assert opened is not None and opened.ok
        assert page.evaluate("[window.isSecureContext, location.protocol]") == [True, "https:"]
        tls: Mapping[str, object] = opened.security_details() or {}
        assert str(tls.get("issuer", "")).startswith("LineUp hub CA"), tls  # the hub's own CA vouched for it

        # 2. Signed in; the app installed: its manifest, and the worker that controls the page.
        expect(page.get_by_role("heading", name="Sign in to LineUp")).to_be_visible()
        shots(page, "01-sign-in-over-https")
        sign_in(page, owner)
        wait_for_js(page, "navigator.serviceWorker.controller !== null", 30_000)
        manifest = page.evaluate("fetch(document.querySelector('link[rel=manifest]').href).then((r) => r.json())")
        assert (manifest["display"], manifest["start_url"], manifest["scope"]) == ("standalone", "/", "/")
        # Chromium's own check before it offers to install: nothing missing but a profile of one's own (a Playwright
        # context is an incognito one, where no app is installed).
        assert [e["errorId"] for e in installability_errors(page)] == ["in-incognito"]
        expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
        shots(page, "02-signed-in-installed")

        # 3. The agent, and a task for it from the Tasks page.
        code = api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "Deployer"})["code"]
        agent = SdkAgent(hub.base, code)
        go(page, "Tasks", phone=True)
        page.get_by_role("button", name="New task").click()
        form = page.locator("lineup-new-task form")
        expect(form).to_contain_text("For Deployer")  # the one agent: named, nothing to choose
        form.get_by_label("What should it do?").fill(WHAT_TO_DO)
        form.get_by_role("button", name="Create task").click()
        expect(page.locator("#task-detail-heading")).to_have_text(WHAT_TO_DO)
        wait_for(agent.accepted, "the agent accepting its task")
        task_id = agent.task_id
        shots(page, "03-task-created")

        # Pushes on, in Settings: the last thing done before the phone goes back in the pocket.
        page.goto("/#/settings")
        worker = Worker(page, origin)
        block = page.locator(".web-push")
        expect(block).to_have_attribute("data-support", "ready")
        block.get_by_role("button", name="Get pushes on this device").click()
        expect(block).to_have_attribute("data-subscribed", "true")
        expect(block.locator(".push-device")).to_contain_text("This device")
        block.scroll_into_view_if_needed()
        shots(page, "04-pushes-on")

        # 4. The agent asks to run a command: the push the hub sent, decrypted by the push service, woke the worker.
        agent.ask.set()
        pushed = push.wait_for(lambda: push.for_(subscription), timeout=60)[0].payload
        assert not push.refused, push.refused
        worker.deliver(pushed)
        shown = wait_for_js(page, f"({NOTIFICATIONS}).then((ns) => ns.length ? ns : null)", 20_000)
        # Its declining option (the SDK's "Reject", the Deny of the rule) and Open: no yes for a command.
        assert [(n["title"], n["actions"], n["url"]) for n in shown] == [
            ("Deployer needs your decision", ["Reject", "Open"], f"/#/tasks/{task_id}")], shown
        assert "Open LineUp to see what it would run and approve there." in shown[0]["body"], shown[0]["body"]
        assert "psql" not in shown[0]["body"] and "0042" not in shown[0]["body"], shown[0]["body"]
        shots(page, "05-push-arrived")

        # 5. The hub away; the app opened again from its icon (its start_url) opens to what it last showed.
        wait_for_js(page, f"{KEPT_WAITING}.then((kept) => kept && kept.includes({QUESTION!r}))", 30_000)
        hub.stop()
        reopened = page.goto("/")
        assert reopened is not None and reopened.from_service_worker  # the worker's kept shell: no hub answered
        mark = page.locator(".last-known-mark")
        expect(mark).to_contain_text(re.compile(r"Last known state, .+ — the hub is out of reach"))
        expect(page.locator("#main")).to_contain_text(QUESTION)
        expect(page.locator(".offline-banner")).to_be_visible()
        shots(page, "06-last-known-inbox")

        # 6. The hub back; a tap on the notification opens that card; Reject, in the app.
        hub.start()
        expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live", timeout=30_000)
        expect(mark).to_have_count(0)
        assert [n["url"] for n in notifications(page)] == [f"/#/tasks/{task_id}"]  # kept through all that
        sw = next(w for w in reversed(context.service_workers) if w.url.startswith(origin))
        sw.evaluate("self.registration.getNotifications()"
                    ".then(([n]) => onNotificationClick({ notification: n, action: '' }))")
        expect(page).to_have_url(f"{origin}/#/tasks/{task_id}")
        card = page.locator(".interaction-card[data-status='pending']").filter(has_text=QUESTION)
        expect(card).to_be_visible()
        expect(card).to_contain_text(COMMAND)  # the command shown whole, where the notification only said Open
        assert notifications(page) == []
        shots(page, "07-card-opened-from-the-push")
        reject = card.locator("button[data-option='reject']")
        reject.scroll_into_view_if_needed()
        reject.tap()
        answered = page.locator(".interaction-card").filter(has_text=QUESTION)
        expect(answered.locator(".card-head .badge").first).to_have_text("Rejected")
        wait_for(agent.answered, "the agent hearing the answer")
        assert agent.outcome is not None and not agent.outcome.approved and agent.outcome.option_id == "reject"
        shots(page, "08-rejected")
        # The agent took the no: it ran nothing and ended its task saying so, which the task shows.
        task = api(hub, owner.token, "GET", f"/api/tasks/{task_id}")
        task = task.get("task", task)
        assert task["status"] == "failed", task
        page.locator("#task-detail-heading").scroll_into_view_if_needed()
        expect(page.locator("aside.detail")).to_contain_text("The person said no: nothing was run")
        shots(page, "09-task-ended")
        assert not errors, errors
    finally:
        if agent is not None:
            agent.close()
        if phone_browser is not None:
            phone_browser.close()
        push.close()
