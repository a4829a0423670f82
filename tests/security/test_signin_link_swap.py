"""In the browser: a sign-in link an agent put in an attachment (`/#signin=<code of another
workspace>`) does not silently sign the owner into that workspace. Real Chromium on the real app: the new tab
asks first, naming the workspace the owner is in; keeping the session is the default (Escape) and leaves both the
session and the link untouched; switching is an explicit choice. A protocol-relative link (`//host/x`) is shown
as another site, with its host.
"""

from __future__ import annotations

import contextlib

import httpx

from tests.e2e.conftest import api, create_owner
from tests.security.support import run_async
from tests.support import browsers
from tests.support.hubproc import HubProcess, pair_agent, run_cli
from tests.support.lap import LapClient

with contextlib.suppress(ImportError):  # the test extra installs it; without it browsers.chromium() skips or fails
    from playwright.sync_api import Route, expect


async def ask(hub: HubProcess, credential: str, attachments: list[dict[str, str]]) -> None:
    agent = await LapClient.connect(hub.ws_base, "agent", credential)
    try:
        await agent.ok("conversation.create", {"title": "Report", "agentIds": []}, conversationId="report")
        await agent.ok("interaction.requested", {"interaction": {
            "id": "look", "type": "review", "title": "Have a look at the report",
            "content": "See the attached report.", "attachments": attachments}},
            conversationId="report")
    finally:
        await agent.close()


def other_workspace_link(hub: HubProcess) -> str:
    """A one-time sign-in code of workspace "Other" (someone else's), as its owner would make one."""
    other = run_cli(hub.data_dir, "token", "--workspace", "Other").stdout.strip()
    url = api(hub, other, "POST", "/api/sign-in-links", {})["url"]
    return str(url.split("#signin=", 1)[1])


def test_a_sign_in_link_from_an_agent_asks_before_replacing_the_session(hub: HubProcess) -> None:
    owner = create_owner(hub, workspace="Demo")
    first, second = other_workspace_link(hub), other_workspace_link(hub)
    run_async(lambda: ask(hub, pair_agent(hub, owner.token, "Reporter")["credential"], [
        {"name": "Report", "url": f"/#signin={first}"},
        {"name": "Mirror", "url": "https://evil.example/x"},  # (the hub refuses "//evil.example/x" now: links.py)
    ]))
    with browsers.chromium() as browser:
        context = browser.new_context(base_url=hub.base, service_workers="block", locale="en-US")
        context.set_default_timeout(10_000)
        context.add_init_script(  # (the new tab's first document, about:blank, has no storage: try)
            f"try {{ localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', "
            f"{owner.token!r}); }} catch {{}}")
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/")
        card = page.locator(".interaction-card[data-type='review'][data-status='pending']")
        expect(card).to_be_visible(timeout=15_000)

        # Another site's link: marked so, its host shown.
        mirror = card.locator(".artifact[data-artifact='Mirror']")
        expect(mirror.locator("a.artifact-link")).to_have_attribute("data-link", "external")
        expect(mirror.locator(".artifact-host")).to_have_text("evil.example")
        expect(card.locator(".artifact[data-artifact='Report'] a.artifact-link")).to_have_attribute(
            "data-link", "hub")

        # The agent's "report" opens in a new tab of this browser: it asks, naming the owner's workspace.
        with context.expect_page() as opened:
            card.locator(".artifact[data-artifact='Report'] a.artifact-link").click()
        tab = opened.value
        tab.on("pageerror", lambda error: errors.append(str(error)))
        question = tab.get_by_role("dialog", name="Switch to another account?")
        expect(question).to_be_visible()
        expect(question).to_contain_text("“Demo”")
        expect(question).to_contain_text("Ada Lovelace")
        assert "signin" not in tab.url  # the code left the address bar at once
        expect(tab.get_by_role("button", name="Keep my session")).to_be_focused()  # the default
        tab.keyboard.press("Escape")
        expect(question).to_be_hidden()
        assert tab.evaluate("localStorage.getItem('lineup.token')") == owner.token
        assert api(hub, owner.token, "GET", "/api/me")["workspace"]["name"] == "Demo"
        # The link was not used: it still works (for whoever it was really meant for).
        redeemed = httpx.post(hub.base + "/api/sign-in-links/redeem", json={"code": first}, timeout=10)
        assert redeemed.status_code == 201, redeemed.text

        # Switching is an explicit choice, and then it does switch.
        tab.goto(f"/#signin={second}")
        tab.get_by_role("button", name="Sign in with the link").click()
        expect(tab.get_by_role("dialog")).to_have_count(0)
        tab.wait_for_function("old => localStorage.getItem('lineup.token') !== old", arg=owner.token)
        swapped = tab.evaluate("localStorage.getItem('lineup.token')")
        assert api(hub, swapped, "GET", "/api/me")["workspace"]["name"] == "Other"
        expect(tab.locator(".topbar")).to_be_visible()
        assert not errors, errors


def test_a_sign_in_link_opened_while_the_app_is_still_entering_is_asked_once_it_shows(hub: HubProcess) -> None:
    """A link opened in a tab whose session is still loading (its first reads under way) was dropped without a word:
    the code left the address bar and nothing asked. Now the same question comes once the session shows."""
    from tests.support.polling import eventually_sync

    owner = create_owner(hub, workspace="Demo")
    code = other_workspace_link(hub)
    with browsers.chromium() as browser:
        context = browser.new_context(base_url=hub.base, service_workers="block", locale="en-US")
        context.set_default_timeout(15_000)
        context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', "
                                f"{owner.token!r});")
        held: list[Route] = []
        page = context.new_page()

        def hold(route: Route) -> None:  # the session's first read waits here (a function: Playwright wraps it)
            held.append(route)

        page.route("**/api/me", hold)
        page.goto("/")
        eventually_sync(lambda: held and page.evaluate("document.querySelector('lineup-app')?.phase") == "loading",
                        what="the app entering, its first read held")
        page.evaluate(f"location.hash = {('#signin=' + code)!r}")
        eventually_sync(lambda: "signin" not in page.evaluate("location.href"), what="the code out of the address bar")
        for route in held:
            route.continue_()
        page.unroute("**/api/me")
        question = page.get_by_role("dialog", name="Switch to another account?")
        expect(question).to_be_visible()
        expect(question).to_contain_text("“Demo”")
        assert page.evaluate("localStorage.getItem('lineup.token')") == owner.token  # nothing switched unasked
        context.close()
