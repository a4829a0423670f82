"""Layout never moves under a finger: a toast, or the "Can't reach the hub" banner, arriving while an approval card is
on the screen moves nothing (Chromium's layout-shift entries sum to zero, and Approve stays where it was), lies on no
part of the page below the top bar, and leaves the conversation at least half of a phone's 844 px screen.

Before, both were pushed into the page's flow under the top bar: the card's Approve button moved down by the toast's
height between two frames. A real hub, two real demo agents, Chromium at 390x844 and 1280x800.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import FloatRect, Page, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, Owner, api, create_owner
from tests.e2e.flows import connect_demo_agent, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess

# Every layout shift from now on, kept in the page (takeRecords also hands over the ones not yet delivered).
WATCH = """(() => {
  window.__shifts = [];
  window.__shiftObserver = new PerformanceObserver((list) => { window.__shifts.push(...list.getEntries()); });
  window.__shiftObserver.observe({ type: 'layout-shift' });
  return true;
})()"""

# The shifts since WATCH, each with its sources, a source inside `apart` (a selector) left out: what moved there moved
# for its own reasons, not for what came over the page.
SHIFTS = """((apart) => {
  const all = [...window.__shifts, ...window.__shiftObserver.takeRecords()];
  window.__shifts = all;
  const element = (node) => (node && node.nodeType !== 1 ? node.parentElement : node);
  return all.map((e) => ({ value: e.value, sources: e.sources.filter((s) => !(apart && element(s.node)?.closest(apart)))
    .map((s) => {
      const node = element(s.node);
      const name = node ? `${node.tagName.toLowerCase()}.${[...node.classList].join('.')}` : '?';
      return `${name} ${Math.round(s.previousRect.y)}->${Math.round(s.currentRect.y)}`;
    }) })).filter((e) => e.sources.length);
})"""

FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"

# How much of the conversation's stream is in view and under nothing laid over it (toasts, banners).
STREAM_SHOWN = """((covers) => {
  const stream = document.querySelector('lineup-conversation .stream').getBoundingClientRect();
  const top = Math.max(stream.top, 0);
  const bottom = Math.min(stream.bottom, innerHeight);
  let covered = 0;
  for (const el of document.querySelectorAll(covers)) {
    if (!el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (r.right <= stream.left || r.left >= stream.right) continue;
    covered += Math.max(0, Math.min(r.bottom, bottom) - Math.max(r.top, top));
  }
  return Math.max(0, bottom - top - covered);
})"""

# The top bar's bottom edge: what is laid over the page must stay above it.
BAR_BOTTOM = "document.querySelector('lineup-top-bar .topbar').getBoundingClientRect().bottom"


def pair_second_agent(hub: HubProcess, owner: Owner, demo_agents: DemoAgents) -> None:
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "Builder"})["code"]
    demo_agents(hub, code, step_s=0.5)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        agents = api(hub, owner.token, "GET", "/api/agents")["agents"]
        if len([a for a in agents if a["status"] == "online"]) == 2:
            return
        time.sleep(0.1)
    raise AssertionError("the second demo agent did not come online")


def approve_box(page: Page) -> FloatRect:
    box = pending_card(page.locator("lineup-conversation")).get_by_role("button", name="Approve").bounding_box()
    assert box is not None
    return box


def card_on_screen(page: Page, phone: bool) -> None:
    open_agent_conversation(page, phone=phone)
    send_task(page, "Migrate the database")
    card = pending_card(page.locator("lineup-conversation"))
    expect(card.get_by_role("button", name="Approve")).to_be_in_viewport(timeout=15_000)
    page.evaluate(FRAMES)


def nothing_moved(page: Page, before: FloatRect | None, what: str, apart: str | None = None) -> None:
    page.evaluate(FRAMES)
    shifts = page.evaluate(f"({SHIFTS})({apart!r})" if apart else f"({SHIFTS})(null)")
    assert not shifts, f"{what}: the page moved: {shifts}"
    if before is not None:
        after = approve_box(page)
        assert (after["x"], after["y"]) == (before["x"], before["y"]), f"{what}: Approve moved from {before} to {after}"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_toast_moves_nothing_and_leaves_the_conversation_its_room(
        hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots, viewport: ViewportSize) -> None:
    phone = viewport is PHONE
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents, step_s=0.5)
    page = open_page(hub, viewport=viewport, token=owner.token)
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    card_on_screen(page, phone)
    shown_before = page.evaluate(f"({STREAM_SHOWN})('lineup-toasts .toast, .offline-banner, .connection-back')")

    # The second agent asks a question from another device: a toast comes to this page, with the card on its screen.
    pair_second_agent(hub, owner, demo_agents)
    other = open_page(hub, viewport=DESKTOP, token=owner.token, path="/#/agents")
    other.locator(".agent-card").filter(has_text="Builder").get_by_role("button", name="Message").click()
    before = approve_box(page)
    page.evaluate(WATCH)
    send_task(other, "Rotate the keys")
    toast = page.locator("lineup-toasts .toast")
    expect(toast).to_be_visible(timeout=15_000)
    expect(toast).to_contain_text("Builder needs your decision")
    # The sidebar's list of conversations (desktop) takes the other agent's news, and reorders: apart from that, not
    # a pixel of the page moves.
    nothing_moved(page, before, "a toast", apart="#sidebar")
    shots(page, "01-toast-over-the-top-bar")

    # It lies on the top bar only (the menu button stays free), never on the page below it.
    box = toast.bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.evaluate(BAR_BOTTOM) + 0.5, box
    if phone:
        menu = page.get_by_role("button", name="Menu").bounding_box()
        assert menu is not None and menu["x"] + menu["width"] <= box["x"], (menu, box)
    shown = page.evaluate(f"({STREAM_SHOWN})('lineup-toasts .toast, .offline-banner, .connection-back')")
    assert shown == shown_before, (shown, shown_before)
    if phone:
        assert shown >= 0.5 * 844, shown


# What says something else when the hub goes away or comes back, and moves with its words: the agents' word in the top
# bar and the inbox count beside it (under the banner meanwhile). The conversation does not move: its head keeps one
# line whatever the agent's state says, its composer keeps two lines for what happens to a message sent now.
CHANGED_WHEN_THE_HUB_GOES = "lineup-top-bar"


def test_the_hub_banner_moves_nothing(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents, step_s=0.5)
    page = open_page(hub, viewport=PHONE, token=owner.token)
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    card_on_screen(page, phone=True)
    page.evaluate(WATCH)
    hub.stop()
    banner = page.locator(".offline-banner")
    expect(banner).to_be_visible(timeout=15_000)
    expect(banner).to_contain_text("Can’t reach the hub.")
    nothing_moved(page, None, "the hub banner", apart=CHANGED_WHEN_THE_HUB_GOES)
    box = banner.bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.evaluate(BAR_BOTTOM) + 0.5, box
    assert page.evaluate(f"({STREAM_SHOWN})('lineup-toasts .toast, .offline-banner')") >= 0.5 * 844
    shots(page, "02-hub-banner")
    hub.start()
    expect(page.locator(".connection-back")).to_be_visible(timeout=30_000)
    nothing_moved(page, None, "connected again", apart=CHANGED_WHEN_THE_HUB_GOES)
