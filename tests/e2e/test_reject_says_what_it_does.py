"""An approval card says what Reject does. In the usability test a newcomer asked "if I reject,
does it still make the plan?": one who fears that Reject ends the task leans toward Approve. Now a line by the Reject option
says it ("the agent is told no and decides what to do next"), or the option's own description when the agent gave one.
A real hub, an SDK agent, Chromium at 390×844 and 1280×800, in English and Chinese."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.card_text import box_of
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.test_card_is_the_truth import ask_and_open, card_of
from tests.e2e.test_rich_content import world  # noqa: F401 - the fixture is used by name

SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]
GENERIC = "The agent is told no and decides what to do next; the task is not cancelled."


@pytest.mark.parametrize("viewport", SIZES)
def test_reject_says_what_it_does(hub, open_page, world, viewport, shots) -> None:  # type: ignore[no-untyped-def]
    own = "Deny: Codex is told no and tries another way; ask it in a note what to do instead."
    page, (plain, described) = ask_and_open(open_page, hub, world, viewport, {
        "type": "approval", "title": "Delete the build folder?",
        "approves": {"kind": "command", "command": "rm -rf build"}}, {
        "type": "approval", "title": "Run the linter?",
        "options": [{"id": "approve", "label": "Yes", "style": "primary"},
                    {"id": "reject", "label": "Deny", "style": "danger", "description": own}],
        "approves": {"kind": "command", "command": "npm run lint"}})

    # The plain card: the generic line, right by Reject, visible, and read with the button.
    card = card_of(page, plain)
    reject = card.locator("button[data-option='reject']")
    reject.scroll_into_view_if_needed()
    line = card.locator(".reject-means")
    expect(line).to_have_text(GENERIC)
    expect(line).to_be_visible()
    assert str(line.get_attribute("id")) in str(reject.get_attribute("aria-describedby"))
    line_box, reject_box = box_of(line), box_of(reject)
    assert reject_box["y"] + reject_box["height"] - 1 <= line_box["y"] <= reject_box["y"] + reject_box["height"] + 24, \
        (line_box, reject_box)
    # Approve has no such line, and the option's own words, when the agent gave them, are the line instead.
    expect(card.locator("button[data-option='approve']")).not_to_have_attribute("aria-describedby", str(line.get_attribute("id")))
    other = card_of(page, described)
    expect(other.locator(".reject-means")).to_have_count(0)
    expect(other.locator(".option-description")).to_have_text(own)
    shots(page, "01-reject-says-what-it-does")

    # In Chinese too (a browser that prefers it).
    owner, _ = world
    chinese = open_page(hub, viewport=viewport, locale="zh-CN", token=owner.token, path="/" + page.url.split("/", 3)[3])
    expect(card_of(chinese, plain).locator(".reject-means")).to_have_text("智能体会被告知“不行”，由它决定下一步；任务不会因此取消。")
    # The hub's own option labels are words of the app, in Chinese too; an agent's own ("Yes") stay as written.
    expect(card_of(chinese, plain).locator("button[data-option='reject'] .option-label")).to_have_text("拒绝")
    expect(card_of(chinese, plain).locator("button[data-option='approve'] .option-label")).to_have_text("批准")
    expect(card_of(chinese, described).locator("button[data-option='approve'] .option-label")).to_have_text("Yes")


def test_a_rejected_card_says_rejected_in_one_word(hub, open_page, world, shots) -> None:  # type: ignore[no-untyped-def]
    """Once rejected, the card's badge and its outcome say the same word: the badge said "Declined" above "Rejected"."""
    page, (question,) = ask_and_open(open_page, hub, world, PHONE, {
        "type": "approval", "title": "Delete the build folder?",
        "approves": {"kind": "command", "command": "rm -rf build"}})
    card = card_of(page, question)
    card.locator("button[data-option='reject']").click()
    expect(card.locator(".card-head .badge").first).to_have_text("Rejected")
    expect(card).to_contain_text("Rejected")
    expect(card).not_to_contain_text("Declined")
    shots(page, "02-rejected")


def test_a_tall_card_can_be_rejected_from_its_top(hub, open_page, world, shots) -> None:  # type: ignore[no-untyped-def]
    """A card taller than the phone's view offers Reject in its head, in the first view: saying no needs nothing below
    (the usability re-run's phone participants scrolled a 1,100 px card to reach Reject). Approve still waits for the
    end to have been on screen. A card that fits shows no second Reject, and the head's button takes its room
    either way, so its showing moves nothing."""
    tall = "\n".join(f"echo step {n}: reading, building, testing and writing down what it found" for n in range(60))
    page, (long_card, short_card) = ask_and_open(open_page, hub, world, PHONE, {
        "type": "approval", "title": "Run the whole plan?", "approves": {"kind": "command", "command": tall}}, {
        "type": "approval", "title": "Delete the build folder?", "approves": {"kind": "command", "command": "rm -rf build"}})
    short = card_of(page, short_card)
    short.scroll_into_view_if_needed()
    expect(short.locator(".quick-reject")).to_be_hidden()
    card = card_of(page, long_card)
    card.locator(".card-title").scroll_into_view_if_needed()
    quick = card.locator(".quick-reject")
    expect(quick).to_be_visible()
    expect(quick).to_be_in_viewport()
    expect(card.locator("button[data-option='approve']")).to_be_disabled()  # the end not yet seen
    shots(page, "03-tall-card-top")
    quick.click()
    expect(card.locator(".card-head .badge").first).to_have_text("Rejected")
    expect(card.locator(".quick-reject")).to_have_count(0)
