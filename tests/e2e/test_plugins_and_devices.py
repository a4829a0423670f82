"""Plugin UI modules (a failing one is named, the rest works), signing a phone in with a one-time link shown as a
QR code, the devices list with revoke, and streamed text appearing as it arrives."""

from __future__ import annotations

import json
import re
import time

from playwright.sync_api import Route, expect

from tests.e2e.conftest import PHONE, api, create_owner
from tests.e2e.flows import open_agent_conversation
from tests.support.fixtures import AskerAgent, HubFactory, OpenPage, Shots
from tests.support.hubproc import free_port
from tests.support.hubs import HubProcess

GOOD_MODULE = """
export function register({ registry }) {
  document.documentElement.dataset.pluginLoaded = 'yes';
  registry.registerInteractionCard('sketch', 'plugin-sketch-card');
}
"""


def test_a_failing_ui_module_is_named_and_the_app_works(hub: HubProcess, open_page: OpenPage) -> None:
    owner = create_owner(hub)
    page = open_page(hub, token=owner.token, path="/-/health")

    def plugins(route: Route) -> None:
        # The hub does not list UI modules yet (the tools issue adds them): answer as it will.
        described = json.loads(route.fetch().text())
        described["uiModules"] = [{"name": "broken-plugin", "url": "/plugins/broken/ui.js"},
                                  {"name": "good-plugin", "url": "/plugins/good/ui.js"}]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(described))

    page.route("**/-/plugins.json", plugins)
    page.route("**/plugins/good/ui.js", lambda route: route.fulfill(status=200, content_type="text/javascript",
                                                                    body=GOOD_MODULE))
    page.goto("/#/settings")
    modules = page.locator(".plugin-module")
    expect(modules).to_have_count(2)
    expect(modules.filter(has_text="broken-plugin")).to_have_attribute("data-module-status", "failed")
    expect(modules.filter(has_text="broken-plugin")).to_contain_text("Failed")
    expect(modules.filter(has_text="good-plugin")).to_have_attribute("data-module-status", "loaded")
    assert page.evaluate("document.documentElement.dataset.pluginLoaded") == "yes"
    page.locator("#sidebar").get_by_role("link", name=re.compile("^Inbox")).click()
    expect(page.get_by_role("heading", name="Welcome to LineUp")).to_be_visible()


def test_sign_in_on_a_phone_with_a_qr_code_then_revoke_it(hub_factory: HubFactory, open_page: OpenPage, shots: Shots) -> None:
    # The test hub listens on loopback only, which no phone reaches: `public_url` says how this "phone" does
    # (without it the app says the hub has no LAN address: tests/e2e/test_device_addresses.py).
    hub = hub_factory(start=False)
    hub.port = free_port()
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    (hub.data_dir / "lineup.toml").write_text(f'[notify]\npublic_url = "{hub.base}"\n')
    hub.start()
    owner = create_owner(hub)
    desk = open_page(hub, token=owner.token, path="/#/settings")
    desk.get_by_role("button", name="Show the sign-in code").click()
    expect(desk.locator("figure.qr svg")).to_be_visible()
    expect(desk.locator(".phone-sign-in .countdown")).to_contain_text(re.compile(r"Valid for (10:00|9:\d\d) more"))
    url = desk.locator(".sign-in-url").inner_text()
    assert re.fullmatch(re.escape(hub.base) + r"/#signin=\S+", url), url
    shots(desk, "01-qr")

    phone = open_page(hub, viewport=PHONE, path=url.removeprefix(hub.base))
    expect(phone.locator(".topbar")).to_be_visible()
    assert "signin" not in phone.url  # the one-time code left the address bar at once
    assert phone.evaluate("localStorage.getItem('lineup.token')")
    expect(phone.locator(".agent-indicator")).to_have_text(re.compile("No agent"))
    shots(phone, "02-phone-signed-in")

    desk.get_by_role("button", name="Done").click()
    desk.reload()
    devices = desk.locator(".device")
    expect(devices).to_have_count(2)  # this browser (signed in at setup) and the phone
    expect(devices.filter(has_text="test setup")).to_contain_text("This device")
    phone_row = devices.filter(has_text="Chrome on Linux")
    expect(phone_row).to_have_count(1)
    phone_row.get_by_role("button", name=re.compile("Revoke")).click()
    phone_row.get_by_role("button", name="Yes, sign it out").click()
    expect(phone_row).to_contain_text("Revoked")
    # The phone's live connection is closed by the hub (4401): it is signed out and told why.
    expect(phone.get_by_role("heading", name="Sign in to LineUp")).to_be_visible(timeout=10_000)
    expect(phone.get_by_role("alert")).to_contain_text("This device was signed out")


def test_streamed_text_appears_as_it_arrives(hub: HubProcess, open_page: OpenPage, asker_agent: AskerAgent) -> None:
    owner = create_owner(hub)
    asker_agent(hub, api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"])
    deadline = time.monotonic() + 20
    while not any(a["status"] == "online" for a in api(hub, owner.token, "GET", "/api/agents")["agents"]):
        assert time.monotonic() < deadline, "the asker agent did not come online"
        time.sleep(0.1)
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    page.locator("lineup-composer textarea").fill("Stream me something")
    page.keyboard.press("Enter")
    streaming = page.locator(".message.theirs.streaming")
    expect(streaming).to_contain_text("Streaming a long")
    partial = streaming.locator(".message-body").inner_text()
    assert "watched" not in partial  # part of the text, shown before the message is complete
    expect(streaming.locator(".badge")).to_have_text("Writing…")
    done = page.locator(".message.theirs").filter(has_text="so that it can be watched")
    expect(done).not_to_have_class(re.compile("streaming"), timeout=10_000)
    expect(page.locator(".message.theirs")).to_have_count(1)
