"""The installed app opens without the hub: its service worker keeps the shell, the browser keeps (IndexedDB, per
signed-in device) what the app last showed, and with the hub stopped a reload opens to that inbox, marked "Last known
state, … — the hub is out of reach" with its age, the hub's absence said by the banner as ever. When the hub answers
again the mark goes and the inbox is the hub's own. The hub is really stopped and started again on its address."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.e2e.conftest import PHONE, create_owner, wait_for_js
from tests.e2e.test_notifications import Scene
from tests.support.fixtures import Shots
from tests.support.hubs import HubProcess

# Opened only once the app made it: opening a database that does not exist yet would make an empty one.
KEPT = """indexedDB.databases().then((dbs) => !dbs.some((d) => d.name === 'lineup-last-known') ? null : new Promise((resolve) => {
  const req = indexedDB.open('lineup-last-known');
  req.onsuccess = () => {
    const db = req.result;
    if (!db.objectStoreNames.contains('states')) { db.close(); resolve(null); return; }
    const all = db.transaction('states').objectStore('states').getAll();
    all.onsuccess = () => { db.close(); resolve(all.result.length ? all.result[0].savedAt : null); };
  };
  req.onerror = () => resolve(null);
}))"""


def test_with_the_hub_stopped_a_reload_opens_to_the_last_inbox_marked_with_its_age(
        hub: HubProcess, browser: Browser, shots: Shots) -> None:
    owner = create_owner(hub)
    scene = Scene(hub, owner)
    context = browser.new_context(viewport=PHONE, locale="en-US", base_url=hub.base, service_workers="allow")
    context.set_default_timeout(10_000)
    context.add_init_script(
        f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {owner.token!r});")
    try:
        scene.ask("q1", "Deploy the fix?")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/")
        expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
        expect(page.locator("#main")).to_contain_text("Deploy the fix?")
        wait_for_js(page, "navigator.serviceWorker.controller !== null", 30_000)
        wait_for_js(page, KEPT, 15_000)
        expect(page.locator(".last-known-mark")).to_have_count(0)  # live: nothing is marked

        scene.close()
        hub.stop()
        page.reload()
        mark = page.locator(".last-known-mark")
        expect(mark).to_contain_text(re.compile(r"Last known state, .+ — the hub is out of reach"))
        expect(page.locator("#main")).to_contain_text("Deploy the fix?")
        expect(page.locator(".entry-card.unreachable")).to_have_count(0)
        expect(page.locator(".offline-banner")).to_be_visible()  # not live, and said so
        shots(page, "01-last-known")

        # The age moves on: kept a minute ago, it says so.
        page.evaluate("(() => { const app = document.querySelector('lineup-app'); const w = app.workspace;"
                      " w.set({ lastKnown: { savedAt: new Date(Date.now() - 12 * 60_000).toISOString() } }); })()")
        page.locator("lineup-last-known").evaluate("(el) => el.requestUpdate()")
        expect(mark).to_contain_text("Last known state, 12 minutes ago — the hub is out of reach")

        hub.start()
        expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live", timeout=30_000)
        expect(mark).to_have_count(0)
        expect(page.locator("#main")).to_contain_text("Deploy the fix?")
        assert not errors, errors
    finally:
        context.close()


def test_signing_out_forgets_what_was_kept(hub: HubProcess, browser: Browser) -> None:
    owner = create_owner(hub)
    context = browser.new_context(viewport=PHONE, locale="en-US", base_url=hub.base, service_workers="allow")
    context.set_default_timeout(10_000)
    context.add_init_script(
        f"sessionStorage.getItem('seeded') || (localStorage.setItem('lineup.token', {owner.token!r}),"
        " sessionStorage.setItem('seeded', '1'));")
    try:
        page = context.new_page()
        page.goto("/")
        expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
        wait_for_js(page, KEPT, 15_000)
        page.goto("/#/settings")
        page.locator("button.sign-out").click()
        wait_for_js(page, f"{KEPT}.then((kept) => kept === null)", 15_000)
    finally:
        context.close()
