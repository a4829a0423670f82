"""Issue "When something goes wrong, the person sees it", item 11, and the "New conversation" left-over: the task
filter tabs keep one row on a phone (they wrapped onto three); a desktop shows no empty 380 px "Choose a task…"
column when no task is chosen; no name said twice ("Demo agent · Demo agent" in the conversation list, the
conversation's title and its agent chip); each conversation row shows its newest message; "New conversation" offers
the online agents first and never a revoked one. A real hub, the real demo agent, Chromium at 390×844 and 1280×800."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import go, send_task
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubproc import pair_agent
from tests.support.hubs import HubProcess

ROW = """(() => {
  const nav = document.querySelector('.filters');
  const tabs = [...nav.querySelectorAll('.filter')].map((t) => t.getBoundingClientRect());
  return { tops: [...new Set(tabs.map((t) => Math.round(t.top)))], height: nav.getBoundingClientRect().height,
           page: document.documentElement.scrollWidth, screen: innerWidth, classes: nav.className };
})()"""


def in_view(page: Page, selector: str) -> bool:
    return bool(page.evaluate("""(selector) => {
      const el = document.querySelector(selector).getBoundingClientRect();
      const nav = document.querySelector('.filters').getBoundingClientRect();
      return el.left >= nav.left - 0.5 && el.right <= nav.right + 0.5;
    }""", selector))


def test_phone_task_filters_keep_one_row(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    for locale, waiting in (("en-US", "Waiting for me"), ("zh-CN", "等待我")):
        page = open_page(hub, viewport=PHONE, token=owner.token, locale=locale, path="/#/tasks")
        expect(page.locator(".filters .filter")).to_have_count(5)
        row = page.evaluate(ROW)
        assert len(row["tops"]) == 1 and row["height"] <= 48, (locale, row)
        assert row["page"] <= row["screen"], (locale, row)
        if "more-after" in row["classes"]:  # more tabs than the screen holds: the edge says so, and they scroll
            page.locator(".filter[data-filter='cancelled']").click()
            expect(page.locator(".filter[data-filter='cancelled']")).to_have_attribute("aria-current", "page")
            assert in_view(page, ".filter[data-filter='cancelled']"), locale
        # Opened on a filter further along, its tab is scrolled into view.
        page.goto(f"{hub.base}/#/tasks/waiting")
        expect(page.locator(".filter[data-filter='waiting']")).to_have_attribute("aria-current", "page")
        expect(page.locator(".filter[data-filter='waiting']")).to_contain_text(waiting)
        assert in_view(page, ".filter[data-filter='waiting']"), locale
        assert len(page.evaluate(ROW)["tops"]) == 1
        shots(page, f"filters-{locale}")


def test_desktop_columns_names_previews_and_new_conversation(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    # An agent paired first that never came online, and one revoked: the demo agent (online) is offered first.
    pair_agent(hub, owner.token, name="Aardvark")
    revoked = pair_agent(hub, owner.token, name="Gone agent")
    api(hub, owner.token, "POST", f"/api/agents/{revoked['agentId']}/revoke", {})
    demo_agents(hub, api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(
            a["name"] == "Demo agent" and a["status"] == "online" for a in api(hub, owner.token, "GET", "/api/agents")["agents"]):
        time.sleep(0.1)
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    go(page, "Agents")
    page.locator(".agent-card").filter(has_text="Demo agent").get_by_role("button", name="Message").click()
    expect(page.locator("lineup-composer textarea")).to_be_visible()
    conversation_url = page.url

    # The conversation's title is the agent's name: its chip shows the status, not the name again.
    head = page.locator(".conversation-head")
    expect(head.locator("h1")).to_have_text("Demo agent")
    expect(head.locator(".agent-chip [data-agent-status]")).to_have_text("Online")
    assert head.inner_text().count("Demo agent") == 1, head.inner_text()

    # No empty task column beside the conversations or the tasks while no task is chosen; there once one is.
    for place, path in (("Conversations", "/#/conversations"), ("Tasks", "/#/tasks"), ("the conversation", None)):
        page.goto(hub.base + (path or conversation_url.split(hub.base, 1)[1]))
        expect(page.locator("aside.detail")).to_be_hidden()
        main = page.locator("#main").bounding_box()
        assert main and main["width"] >= DESKTOP["width"] - 248 - 2, (place, main)
    send_task(page, "Migrate the database").click()
    expect(page.locator("aside.detail .detail-inner")).to_be_visible()
    page.locator("aside.detail .detail-close").click()
    expect(page.locator("aside.detail")).to_be_hidden()

    # Each conversation row: its title once, and its newest message (the demo's answer), live and after a reload.
    rows = page.locator("#sidebar .conversation-link")
    expect(rows).to_have_count(1)
    preview = rows.first.locator(".conversation-preview")
    expect(preview).to_contain_text("Demo agent: I received: Migrate the database", timeout=15_000)
    assert "Demo agent · Demo agent" not in rows.first.inner_text()
    assert rows.first.inner_text().count("Demo agent") == 2, rows.first.inner_text()  # the title, the author
    page.reload()
    expect(preview).to_contain_text("Demo agent: I received: Migrate the database")
    page.goto(f"{hub.base}/#/conversations")
    main_row = page.locator("#main .conversation-link").first
    expect(main_row.locator(".conversation-preview")).to_contain_text("I received: Migrate the database")
    shots(page, "conversations")

    # "New conversation": the online agent first, the one that never connected after it, the revoked one never.
    page.locator("#main .new-conversation").click()
    options = page.locator("#main dialog select[name='agent'] option")
    expect(options).to_have_count(2)
    expect(options.first).to_have_text("Demo agent · Online")
    expect(options.nth(1)).to_have_text("Aardvark · Offline")
    page.keyboard.press("Escape")
