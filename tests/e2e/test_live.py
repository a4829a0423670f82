"""Live state: a reload mid-task loses nothing, two tabs agree on an answer, an answer given offline is kept and sent."""

from __future__ import annotations

import contextlib
import re
import time
from datetime import datetime
from typing import cast

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import connect_demo_agent, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess


def test_reload_mid_task_loses_nothing(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents, step_s=1.0)
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    chip = send_task(page, "Survive a reload")
    expect(chip.locator(".task-chip-progress")).to_contain_text(re.compile(r"(10|40)%"), timeout=10_000)
    expect(page.locator(".message.theirs").filter(has_text="I received: Survive a reload")).to_be_visible()
    url = page.url
    page.reload()

    assert page.url == url  # the same conversation, from the address alone
    chip = page.locator(".task-chip").filter(has_text="Survive a reload")
    expect(chip).to_be_visible()
    expect(page.locator(".message.mine").filter(has_text="Survive a reload")).to_be_visible()
    expect(page.locator(".message.theirs").filter(has_text="I received: Survive a reload")).to_be_visible()
    # Events after the reload arrive live: the approval card shows up without another reload.
    card = pending_card(page.locator(".stream"))
    expect(card).to_be_visible(timeout=15_000)
    card.get_by_role("button", name="Approve").click()
    card.get_by_role("button", name="Yes, approve").click()
    expect(chip.locator("[data-status]").first).to_have_text("Succeeded", timeout=15_000)
    chip.click()
    detail = page.locator("lineup-task-detail .detail-inner")
    expect(detail.locator(".artifact")).to_contain_text("migration-report.md")
    task_id = detail.get_attribute("data-task-id")
    read = api(hub, owner.token, "GET", f"/api/tasks/{task_id}")
    # Every event has its line but the hub's own bookkeeping (notifications), the status changes another line says
    # (accepted, asked, answered) and the demo's checkpoints (each inside a child task, whose start and end are lines).
    folded = ("accepted", "interaction_requested", "interaction_resolved")
    steps = [e for e in read["timeline"] if e["type"] not in ("notification.created", "task.checkpoint")
             and not (e["type"] == "task.status_changed" and e["payload"].get("cause") in folded
                      and e["payload"].get("progress") is None and not e["payload"].get("summary"))]
    expect(detail.locator(".timeline-list li")).to_have_count(len(steps) + 2 * len(read["children"]))
    shots(page, "after-reload-succeeded")


