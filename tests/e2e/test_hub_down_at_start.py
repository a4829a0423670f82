"""Issue "When something goes wrong, the person sees it", item 5: a page opened while the hub is down (a reload from
the browser's copy of the app, a phone waking up on another network) said "The hub cannot be reached" with a "Try
again" button that reloaded the page, and nothing else: it never tried by itself.

Now it tries again by itself, later and later, with a visible countdown, says when this browser last reached the
hub, and comes back without a reload once the hub answers. The page comes from the app's service worker (sw.js, the
copy a browser keeps on localhost or over TLS; the other browser tests block it); the hub itself is really stopped,
then started again on the same address."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.conftest import PHONE, create_owner, wait_for_js
from tests.support.fixtures import Shots
from tests.support.hubs import HubProcess


def kept_app(browser: Browser, hub: HubProcess, token: str, locale: str) -> BrowserContext:
    """A phone's browser that opened the app once with the hub up: its service worker keeps the app's files."""
    context = browser.new_context(viewport=PHONE, locale=locale, base_url=hub.base, service_workers="allow")
    context.set_default_timeout(10_000)
    context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
    page = context.new_page()
    page.goto("/")
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    wait_for_js(page, "navigator.serviceWorker.controller !== null", 20_000)
    # A device that kept no state of its own (test_last_known_state.py has one that did): deleted once the page closes.
    page.evaluate("indexedDB.deleteDatabase('lineup-last-known'), null")
    page.close()
    return context


def api_calls(page: Page) -> int:
    return int(page.evaluate("performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/me')).length"))


def test_a_page_opened_while_the_hub_is_down_retries_by_itself_and_comes_back(
        hub: HubProcess, browser: Browser, shots: Shots) -> None:
    owner = create_owner(hub)
    english = kept_app(browser, hub, owner.token, "en-US")
    chinese = kept_app(browser, hub, owner.token, "zh-CN")
    try:
        hub.stop()
        page = english.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/")
        card = page.locator(".entry-card.unreachable")
        expect(card.get_by_role("heading", name="The hub cannot be reached")).to_be_visible()
        retry = card.locator(".unreachable-retry")
        expect(retry).to_contain_text(re.compile(r"tries again by itself in\s0:0\d"))
        expect(retry).to_have_attribute("data-attempts", re.compile(r"[1-9]"))
        expect(card.locator(".unreachable-last")).to_contain_text("Last reached:")
        shots(page, "01-unreachable")
        # It tries again by itself (no click, no reload), and the countdown starts over, longer.
        page.evaluate("window.__same_page = true")
        attempts = int(retry.get_attribute("data-attempts") or 0)
        tries = api_calls(page)
        deadline = time.monotonic() + 15
        while api_calls(page) <= tries and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert api_calls(page) > tries
        expect(retry).to_have_attribute("data-attempts", str(attempts + 1), timeout=20_000)
        expect(retry).to_contain_text(re.compile(r"tries again by itself in\s0:\d\d"))

        # In Chinese too.
        zh = chinese.new_page()
        zh.goto("/")
        expect(zh.locator(".entry-card.unreachable h1")).to_have_text("无法连接到 Hub")
        expect(zh.locator(".unreachable-retry")).to_contain_text("后自动重试")
        expect(zh.locator(".unreachable-last")).to_contain_text("上次连接成功")
        shots(zh, "02-unreachable-zh")

        # The hub is back: the page comes back by itself, the same page (no reload), live.
        hub.start()
        expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live", timeout=30_000)
        expect(page.locator("#main h1")).to_have_text("Inbox")
        assert page.evaluate("window.__same_page") is True
        assert not errors, errors
        shots(page, "03-back")
    finally:
        english.close()
        chinese.close()
