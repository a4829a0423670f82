"""The inbox keeps a receipt of what was answered on it. A card leaves the inbox once answered, and in every
usability run a participant asked "did it go through?" after Reject left "Nothing is waiting for you". Now a line
under the waiting questions says the outcome and that the agent is told (with the note, when there was one). A real
hub, an SDK agent, Chromium at 390×844, in English and Chinese."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import PHONE
from tests.e2e.world import (
    World,
    world,  # noqa: F401 - the fixture is used by name
)
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess


def test_an_answered_card_leaves_a_receipt_in_the_inbox(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Deps")
    rejected = agent.ask(conversation, {"type": "approval", "title": "Delete the build folder?",
                                        "approves": {"kind": "command", "command": "rm -rf build"}})
    answered = agent.ask(conversation, {"type": "input", "title": "Which branch?"})
    page = open_page(hub, viewport=PHONE, token=owner.token, path="/#/inbox")
    cards = page.locator("lineup-inbox .interaction-card")
    expect(cards).to_have_count(2)
    expect(page.locator(".inbox-receipts")).to_have_count(0)  # nothing answered here yet

    card = page.locator(f".interaction-card[data-interaction-id='{rejected}']")
    card.locator("details.note summary").click()
    card.locator("details.note textarea").fill("Keep the build folder.")
    card.locator("button[data-option='reject']").click()
    expect(card).to_have_count(0)  # the card left the inbox...
    receipt = page.locator(f".inbox-receipts .receipt[data-interaction-id='{rejected}']")
    expect(receipt).to_be_visible()  # ...and a receipt says what became of it
    expect(receipt).to_contain_text("Rejected")
    expect(receipt).to_contain_text("Delete the build folder?")
    expect(receipt).to_contain_text("Writer is told, with your note")
    expect(receipt).to_have_attribute("data-fate", "success")
    shots(page, "01-receipt")

    other = page.locator(f".interaction-card[data-interaction-id='{answered}']")
    other.locator("textarea, input[type='text']").first.fill("main")
    other.locator("button[type='submit'], button.primary").first.click()
    second = page.locator(f".inbox-receipts .receipt[data-interaction-id='{answered}']")
    expect(second).to_contain_text("Answered")
    expect(second).to_contain_text("Writer is told")
    # Newest first.
    expect(page.locator(".inbox-receipts .receipt").first).to_have_attribute("data-interaction-id", answered)
    expect(page.locator("lineup-inbox")).to_contain_text("Nothing is waiting for you.")


def test_the_receipt_in_chinese(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    owner, agent = world
    conversation = agent.conversation("Deps")
    question = agent.ask(conversation, {"type": "approval", "title": "Delete the build folder?",
                                        "approves": {"kind": "command", "command": "rm -rf build"}})
    page = open_page(hub, viewport=PHONE, locale="zh-CN", token=owner.token, path="/#/inbox")
    page.locator(f".interaction-card[data-interaction-id='{question}'] button[data-option='reject']").click()
    receipt = page.locator(f".inbox-receipts .receipt[data-interaction-id='{question}']")
    expect(receipt).to_contain_text("拒绝")
    expect(receipt).to_contain_text("已告知 Writer")
    expect(page.locator(".inbox-receipts h3")).to_have_text("在这里答复过的")
