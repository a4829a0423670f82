"""The banner a page shows when it loses its hub says that the hub cannot be reached, and that it is connected again
when it comes back (a phone walkthrough: "Offline. Reconnecting in 0:07" read as if the phone had lost its network).
The real hub, really stopped and started again on the same address; Chromium at phone size."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import PHONE, create_owner
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess


def test_the_banner_names_the_hub_and_says_when_it_is_back(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    page = open_page(hub, viewport=PHONE, token=owner.token)
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    hub.stop()
    banner = page.locator(".offline-banner")
    expect(banner).to_contain_text(re.compile(r"Can’t reach the hub\.\s+(Reconnecting…|Reconnecting in\s\d+:\d\d\.)"))
    expect(banner).not_to_contain_text("Offline")
    shots(page, "01-hub-unreachable")
    hub.start()
    back = page.locator(".connection-back")
    expect(back).to_have_text("Connected to the hub again.", timeout=30_000)
    expect(back).to_have_attribute("role", "status")  # told quietly, not an alert
    expect(page.locator(".offline-banner")).to_have_count(0)
    shots(page, "02-connected-again")
    expect(back).to_have_count(0, timeout=15_000)  # it goes by itself
