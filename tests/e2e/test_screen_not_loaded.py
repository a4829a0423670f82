"""A screen whose code cannot be fetched says so instead of staying blank: away from home, a page without its service
worker's copy of the app cannot fetch a screen it never opened at home (the hub's address is out of reach), and the
settings screen, say, was an empty page with no word. A real hub; the screen's module made unreachable in Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.support.fixtures import OpenPage
from tests.support.hubs import HubProcess


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_screen_that_cannot_be_loaded_says_why(hub: HubProcess, open_page: OpenPage, viewport: ViewportSize) -> None:
    owner = create_owner(hub)
    page = open_page(hub, viewport=viewport, token=owner.token)
    expect(page.locator(".topbar")).to_be_visible()
    page.route("**/components/lineup-settings.js", lambda route: route.abort("internetdisconnected"))
    page.evaluate("window.location.hash = '#/settings'")
    notice = page.locator(".notice-error")
    expect(notice).to_contain_text("This screen could not be loaded")
    expect(notice).to_contain_text("Open it once at home")
