"""An approval card without a description has no "Why you are needed" filler (a phone walkthrough: "The agent will not
go on without your approval." on every such card pushed the command below the fold, and stayed on a card that had
ended). What the agent said is kept. A real SDK agent on the real hub; Chromium at phone size."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import PHONE
from tests.e2e.flows import pending_card
from tests.e2e.world import World, open_conversation, world  # noqa: F401 - the fixture is used by name
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess


def test_no_filler_why_on_a_card_without_a_description(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Deploy")
    agent.ask(conversation, {"type": "approval", "title": "Run the tests?", "risk": "low",
                             "approves": {"kind": "command", "command": "npm test"}})
    agent.ask(conversation, {"type": "approval", "title": "Deploy?", "risk": "low",
                             "description": "The release is tagged; this pushes it to production."})
    page = open_conversation(open_page, hub, owner.token, conversation, viewport=PHONE)
    cards = pending_card(page)
    expect(cards).to_have_count(2)
    bare = cards.filter(has_text="Run the tests?")
    expect(bare.locator(".approves-text")).to_have_text("npm test")
    expect(bare.locator(".card-section.why")).to_have_count(0)
    expect(bare).not_to_contain_text("will not go on")
    said = cards.filter(has_text="Deploy?")
    expect(said.locator(".card-section.why")).to_contain_text("The release is tagged; this pushes it to production.")
    shots(page, "01-cards")
    bare.locator("button[data-option='approve']").click()
    ended = page.locator(".interaction-card[data-status='answered']")
    expect(ended).to_have_count(1)
    expect(ended).not_to_contain_text("will not go on")