def test_two_tabs_see_the_same_answer(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    first = open_page(hub, token=owner.token)
    open_agent_conversation(first)
    send_task(first, "Answer once, seen twice")
    expect(pending_card(first.locator(".stream"))).to_be_visible(timeout=15_000)
    second = open_page(hub, path="/#/inbox", context=first.context)
    other = pending_card(second.locator("lineup-inbox"))
    expect(other).to_be_visible()
    expect(second.locator(".inbox-indicator .count")).to_have_text("1")

    card = pending_card(first.locator(".stream"))
    card.get_by_role("button", name="Approve").click()
    card.get_by_role("button", name="Yes, approve").click()

    # The other tab's card turns read-only with who decided what, and the inbox empties.
    expect(second.locator("lineup-inbox .interaction-card")).to_have_count(0)
    expect(second.locator(".inbox-indicator .count")).to_have_text("0")
    second.goto("/#/conversations")
    second.locator(".conversation-link").first.click()
    resolved = second.locator(".stream .interaction-card")
    expect(resolved).to_have_attribute("data-status", "answered")
    expect(resolved.locator(".decision")).to_have_text("Approved")
    expect(resolved.locator(".card-outcome")).to_contain_text("Decided by Ada Lovelace (you)")
    expect(resolved.get_by_role("button", name="Approve")).to_have_count(0)
    shots(second, "second-tab-read-only")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_answer_given_offline_is_sent_after_reconnect(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots,
                                                      viewport: ViewportSize) -> None:
    """Kept while offline, the card says which answer waits ("Approve — queued, sends when back online": its buttons
    are disabled and show no choice), and once sent its "Decided" time is the tap, not the hub's receipt."""
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, token=owner.token, viewport=viewport)
    open_agent_conversation(page, phone=viewport is PHONE)
    send_task(page, "Decide while the hub is down")
    card = pending_card(page.locator(".stream"))
    expect(card).to_be_visible(timeout=15_000)

    hub.stop()
    banner = page.locator(".offline-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Can’t reach the hub.")
    card.get_by_role("button", name="Approve").click()
    card.get_by_role("button", name="Yes, approve").click()
    tapped = page.evaluate("Date.now()") / 1000
    expect(card.locator(".submission")).to_have_text("Approve — queued, sends when back online")
    expect(banner).to_contain_text("1 waiting to be sent")
    assert page.evaluate("JSON.parse(Object.entries(localStorage).find(([k]) => k.startsWith('lineup.outbox.'))[1]).length") == 1
    shots(page, "offline-answer-queued")

    while time.time() < tapped + 3:  # the hub gets it seconds after the tap, so the two times differ
        page.wait_for_timeout(100)
    restarted = time.time()
    hub.start()
    # The app may reconnect on its own schedule before the click lands (the banner then goes, and its
    # button with it); "Retry now" only shortens the wait, so a click that finds no button is fine.
    with contextlib.suppress(PlaywrightTimeoutError):
        banner.get_by_role("button", name="Retry now").click(timeout=3_000)
    expect(banner).to_have_count(0, timeout=30_000)
    answered = page.locator(".stream .interaction-card")
    expect(answered).to_have_attribute("data-status", "answered", timeout=10_000)
    expect(answered.locator(".decision")).to_have_text("Approved")
    interactions = api(hub, owner.token, "GET", "/api/interactions")["interactions"]
    assert [(i["status"], i["response"]["optionId"]) for i in interactions] == [("answered", "approve")]
    assert page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('lineup.outbox.')).length") == 0
    # "Decided" is the tap: the card's time and the stored one, seconds before the hub received the answer.
    decided = answered.locator(".card-outcome time").get_attribute("datetime")
    assert decided == interactions[0]["respondedAt"], (decided, interactions[0])
    assert abs(when(cast(str, decided)) - tapped) < 1.5, (decided, tapped)
    assert when(cast(str, decided)) < restarted - 2, (decided, restarted)  # the hub could receive it only after this
    shots(page, "after-reconnect")


def when(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_resync_required_reloads_everything(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    first = open_page(hub, token=owner.token)
    open_agent_conversation(first)
    chip = send_task(first, "Catch up after a resync")
    expect(pending_card(first.locator(".stream"))).to_be_visible(timeout=15_000)
    live = "document.querySelector('lineup-app').workspace.live"
    first.evaluate(f"{live}.stop()")  # this tab hears nothing from here on

    second = open_page(hub, path="/#/inbox", context=first.context)
    card = pending_card(second.locator("lineup-inbox"))
    card.get_by_role("button", name="Approve").click()
    card.get_by_role("button", name="Yes, approve").click()
    expect(second.locator("lineup-inbox .inbox-section[data-section='inbox-done'] .task-row")).to_have_count(1, timeout=15_000)
    expect(chip.locator("[data-status]").first).to_have_text("Waiting for you")  # still the old picture

    # Reconnect with a cursor the hub has never reached: it answers system.resync_required, and the app
    # reloads its state over HTTP instead of trusting what it holds.
    first.evaluate(f"{live}.status = 'idle'; {live}.lastSequence = 1e9; {live}.start()")
    expect(chip.locator("[data-status]").first).to_have_text("Succeeded", timeout=10_000)
    expect(first.locator(".stream .interaction-card")).to_have_attribute("data-status", "answered")
    head = api(hub, owner.token, "GET", "/api/state")["headSequence"]
    assert first.evaluate(f"{live}.lastSequence") <= head
