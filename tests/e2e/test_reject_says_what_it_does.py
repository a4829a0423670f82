"""An approval card says what Reject does. In the usability test a newcomer asked "if I reject,
does it still make the plan?": one who fears that Reject ends the task leans toward Approve. Now a line by the Reject option
says it ("the agent is told no and decides what to do next"), or the option's own description when the agent gave one.
A real hub, an SDK agent, Chromium at 390×844 and 1280×800, in English and Chinese."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect

from tests.e2e.card_text import box_of
from tests.e2e.conftest import DESKTOP, PHONE, api
from tests.e2e.test_card_is_the_truth import ask_and_open, card_of
from tests.e2e.world import (
    World,
    world,  # noqa: F401 - the fixture is used by name
)
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess
from tests.support.polling import eventually_sync

SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]


def answer_on_hub(hub: HubProcess, token: str, question: str, what: str) -> dict[str, Any]:
    """The answer the hub recorded for the question, once it has one."""
    def answered() -> dict[str, Any] | None:
        stored = [i for i in api(hub, token, "GET", "/api/interactions")["interactions"]
                  if i["id"] == question and i["status"] != "pending"]
        return stored[0]["response"] if stored else None

    return cast(dict[str, Any], eventually_sync(answered, what=what))


def chinese_reject_box(hub: HubProcess, open_page: OpenPage, world: World) -> tuple[Page, str, Locator]:
    """A high-risk card asked in a conversation, opened on a phone in Chinese, its head's Reject box open."""
    owner, agent = world
    conversation = agent.conversation("Deps")
    question = agent.ask(conversation, {"type": "approval", "title": "Apply?", "risk": "high",
                                        "approves": {"kind": "command", "command": DANGEROUS}})
    page = open_page(hub, viewport=PHONE, locale="zh-CN", token=owner.token, path=f"/#/conversations/{conversation}")
    card = card_of(page, question)
    card.locator(".quick-reject").click()
    return page, question, card.locator(".quick-reject-box")
GENERIC = "The agent is told no and decides what to do next; the task is not cancelled."


