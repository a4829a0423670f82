"""Issue "When something goes wrong, the person sees it", item 7: the phone's top bar never makes the page wider than
the screen. With the hub down the agents' word ("Agents: unknown while offline") ran past the right edge at 390 px
and the page scrolled sideways. Every state of the top bar, in English and Chinese, with a real hub and the real
demo agent."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import PHONE, create_owner
from tests.e2e.flows import connect_demo_agent, pending_card
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubproc import pair_agent
from tests.support.hubs import HubProcess

WIDTH = """(() => {
  const bar = document.querySelector('.topbar').getBoundingClientRect();
  const items = [...document.querySelectorAll('.topbar > *')].filter((el) => el.checkVisibility())
    .map((el) => el.getBoundingClientRect().right);
  return { page: document.documentElement.scrollWidth, screen: innerWidth, bar: bar.right, right: Math.max(...items),
           height: bar.height };
})()"""


def fits(page: Page, state: str) -> None:
    measured = page.evaluate(WIDTH)
    assert measured["page"] <= measured["screen"], (state, measured)
    assert measured["right"] <= measured["screen"] + 0.5, (state, measured)
    assert measured["height"] <= 53, (state, measured)  # the bar keeps its height: the word wraps inside it


def test_the_phone_top_bar_fits_the_screen_in_every_state(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    pages = [open_page(hub, viewport=PHONE, token=owner.token, locale=locale) for locale in ("en-US", "zh-CN")]
    for page in pages:
        expect(page.locator(".agent-indicator")).to_be_visible()
        fits(page, "no agent")

    agent = connect_demo_agent(hub, owner, demo_agents, step_s=0.3)
    for page in pages:
        expect(page.locator(".agent-indicator")).to_have_attribute("data-online", "1")
        fits(page, "agent online")

    # A second agent that never connected: "1/2 agents online"; then a question waits (the inbox count).
    pair_agent(hub, owner.token, name="A second agent with a long name")
    english = pages[0]
    english.locator(".agent-indicator").filter(has_text="1/2 agents online").wait_for()
    english.goto(f"{hub.base}/#/agents")
    english.locator(".agent-card").first.get_by_role("button", name="Message").click()
    english.locator("lineup-composer textarea").fill("Migrate")
    english.locator("lineup-composer").get_by_label("Track as task").check()
    english.locator("lineup-composer").get_by_role("button", name="Send").click()
    expect(pending_card(english.locator("lineup-conversation"))).to_be_visible(timeout=15_000)
    for page in pages:
        expect(page.locator(".inbox-indicator")).to_have_attribute("data-count", "1")
        fits(page, "two agents, one question")

    agent.kill()
    for page in pages:
        expect(page.locator(".agent-indicator")).to_have_attribute("data-online", "0", timeout=15_000)
        fits(page, "agents offline")

    hub.stop()
    for n, page in enumerate(pages):
        expect(page.locator(".offline-banner")).to_be_visible(timeout=15_000)
        expect(page.locator(".agent-indicator")).to_contain_text(("unknown", "未知")[n])
        fits(page, "hub unreachable")
        shots(page, f"hub-unreachable-{('en', 'zh')[n]}")
