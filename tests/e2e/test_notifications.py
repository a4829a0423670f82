"""Notifications in the app (docs/notifications.md): an agent's new question pops a toast, counts in the title and the
inbox badge, buzzes where allowed and raises a browser notification whose click opens the task; a reload or a replay
from the start of the log pops nothing again; two tabs show a notification once; the settings page shows the delivery
log with each channel's last error, and its test button's notification arrives as a toast.

The page is on 127.0.0.1, a secure context, so the Notification API is there: the context is granted the
permission and an init script records every Notification the page constructs (and every vibration)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, Owner, api, create_owner, wait_for_js
from tests.support.fixtures import HubFactory, OpenPage, Shots
from tests.support.hubproc import HubProcess, free_port, pair_agent
from tests.support.lap import LapClient

RECORDER = """
(() => {
  window.__notes = [];
  window.__buzz = [];
  const Real = window.Notification;
  if (typeof Real === 'function') {
    class Recorded extends Real {
      constructor(title, options = {}) {
        super(title, options);
        window.__notes.push({ title, options, note: this });
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
    Recorded.requestPermission = (...args) => Real.requestPermission(...args);
    window.Notification = Recorded;
  }
  if (typeof navigator.vibrate === 'function') {
    const real = navigator.vibrate.bind(navigator);
    navigator.vibrate = (pattern) => { window.__buzz.push(pattern); return real(pattern); };
  }
})();
"""
NOTES = "window.__notes.map(({ title, options }) => ({ title, body: options.body, tag: options.tag }))"
LIVE = "document.querySelector('lineup-app').workspace.live"


class AgentLoop:
    """LapClient needs an event loop, and Playwright's sync API holds the main thread's: run one beside it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="agent-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 15.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class Scene:
    """A paired agent "Deployer" working on one task that the app created; it asks approvals on demand."""

    def __init__(self, hub: HubProcess, owner: Owner) -> None:
        self.hub = hub
        self.loop = AgentLoop()
        paired = pair_agent(hub, owner.token, name="Deployer")
        self.agent: LapClient = self.run(LapClient.connect(hub.ws_base, "agent", paired["credential"]))
        self.app: LapClient = self.run(LapClient.connect(hub.ws_base, "app", owner.token))
        self.task_id = "task_notify"
        self.run(self.app.ok("conversation.create", {"title": "Ops", "agentIds": [paired["agentId"]]},
                             conversationId="conv_notify"))
        self.run(self.app.ok("task.create", {"title": "Migrate the database"}, conversationId="conv_notify",
                             taskId=self.task_id))
        self.run(self.agent.ok("task.accepted", {}, taskId=self.task_id))

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run(coro)

    def ask(self, interaction_id: str, title: str, risk: str = "medium") -> None:
        self.run(self.agent.ok("interaction.requested", {"interaction": {
            "id": interaction_id, "type": "approval", "title": title, "risk": risk,
            "description": "Drops 3 tables in production", "details": {"secret_table": "payroll"}}},
            taskId=self.task_id))

    def close(self) -> None:
        for client in (self.agent, self.app):
            self.run(client.close())
        self.loop.close()


@pytest.fixture
def scenes() -> Iterator[Callable[[HubProcess, Owner], Scene]]:
    made: list[Scene] = []

    def make(hub: HubProcess, owner: Owner) -> Scene:
        made.append(Scene(hub, owner))
        return made[-1]

    yield make
    for scene in made:
        scene.close()


@pytest.fixture
def notifying_context(full_browser: Browser) -> Iterator[Callable[[HubProcess, str], BrowserContext]]:
    """A browser context on the hub with the notifications permission granted and Notification recorded, in the full
    Chromium: the headless shell the other browser tests drive refuses notifications whatever the permission."""
    contexts: list[BrowserContext] = []

    def make(hub: HubProcess, token: str) -> BrowserContext:
        context = full_browser.new_context(viewport=DESKTOP, locale="en-US", base_url=hub.base,
                                           service_workers="block")
        context.set_default_timeout(10_000)
        context.grant_permissions(["notifications"], origin=hub.base)
        context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
        context.add_init_script(RECORDER)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


def live(page: Page) -> None:
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")


def toasts(page: Page) -> Any:
    return page.locator("lineup-toasts .toast")


def test_live_notification_toast_title_badge_and_browser_notification(
        hub_factory: HubFactory, open_page: OpenPage, notifying_context: Callable[[HubProcess, str], BrowserContext], scenes: Callable[[HubProcess, Owner], Scene], shots: Shots) -> None:
    hub = hub_factory(start=False)
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    # A webhook nobody listens to (a closed loopback port): its failures show as the channel's last error.
    (hub.data_dir / "lineup.toml").write_text(f'[notify.webhook]\nurl = "http://127.0.0.1:{free_port()}/hook"\n')
    hub.start()
    owner = create_owner(hub)
    scene = scenes(hub, owner)
    # On the Agents page: the inbox (or the task) shows a new question's card itself, with no toast over it.
    page = open_page(hub, path="/#/agents", context=notifying_context(hub, owner.token))
    live(page)
    assert page.evaluate("window.isSecureContext && Notification.permission") == "granted"
    page.locator("main h1").click()  # a tap: browsers allow vibration only after one
    expect(page).to_have_title("LineUp Agents")

    # A new approval arrives live: toast, title count, inbox badge, a buzz and a browser notification.
    scene.ask("int_first", "Run the migration?", risk="high")
    toast = toasts(page)
    expect(toast).to_have_count(1)
    expect(toast).to_have_attribute("data-kind", "waiting_for_me")
    expect(toast.locator(".toast-heading")).to_have_text("Deployer needs your decision")
    expect(toast.locator(".toast-text")).to_have_text("Run the migration?")
    expect(toast.locator(".badge").first).to_have_text("Waiting for you")  # status by icon + word
    expect(toast.locator(".badge svg").first).to_be_attached()
    expect(toast).not_to_contain_text("High risk")  # the risk is on the card (item 4 of "When something goes wrong")
    expect(toast).not_to_contain_text("Drops 3 tables")  # never the interaction's details
    expect(page.locator("lineup-toasts [aria-live='polite']")).to_be_attached()
    expect(page).to_have_title("(1) LineUp Agents")
    expect(page.locator(".inbox-indicator .count")).to_have_text("1")
    wait_for_js(page, "() => window.__notes.length === 1")
    [note] = page.evaluate(NOTES)
    assert note["title"] == "Deployer needs your decision"
    assert "Run the migration?" in note["body"] and "Drops" not in note["body"] and "payroll" not in note["body"]
    assert page.evaluate("window.__buzz") == [180]
    folder = shots(page, "01-toast").parent
    toast.screenshot(path=str(folder / "01-toast-only.png"), animations="disabled")

    # Clicking the browser notification opens the task (the hub's link says #/tasks/<id>; the app's route differs).
    page.evaluate("window.__notes[0].note.dispatchEvent(new Event('click'))")
    expect(page.locator("lineup-task-detail .detail-inner")).to_have_attribute("data-task-id", scene.task_id)
    assert f"task={scene.task_id}" in page.url
    expect(toast).to_have_count(0)  # opened: its toast is gone

    # A second question (the task closed: open, it shows the question, and no toast pops): its toast is dismissed
    # from the keyboard (Escape), and focus stays on the page.
    page.locator("aside.detail .detail-close").click()
    scene.ask("int_second", "Restart the workers?")
    expect(toasts(page)).to_have_count(1)
    expect(page).to_have_title("(2) LineUp Agents")
    toasts(page).locator(".toast-dismiss").focus()
    page.keyboard.press("Escape")
    expect(toasts(page)).to_have_count(0)
    expect(page.locator("#main")).to_be_focused()
    assert page.evaluate("window.__notes.length") == 2

    # A reload resumes from the log's head: no toast and no browser notification again.
    page.reload()
    live(page)
    expect(page).to_have_title("(2) LineUp Agents")
    page.wait_for_timeout(500)
    expect(toasts(page)).to_have_count(0)
    assert page.evaluate("window.__notes.length") == 0

    # A replay from sequence 0, even with the memory of shown ids wiped: the old notifications arrive during
    # catch-up and pop nothing.
    page.evaluate("""() => {
      for (const key of Object.keys(localStorage)) if (key.startsWith('lineup.notified.')) localStorage.removeItem(key);
      window.__replayed = 0;
      window.__decided = 0;  // notification.created events the app is done with: shown, or not
      const workspace = document.querySelector('lineup-app').workspace;
      const decide = workspace._notified.bind(workspace);
      workspace._notified = (note) => decide(note).finally(() => { window.__decided += 1; });
      const live = workspace.live;
      live.addEventListener('event', (e) => { if (e.detail.envelope.type === 'notification.created') window.__replayed += 1; });
      live.stop(); live.status = 'idle'; live.lastSequence = 0; live.start();
    }""")
    head = api(hub, owner.token, "GET", "/api/state")["headSequence"]
    wait_for_js(page, f"() => {LIVE}.status === 'live' && {LIVE}.lastSequence >= {head}")
    assert page.evaluate("window.__replayed") == 2
    wait_for_js(page, "() => window.__decided >= 2")  # both done with: nothing more comes of them
    expect(toasts(page)).to_have_count(0)
    assert page.evaluate("window.__notes.length") == 0

    # Two tabs of one browser, both live: a new notification shows once, not once per tab.
    other = open_page(hub, path="/#/agents", context=page.context)
    live(other)
    scene.ask("int_third", "Rotate the keys?")
    wait_for_js(page, "() => document.title === '(3) LineUp Agents'")
    wait_for_js(other, "() => document.title === '(3) LineUp Agents'")

    def raised() -> int:  # a tab raises after claiming the notification (a Web Lock): asynchronously
        return int(page.evaluate("window.__notes.length") + other.evaluate("window.__notes.length"))

    def until_raised(count: int) -> None:
        deadline = time.monotonic() + 10
        while raised() < count and time.monotonic() < deadline:
            page.wait_for_timeout(50)

    until_raised(1)
    assert (toasts(page).count() + toasts(other).count(), raised()) == (1, 1)
    # A burst, where the two tabs race for each one (localStorage alone reached the other tab too late, in CI);
    # then one more as the sentinel: once it is raised, a second raise of any earlier one would have been too.
    for n in range(4):
        scene.ask(f"int_burst_{n}", f"Burst {n}?")
    wait_for_js(page, "() => document.title === '(7) LineUp Agents'")
    wait_for_js(other, "() => document.title === '(7) LineUp Agents'")
    until_raised(5)
    scene.ask("int_sentinel", "The last one?")
    wait_for_js(page, "() => document.title === '(8) LineUp Agents'")
    wait_for_js(other, "() => document.title === '(8) LineUp Agents'")
    until_raised(6)
    assert raised() == 6
    other.close()


def test_settings_delivery_log_and_test_notification(
        hub_factory: HubFactory, open_page: OpenPage, notifying_context: Callable[[HubProcess, str], BrowserContext], scenes: Callable[[HubProcess, Owner], Scene], shots: Shots) -> None:
    hub = hub_factory(start=False)
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    (hub.data_dir / "lineup.toml").write_text(f'[notify.webhook]\nurl = "http://127.0.0.1:{free_port()}/hook"\n')
    hub.start()
    owner = create_owner(hub)
    scene = scenes(hub, owner)
    scene.ask("int_logged", "Run the migration?", risk="high")
    page = open_page(hub, path="/#/settings", context=notifying_context(hub, owner.token))
    live(page)
    section = page.locator("lineup-notification-settings")

    # Browser notifications: on (the permission is granted), can be turned off and on again from here.
    browser_block = section.locator(".browser-notify")
    expect(browser_block).to_have_attribute("data-enabled", "true")
    expect(browser_block).to_contain_text("On")
    browser_block.get_by_role("button", name="Turn off").click()
    expect(browser_block).to_have_attribute("data-enabled", "false")
    browser_block.get_by_role("button", name="Turn on browser notifications").click()
    expect(browser_block).to_have_attribute("data-enabled", "true")

    # The delivery log: per channel the counts, the last error (the webhook has nobody listening) and the latest.
    inapp = section.locator(".channel[data-channel='inapp']")
    webhook = section.locator(".channel[data-channel='webhook']")
    expect(inapp.locator(".channel-count[data-status='delivered'] .count")).to_have_text("1")
    expect(inapp.locator(".no-error")).to_have_text("No errors")
    expect(webhook.locator(".last-error")).to_contain_text("Last error")
    expect(webhook.locator(".last-error code")).not_to_be_empty()
    expect(page.locator("lineup-toasts .toast")).to_have_count(0)  # the old question pops nothing here

    # The test button: 202, then its notification arrives live as a toast and as a browser notification.
    section.get_by_role("button", name="Send test notification").click()
    expect(section.locator(".test-status")).to_contain_text("Sent")
    toast = page.locator("lineup-toasts .toast[data-kind='test']")
    expect(toast).to_be_visible()
    expect(toast.locator(".toast-heading")).to_have_text("LineUp test notification")
    expect(toast.locator(".badge")).to_have_text("Test")
    wait_for_js(page, "() => window.__notes.length === 1")
    assert page.evaluate(NOTES)[0]["title"] == "LineUp test notification"
    expect(inapp.locator(".channel-count[data-status='delivered'] .count")).to_have_text("2")
    inapp.locator(".recent-deliveries summary").click()
    expect(inapp.locator(".delivery").first).to_contain_text("LineUp test")
    expect(inapp.locator(".delivery").first.locator(".badge")).to_have_text("Delivered")
    webhook.locator(".recent-deliveries summary").click()
    folder = shots(page, "02-settings-with-test-toast").parent
    page.set_viewport_size({"width": DESKTOP["width"], "height": 1700})  # the whole section in view
    section.screenshot(path=str(folder / "02-settings-section.png"), animations="disabled")
    page.set_viewport_size(DESKTOP)

    # In Chinese too: the toast and the section follow the language switch.
    page.locator("lineup-top-bar select").select_option("zh")
    expect(toast.locator(".toast-heading")).to_have_text("LineUp 测试通知")
    expect(section.get_by_role("heading", name="发送记录")).to_be_visible()
    expect(section.get_by_role("button", name="发送测试通知")).to_be_visible()
    shots(page, "03-settings-zh")
    page.set_viewport_size(PHONE)
    expect(toast).to_be_in_viewport()
    shots(page, "04-phone-zh")
    page.set_viewport_size(DESKTOP)

    # Dismissed with its button: gone, and it does not come back on a reload.
    toast.get_by_role("button", name="关闭：LineUp 测试通知").click()
    expect(toast).to_have_count(0)
    page.reload()
    live(page)
    page.wait_for_timeout(300)
    expect(page.locator("lineup-toasts .toast")).to_have_count(0)
