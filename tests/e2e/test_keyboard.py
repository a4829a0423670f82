"""Every card action by keyboard alone (Tab to reach, Enter/Space to act), with a visible focus
(docs/design.md#accessibility-floor)."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import api, create_owner
from tests.e2e.flows import connect_demo_agent, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import AskerAgent, DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess


def tab_to(page: Page, target: Locator, limit: int = 80, backwards: bool = False) -> None:
    """Press Tab (or Shift+Tab) until `target` has the focus, then check the focus can be seen."""
    handle = target.element_handle()
    for _ in range(limit):
        if page.evaluate("(el) => document.activeElement === el", handle):
            break
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
    else:
        raise AssertionError(f"{target} could not be reached with the keyboard")
    outline = page.evaluate("(el) => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth]; }", handle)
    assert outline[0] != "none" and float(outline[1].rstrip("px")) >= 2, f"focus not visible on {target}: {outline}"


def test_high_risk_approval_by_keyboard(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    send_task(page, "Tidy the dependencies, by keyboard")
    card = pending_card(page.locator(".stream"))
    expect(card).to_be_visible(timeout=15_000)

    page.locator("lineup-composer textarea").focus()
    approve = card.locator("[data-option='approve']")
    tab_to(page, approve, backwards=True)
    shots(page, "01-approve-focused")
    page.keyboard.press("Enter")
    confirm = card.locator(".confirm-approve")
    # The second step of a high-risk approval takes the focus on its words (Enter again approves nothing); its button
    # acts after a moment, reached with Tab.
    expect(card.locator(".confirm-text")).to_be_focused()
    expect(card.locator(".confirm-box")).to_contain_text("High risk: are you sure?")
    expect(confirm).to_be_enabled()
    tab_to(page, confirm)
    shots(page, "02-confirm-focused")
    page.keyboard.press("Space")
    answered = page.locator(".stream .interaction-card[data-status='answered']")
    expect(answered.locator(".decision")).to_have_text("Approved")
    expect(answered.locator(".card-outcome")).to_contain_text("Decided by Ada Lovelace (you)")

    details = answered.locator("details.card-details")
    tab_to(page, details.locator("summary"), backwards=True)
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")
    expect(details).to_contain_text("production")
    expect(page.locator(".stream .task-chip [data-status]").first).to_have_text("Succeeded", timeout=15_000)


def test_choice_input_and_review_cards_by_keyboard(hub: HubProcess, open_page: OpenPage, asker_agent: AskerAgent, shots: Shots) -> None:
    owner = create_owner(hub)
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"]
    asker_agent(hub, code)
    deadline = time.monotonic() + 20
    while not any(a["status"] == "online" for a in api(hub, owner.token, "GET", "/api/agents")["agents"]):
        assert time.monotonic() < deadline, "the asker agent did not come online"
        time.sleep(0.1)
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    send_task(page, "Release 2.3")
    stream = page.locator(".stream")

    # A multiple choice: Space ticks a box, Enter on the button sends.
    choice = stream.locator(".interaction-card[data-type='choice'][data-status='pending']")
    expect(choice).to_be_visible(timeout=15_000)
    expect(choice.locator(".choice").filter(has_text="United States")).to_contain_text("Recommended")
    page.locator("lineup-composer textarea").focus()
    submit = choice.get_by_role("button", name="Send choice")
    tab_to(page, submit, backwards=True)
    page.keyboard.press("Enter")
    expect(choice.get_by_role("alert")).to_have_text("Choose at least one option.")  # nothing sent yet
    tab_to(page, choice.get_by_label("Europe"), backwards=True)
    page.keyboard.press("Space")
    tab_to(page, choice.get_by_label("United States"))
    page.keyboard.press("Space")
    shots(page, "01-choice")
    tab_to(page, submit)
    page.keyboard.press("Enter")
    done = stream.locator(".interaction-card[data-type='choice']")
    expect(done).to_have_attribute("data-status", "answered")
    expect(done.locator(".decision")).to_have_text("Chose: Europe, United States")

    # An input with a URL format: a wrong answer is caught in the card, with the reason, before sending.
    card = stream.locator(".interaction-card[data-type='input'][data-status='pending']")
    expect(card).to_be_visible(timeout=10_000)
    field = card.get_by_label("Your answer")
    page.locator("lineup-composer textarea").focus()
    tab_to(page, field, backwards=True)
    page.keyboard.type("staging.example.com")
    page.keyboard.press("Enter")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(card.get_by_role("alert")).to_contain_text("starting with http:// or https://")
    expect(field).to_be_focused()
    shots(page, "02-input-invalid")
    page.keyboard.press("Control+A")
    page.keyboard.type("https://staging.example.com")
    page.keyboard.press("Enter")
    done = stream.locator(".interaction-card[data-type='input']")
    expect(done).to_have_attribute("data-status", "answered")
    expect(done.locator(".decision")).to_have_text("Answered: “https://staging.example.com”")

    # A review: the content is shown, Space on "Approve" decides.
    card = stream.locator(".interaction-card[data-type='review'][data-status='pending']")
    expect(card).to_be_visible(timeout=10_000)
    expect(card.locator(".review-content")).to_contain_text("Fixed sign-in on phones")
    page.locator("lineup-composer textarea").focus()
    tab_to(page, card.locator("[data-decision='approve']"), backwards=True)
    page.keyboard.press("Space")
    done = stream.locator(".interaction-card[data-type='review']")
    expect(done).to_have_attribute("data-status", "answered")
    expect(done.locator(".decision")).to_have_text("Review approved")
    expect(stream.locator(".message.theirs").filter(has_text=re.compile("Regions eu,us; staging https://staging.example.com; review approve"))).to_be_visible(timeout=10_000)
    shots(page, "03-all-answered")
