"""Sign out ends the session on the hub (issue "approve by mistake", item 6), in Chromium against a real hub.

Clicking Sign out in Settings tells the hub first (POST /api/devices/current/revoke), so the old token is refused
there; when the hub cannot be told, the page signs out all the same and says what still works and where to revoke
it. In relay mode (docs/relay.md, "The app in relay mode") the relay carries no HTTP: the page tries the hub's own
address, signs out locally when it does not answer, says so, and the device revoked from another one loses its
relay access with it. Before, the page only forgot its token: the token went on answering 200.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.e2e.conftest import PHONE, create_owner
from tests.e2e.test_relay_mode import APP, MANAGER, Background, relay_toml
from tests.support.fake_wukong import FakeWuKong
from tests.support.fixtures import HubFactory, OpenPage, Shots
from tests.support.hubproc import HubProcess, run_cli
from tests.support.polling import eventually_sync as until

NOT_TOLD = "the hub could not be told"


def me(hub: HubProcess, token: str) -> httpx.Response:
    return httpx.get(hub.base + "/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)


def sign_out_from_settings(page: Page) -> None:
    page.goto("/#/settings")
    expect(page.locator("lineup-settings")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()


def test_sign_out_revokes_the_token_on_the_hub(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    page = open_page(hub, token=owner.token)
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    assert me(hub, owner.token).status_code == 200
    sign_out_from_settings(page)
    expect(page.get_by_role("heading", name="Sign in to LineUp")).to_be_visible()
    expect(page.locator("lineup-sign-in .notice")).to_have_count(0)  # the hub was told: nothing to say
    assert page.evaluate("localStorage.getItem('lineup.token')") is None
    refused = me(hub, owner.token)  # before: 200, the token still worked on the hub
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    shots(page, "01-signed-out")


def test_sign_out_when_the_hub_cannot_be_told_says_so(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    page = open_page(hub, token=owner.token)
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    page.route("**/api/devices/current/revoke", lambda route: route.abort("connectionrefused"))
    sign_out_from_settings(page)
    expect(page.get_by_role("heading", name="Sign in to LineUp")).to_be_visible()
    notice = page.locator("lineup-sign-in .notice")
    expect(notice).to_contain_text("Signed out on this device, but " + NOT_TOLD)
    expect(notice).to_contain_text("Signed-in devices")
    assert page.evaluate("localStorage.getItem('lineup.token')") is None
    assert me(hub, owner.token).status_code == 200  # what the notice says: it still works there
    shots(page, "02-hub-not-told")


# ---- relay mode ------------------------------------------------------------------------------------------------

@pytest.fixture
def background() -> Iterator[Background]:
    loop = Background()
    yield loop
    loop.close()


def test_sign_out_in_relay_mode(
        hub_factory: HubFactory, browser: Browser, open_page: OpenPage, background: Background, shots: Shots) -> None:
    fake = background.run(FakeWuKong("compat", manager_token=MANAGER).start())
    context = None
    try:
        hub: HubProcess = hub_factory(start=False)
        hub.data_dir.mkdir(parents=True)
        phone = run_cli(hub.data_dir, "token").stdout.strip()
        laptop = run_cli(hub.data_dir, "token").stdout.strip()
        (hub.data_dir / "lineup.toml").write_text(relay_toml(fake))
        hub.start()
        on_phone, on_laptop = ({"Authorization": f"Bearer {t}"} for t in (phone, laptop))
        until(lambda: httpx.get(hub.base + "/api/relay", headers=on_phone).json()["status"]["state"] == "connected",
              what="the hub's uplink to connect")
        # At home the phone took relay access (Settings → "Use this phone away from home"), saved as the app saves it.
        issued = httpx.post(hub.base + "/api/relay/devices", json={}, headers=on_phone, timeout=10).json()
        phone_me = me(hub, phone).json()
        saved: dict[str, Any] = {**issued, "deviceId": f"lineup-web-{phone_me['deviceId']}", "me": phone_me,
                                 "savedAt": "2026-01-01T00:00:00Z"}

        # Away from home: the hub's address does not answer the page; it runs through the relay.
        context = browser.new_context(viewport=PHONE, locale="en-US", base_url=hub.base, service_workers="block")
        context.set_default_timeout(10_000)
        context.add_init_script(f"localStorage.setItem('lineup.token', {phone!r}); "
                                f"localStorage.setItem('lineup.relay', {json.dumps(json.dumps(saved))});")

        def unreachable(route: Route) -> None:
            route.abort("connectionrefused")

        for pattern in ("**/api/**", "**/-/health"):
            context.route(pattern, unreachable)
        page = open_page(hub, context=context, path="/#/settings")
        expect(page.locator(".relay-banner")).to_contain_text("connected through the relay")
        until(lambda: fake.online("alice"), what="the page's relay session")
        assert page.evaluate(f"{APP}.live.mode") == "relay"
        page.get_by_role("button", name="Sign out").click()

        # Signed out here, and told that the hub was not: the page names where to revoke the device.
        notice = page.locator(".entry-card .notice")
        expect(notice).to_contain_text(NOT_TOLD)
        expect(notice).to_contain_text("Signed-in devices")
        assert page.evaluate("localStorage.getItem('lineup.token')") is None
        assert page.evaluate("localStorage.getItem('lineup.relay')") is None
        until(lambda: not fake.online("alice"), what="the page's relay session to end")
        shots(page, "03-relay-signed-out")

        # From the laptop, as the notice says: revoking the phone ends its relay access too (before, the phone's
        # WuKongIM token kept working until revoked separately).
        assert fake.tokens[("alice", 1)] == issued["token"]
        answer = httpx.post(f"{hub.base}/api/devices/{phone_me['deviceId']}/revoke", json={}, headers=on_laptop,
                            timeout=20)
        assert answer.status_code == 200 and answer.json()["relayAccess"] == "revoked", answer.text
        assert fake.tokens[("alice", 1)] != issued["token"]
        assert me(hub, phone).status_code == 401
    finally:
        if context is not None:
            context.close()
        background.run(fake.stop())