@pytest.mark.parametrize("viewport", SIZES)
def test_reject_says_what_it_does(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
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


def test_a_rejected_card_says_rejected_in_one_word(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
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


def test_a_tall_card_can_be_rejected_from_its_top(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
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
    # It opens under the head: what Reject does, a note, and the Reject that answers; a bare no is one tap more.
    box = card.locator(".quick-reject-box")
    expect(box).to_be_in_viewport()
    expect(box).to_contain_text(GENERIC)
    expect(card.locator(".card-head .badge").first).to_have_text("Needs your approval")
    box.locator(".quick-reject-send").click()
    expect(card.locator(".card-head .badge").first).to_have_text("Rejected")
    expect(card.locator(".quick-reject")).to_have_count(0)


DANGEROUS = ("cd ~/code/shop-api && python -m pip install --upgrade -r requirements/base.txt && python -m pytest -q "
             + " ".join(f"tests/unit/test_part_{n}.py" for n in range(40))
             + " && git push --force origin main && rm -rf build/ ~/.cache/pip ~ /tmp/pip-*")


@pytest.mark.parametrize("viewport", SIZES)
def test_the_heads_reject_takes_a_note_and_the_reasons_in_one_tap(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
    """Three of five usability participants tell the agent why they say no; the note was only at the card's end, so
    they read down a tall card to it (47-65 s). The head's Reject now opens a box in the first view that says what
    Reject does, offers the hub's reasons as the note in one tap ("Tell it why"), takes words of one's own, and
    answers with the note: the agent gets it."""
    owner, _ = world
    page, (question,) = ask_and_open(open_page, hub, world, viewport, {
        "type": "approval", "title": "Apply the dependency upgrades?", "risk": "high",
        "description": "Routine step of the plan.", "approves": {"kind": "command", "command": DANGEROUS}})
    card = card_of(page, question)
    card.locator(".card-title").scroll_into_view_if_needed()
    quick = card.locator(".quick-reject")
    expect(quick).to_be_in_viewport()
    quick.click()
    box = card.locator(".quick-reject-box")
    expect(box).to_be_in_viewport()
    expect(box).to_contain_text(GENERIC)
    expect(quick).to_have_attribute("aria-expanded", "true")
    # Focus on the box's Reject, not in the note: a phone's keyboard would cover the card for a bare no.
    expect(box.locator(".quick-reject-send")).to_be_focused()
    tell = box.locator(".tell-why")
    expect(tell).to_have_text("Tell it why (this card’s reasons)")
    tell.click()
    note = box.locator("textarea.quick-reject-note")
    expect(note).to_have_value(re.compile(r"^Not approved: .*deletes your home folder \(~\).*force-pushes over main.*\.$"))
    expect(tell).to_be_disabled()  # said once
    note.press("End")
    note.type(" Open a PR instead.")
    # The note at the card's end is the same note (one answer, one note).
    expect(card.locator("details.note textarea")).to_have_value(re.compile(r"Open a PR instead\.$"))
    shots(page, "04-heads-reject-with-note")
    box.locator(".quick-reject-send").click()
    expect(card.locator(".card-head .badge").first).to_have_text("Rejected")
    response = answer_on_hub(hub, owner.token, question, "the rejection with its note on the hub")
    assert response["optionId"] == "reject", response
    assert "force-pushes over main" in response["comment"] and response["comment"].endswith("Open a PR instead."), response


def test_the_heads_reject_in_chinese_tells_why_in_chinese(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    page, _, box = chinese_reject_box(hub, open_page, world)
    expect(box).to_contain_text("智能体会被告知“不行”，由它决定下一步；任务不会因此取消。")
    box.locator(".tell-why").click()
    expect(box.locator("textarea")).to_have_value(re.compile(r"^不批准：删除你的主文件夹（~）；.*强制推送覆盖"))
    shots(page, "05-heads-reject-zh")


@pytest.mark.parametrize("viewport", SIZES)
def test_the_heads_reject_offers_what_to_do_instead_in_one_tap(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
    """The three usability participants who told the agent why also told it what to do instead ("Open a PR
    instead.", "Push a branch and open a PR.", "I only want the plan"), typed on a phone after the reasons: the
    note took them longer than deciding. The box now offers replies from the hub's reasons (a branch for a force-push
    over main, the project for a deleted home) and always "show me your plan first"; one tap rejects, and the
    agent gets the reasons, the reply and whatever was typed."""
    owner, _ = world
    page, (question,) = ask_and_open(open_page, hub, world, viewport, {
        "type": "approval", "title": "Apply the dependency upgrades?", "risk": "high",
        "approves": {"kind": "command", "command": DANGEROUS}})
    card = card_of(page, question)
    card.locator(".card-title").scroll_into_view_if_needed()
    card.locator(".quick-reject").click()
    box = card.locator(".quick-reject-box")
    expect(box.locator(".instead-replies > p")).to_have_text(
        "Or reject at once, telling it this card’s reasons and what to do instead:")
    replies = box.locator(".instead-reply")
    # One reply per kind of danger the hub named (in the order of its reasons), then the plan; each within the view.
    expect(replies).to_have_count(3)
    texts = replies.all_inner_texts()
    assert sorted(texts[:2]) == ["Only touch files inside the project.", "Push a branch and open a pull request instead."], texts
    assert texts[2] == "Stop and show me your plan first."
    for index in range(replies.count()):
        expect(replies.nth(index)).to_be_in_viewport()
    # Words of one's own typed first go along too.
    box.locator("textarea.quick-reject-note").fill("Not today.")
    shots(page, "06-heads-reject-instead")
    box.locator(".instead-reply[data-instead='branch']").click()
    expect(card.locator(".card-head .badge").first).to_have_text("Rejected")
    response = answer_on_hub(hub, owner.token, question, "the rejection with the reply on the hub")
    assert response["optionId"] == "reject", response
    lines = response["comment"].split("\n")
    assert lines[0] == "Not today.", lines
    assert lines[1].startswith("Not approved: ") and "force-pushes over main" in lines[1], lines
    assert lines[2:] == ["Push a branch and open a pull request instead."], lines


def test_the_replies_are_the_persons_language(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, _ = world
    page, question, box = chinese_reject_box(hub, open_page, world)
    expect(box.locator(".instead-replies > p")).to_have_text("或者直接拒绝，同时告诉它这张卡片上的理由和应该怎么做：")
    expect(box.locator(".instead-reply[data-instead='plan']")).to_have_text("先停下，把你的计划给我看。")
    shots(page, "07-heads-reject-instead-zh")
    box.locator(".instead-reply[data-instead='plan']").click()
    response = answer_on_hub(hub, owner.token, question, "the rejection in Chinese on the hub")
    assert re.fullmatch(r"不批准：.*强制推送覆盖.*\n先停下，把你的计划给我看。", response["comment"]), response
