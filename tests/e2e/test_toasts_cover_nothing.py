"""Issue "When something goes wrong, the person sees it", item 4: a phone's toasts covered what they announced (the
"needs your decision" toast over the conversation's header and the card itself, over the inbox card's title, "Agent
offline" over Approve/Reject in the task drawer, a "went offline" toast still there after the agent was back).

Now: no toast for what is on the screen already; a toast lies on nothing of the page (it lies over the top bar, the
bar's menu button left free, and moves nothing: tests/e2e/test_nothing_moves.py); every toast leaves by itself, and
at once when it is stale; no risk badge outside the approval itself. A real hub,
the real demo agent, Chromium at 390×844 (and the overlap check at 1280×800 too).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner, wait_for_js
from tests.e2e.flows import connect_demo_agent, go, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess

# What a visible toast lies on: a header, a title, a button (outside the toasts and the top bar, whose words it stands
# in for while it shows; the bar's menu button included), or anything whose middle it covers.
COVERED = """(() => {
  const toasts = [...document.querySelectorAll('lineup-toasts .toast')]
    .filter((t) => t.checkVisibility()).map((t) => t.getBoundingClientRect());
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  // The part of an element its scrolling panes leave in view (a header scrolled out of the drawer is not "under" it).
  const shown = (el) => {
    let { left, top, right, bottom } = el.getBoundingClientRect();
    for (let box = el.parentElement; box; box = box.parentElement) {
      if (getComputedStyle(box).overflowY === 'visible' && getComputedStyle(box).overflowX === 'visible') continue;
      const c = box.getBoundingClientRect();
      left = Math.max(left, c.left); top = Math.max(top, c.top); right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
    }
    top = Math.max(top, 0); bottom = Math.min(bottom, innerHeight);
    return right - left >= 1 && bottom - top >= 1 ? { left, top, right, bottom } : null;
  };
  const found = [];
  const watched = 'header, .view-head, .conversation-head, .detail-head, h1, h2, .card-title, .task-row-title, '
    + '.task-chip-title, button, a.button, .filter, .task-row-button, summary, textarea';
  for (const el of document.querySelectorAll(watched)) {
    if (el.closest('lineup-toasts') || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (el.closest('lineup-top-bar') && !el.matches('.menu-button')) continue;
    const r = shown(el);
    if (!r) continue;
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${el.textContent.trim().slice(0, 40)}"`;
    if (hit && hit.closest('lineup-toasts')) found.push(`covered: ${name}`);
    else if (toasts.some((t) => meets(t, r))) found.push(`overlapped: ${name}`);
  }
  return found;
})()"""

NOTIFIED = """(n) => Object.keys(localStorage).filter((k) => k.startsWith('lineup.notified.'))
  .reduce((sum, k) => sum + JSON.parse(localStorage.getItem(k) || '[]').length, 0) >= n"""

FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


# The first toast is there and its slide-in has ended (a finished CSS animation leaves getAnimations()).
TOAST_AT_REST = ("() => { const toast = document.querySelector('lineup-toasts .toast');"
                 " return toast !== null && toast.getAnimations().length === 0; }")


def toasts(page: Page) -> Any:
    return page.locator("lineup-toasts .toast")


def covers_nothing(page: Page, where: str) -> None:
    expect(toasts(page).first).to_be_visible()
    wait_for_js(page, TOAST_AT_REST)  # the toast slides in for 160 ms: measured where it comes to rest
    assert page.evaluate(COVERED) == [], where


def no_toast_once_notified(page: Page, count: int) -> None:
    """The notification reached this tab (it claimed it: lib/notifications.js ShownIds) and was drawn, yet no toast."""
    wait_for_js(page, f"({NOTIFIED})({count})", 15_000)
    page.evaluate(FRAMES)
    expect(toasts(page)).to_have_count(0)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_toasts_cover_nothing_leave_by_themselves_and_when_stale(
        hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots, viewport: ViewportSize) -> None:
    phone = viewport is PHONE
    owner = create_owner(hub)
    agent = connect_demo_agent(hub, owner, demo_agents, step_s=0.8)
    page = open_page(hub, viewport=viewport, token=owner.token)
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    open_agent_conversation(page, phone=phone)

    # The question arrives in the open conversation: its card is on the screen, so no toast lies on it.
    send_task(page, "First migration")
    expect(pending_card(page.locator("lineup-conversation"))).to_be_visible(timeout=15_000)
    no_toast_once_notified(page, 1)

    # Elsewhere (the task list) the toast comes, in its own room: no header, title or button under it; and no risk
    # badge (the risk is the approval's, shown on its card).
    send_task(page, "Second migration")
    go(page, "Tasks", phone=phone)
    expect(toasts(page)).to_have_count(1, timeout=15_000)
    expect(toasts(page)).to_contain_text("Demo agent needs your decision")
    expect(toasts(page)).not_to_contain_text("High risk")
    expect(toasts(page).locator("[data-risk]")).to_have_count(0)
    covers_nothing(page, "task list")
    shots(page, "01-question-toast-on-the-task-list")

    # The inbox shows the card: the toast is withdrawn (and stays withdrawn on the way back).
    go(page, "Inbox", phone=phone)
    expect(pending_card(page.locator("lineup-inbox"))).to_have_count(2)
    expect(toasts(page)).to_have_count(0)
    go(page, "Tasks", phone=phone)
    expect(page.locator(".task-row")).to_have_count(2)
    page.evaluate(FRAMES)
    expect(toasts(page)).to_have_count(0)

    # A question toast leaves by itself (it stayed until dismissed).
    open_agent_conversation(page, phone=phone)
    send_task(page, "Third migration")
    go(page, "Tasks", phone=phone)
    expect(toasts(page)).to_have_count(1, timeout=15_000)
    expect(toasts(page)).to_have_count(0, timeout=25_000)

    # The task drawer open on a question, the agent goes away: "went offline" lies on none of its buttons, wherever
    # Approve and Reject are scrolled to.
    page.locator(".task-row-button").filter(has_text="Third migration").click()
    detail = page.locator("aside.detail")
    approve = pending_card(detail).get_by_role("button", name="Approve")
    expect(approve).to_be_visible()
    agent.kill()
    expect(toasts(page)).to_have_count(1, timeout=15_000)
    expect(toasts(page)).to_contain_text("Demo agent went offline")
    for block in ("end", "start", "center"):
        approve.evaluate(f"(b) => b.scrollIntoView({{ block: '{block}' }})")
        covers_nothing(page, f"task drawer, Approve at the {block}")
    shots(page, "02-offline-toast-over-the-drawer")

    # Held (the keyboard is on it), the toast would stay; the agent comes back, so it is withdrawn all the same.
    toasts(page).locator(".toast-dismiss").focus()
    agent.start()
    expect(detail.locator(".detail-status [data-agent-status]")).to_have_text("Online", timeout=20_000)
    expect(toasts(page)).to_have_count(0)


def test_a_question_asked_while_the_inbox_is_open_pops_nothing(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents, step_s=0.5)
    page = open_page(hub, viewport=PHONE, token=owner.token)
    open_agent_conversation(page, phone=True)
    send_task(page, "Rotate the keys")
    go(page, "Inbox", phone=True)
    expect(pending_card(page.locator("lineup-inbox"))).to_have_count(1, timeout=15_000)
    no_toast_once_notified(page, 1)
