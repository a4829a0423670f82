"""A card's state belongs to its question, and the view does not move under a person about to answer one
(docs/design.md#no-approval-by-accident, docs/security.md#what-an-approval-shows).

Found by the security review of round 43 and looked at in Chromium at 390×844 and 1280×800: a high-risk confirmation
opened on one task's card, already active, shown on the next task's card (its scroll gate and its one-second wait
skipped, the note typed for the first carried over); a new card arriving while a confirmation is open pulled the
conversation to it; the next card in the inbox, or another task's detail, first shown from its middle.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.card_text import box_of
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.test_card_is_the_truth import STILL, card_of, high_card, scroll_to_end
from tests.e2e.world import (
    World,
    world,  # noqa: F401 - the fixture is used by name
)
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess

SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]

# Resolves once `selector`'s scroll has not moved for 10 frames in a row (STILL, for any scroller).
STILL_IN = """(selector) => new Promise((done) => {
  const scroller = document.querySelector(selector);
  let last = -1;
  let same = 0;
  const look = () => {
    same = scroller.scrollTop === last ? same + 1 : 0;
    last = scroller.scrollTop;
    if (same >= 10) done(); else requestAnimationFrame(look);
  };
  look();
})"""


def two_tasks(world: World, commands: tuple[str, str], risk: str = "high") -> tuple[str, list[str], list[str]]:
    """A conversation with two running tasks, each waiting on an approval of a command."""
    _, agent = world
    conversation = agent.conversation("Ops")
    tasks, questions = [], []
    for name, command in zip(("staging", "prod"), commands, strict=True):
        task = f"t-{name}-{conversation[-6:]}"
        agent.send("task.create", {"title": f"Work on {name}"}, conversationId=conversation, taskId=task)
        agent.send("task.accepted", {}, taskId=task)
        questions.append(agent.ask(conversation, {"type": "approval", "title": f"Run it on {name}?", "risk": risk,
                                                  "approves": {"kind": "command", "command": command}}, task_id=task))
        tasks.append(task)
    return conversation, tasks, questions


def open_task(open_page: OpenPage, hub: HubProcess, token: str, viewport: ViewportSize, task: str) -> Page:
    page = open_page(hub, viewport=viewport, token=token, path=f"/#/tasks/{task}")
    expect(page.locator(f"lineup-task-detail [data-task-id='{task}']")).to_be_visible()
    return page


def detail_card(page: Page, question: str) -> Any:
    return page.locator(f"lineup-task-detail .interaction-card[data-interaction-id='{question}']")


# ---- 1. a confirmation and a note never move to another task's card ------------------------------------------------

@pytest.mark.parametrize("viewport", SIZES)
def test_a_confirmation_and_a_note_stay_with_their_question(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
    owner, _ = world
    _, (staging_task, prod_task), (staging_q, prod_q) = two_tasks(
        world, ("sudo systemctl restart app-staging", "psql -h prod.db -c 'DROP DATABASE shop'"))
    page = open_task(open_page, hub, owner.token, viewport, staging_task)
    staging = detail_card(page, staging_q)
    staging.locator(".note summary").click()
    staging.locator(".note textarea").fill("Restart it tonight, not now.")
    staging.locator("button[data-option='approve']").click()
    expect(staging.locator(".confirm-approve")).to_be_enabled()  # asked for, and armed
    shots(page, "01-staging-confirming")

    # The person goes to the other task without confirming: the list beside it (desktop), a notification's link (phone).
    if viewport == DESKTOP:
        page.locator(f"lineup-task-list [data-task-id='{prod_task}'], .task-rows [data-task-id='{prod_task}']").first.click()
    else:
        page.evaluate(f"location.hash = '#/tasks/{prod_task}'")
    prod = detail_card(page, prod_q)
    expect(prod).to_be_visible()
    expect(detail_card(page, staging_q)).to_have_count(0)
    # Nothing of the first card is on this one: no confirmation, Approve as it is on a fresh card, no note.
    expect(prod.locator(".confirm-box")).to_have_count(0)
    expect(prod.locator("button[data-option='approve']")).to_be_enabled()
    expect(prod.locator("button[data-option='approve']")).not_to_have_attribute("aria-expanded", "true")
    expect(prod.locator(".note textarea")).to_have_value("")
    expect(prod.locator(".note")).not_to_have_attribute("open", "")
    shots(page, "02-prod-fresh")

    # Approving it takes its own confirmation, opened here, for this question.
    prod.locator("button[data-option='approve']").click()
    expect(prod.locator(".confirm-box")).to_have_attribute("data-confirm-for", prod_q)
    prod.locator(".confirm-approve").click()
    expect(prod).to_have_attribute("data-status", "answered")
    expect(prod.locator(".card-outcome")).not_to_contain_text("tonight")  # the note typed for staging was not sent

    # Back on the first task: still waiting, and nothing open on it.
    page.evaluate(f"location.hash = '#/tasks/{staging_task}'")
    staging = detail_card(page, staging_q)
    expect(staging).to_have_attribute("data-status", "pending")
    expect(staging.locator(".confirm-box")).to_have_count(0)


# A card element handed another question (a list that reuses elements; a plugin's) starts afresh, and its confirmation's
# button acts only for the question it was opened on.
REUSED = """async ([from, to]) => {
  const el = [...document.querySelectorAll('lineup-task-detail lineup-interaction-card')]
    .find((card) => card.interaction.id === from);
  const other = el.state.interactions.find((it) => it.id === to);
  const answers = [];
  document.addEventListener('lineup-interaction-respond', (e) => answers.push(e.detail.interaction.id), { capture: true });
  const option = { id: 'approve', label: 'Approve', style: 'primary' };
  el.interaction = other;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  el._confirm(option, from);  // a click from the confirmation drawn for `from`
  el._confirm(option, to);    // and one for `to`, which never asked
  await new Promise((done) => requestAnimationFrame(done));
  return {
    shows: el.querySelector('.interaction-card').dataset.interactionId,
    confirmation: el.querySelectorAll('.confirm-box').length,
    note: el.querySelector('.note textarea').value,
    noteOpen: el.querySelector('.note').open,
    approveDisabled: el.querySelector("button[data-option='approve']").disabled,
    answers,
  };
}"""


def test_a_card_given_another_question_starts_afresh(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, _ = world
    _, (staging_task, _), (staging_q, prod_q) = two_tasks(
        world, ("sudo systemctl restart app-staging", "psql -h prod.db -c 'DROP DATABASE shop'"))
    page = open_task(open_page, hub, owner.token, DESKTOP, staging_task)
    staging = detail_card(page, staging_q)
    staging.locator(".note summary").click()
    staging.locator(".note textarea").fill("Restart it tonight, not now.")
    staging.locator("button[data-option='approve']").click()
    expect(staging.locator(".confirm-approve")).to_be_enabled()
    found = page.evaluate(REUSED, [staging_q, prod_q])
    assert found == {"shows": prod_q, "confirmation": 0, "note": "", "noteOpen": False, "approveDisabled": False,
                     "answers": []}, found


# ---- 5. an open confirmation holds the view; a card is first shown from its top ------------------------------------

@pytest.mark.parametrize("viewport", SIZES)
def test_an_open_confirmation_holds_the_view_when_a_card_arrives(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
    page, card = high_card(open_page, hub, world, viewport)
    card.locator("button[data-option='approve']").click()
    confirm = card.locator(".confirm-approve")
    expect(confirm).to_be_enabled()
    page.evaluate(STILL)
    where = box_of(confirm)
    _, agent = world
    conversation = page.evaluate("location.hash").split("/")[-1]
    late = card_of(page, agent.ask(conversation, {"type": "approval", "title": "And this one?",
                                                  "approves": {"kind": "command", "command": "npm test"}}))
    expect(late).to_be_attached()
    page.evaluate(STILL)
    # The confirmation's button is where it was, under the person's eyes; the new card waits below.
    now = box_of(confirm)
    assert abs(now["y"] - where["y"]) < 1 and abs(now["x"] - where["x"]) < 1, (where, now)
    expect(late).not_to_be_in_viewport()
    shots(page, "01-held")
    confirm.click()
    expect(card).to_have_attribute("data-status", "answered")


def not_from_its_middle(page: Page, card: Any, scroller: str) -> None:
    """The card's top is not above the top of the view it scrolls in: it is reached from its top."""
    top = page.locator(scroller).first.bounding_box()
    assert top is not None
    assert box_of(card)["y"] >= top["y"] - 1, (box_of(card), top)


TALL = "\n".join(f"echo step {n} && ls build/part-{n}" for n in range(70))


@pytest.mark.parametrize("viewport", SIZES)
def test_the_inbox_shows_a_card_from_its_top(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Inbox")
    first = agent.ask(conversation, {"type": "approval", "title": "List the first parts?",
                                     "approves": {"kind": "command", "command": TALL}})
    second = agent.ask(conversation, {"type": "approval", "title": "List the second parts?",
                                      "approves": {"kind": "command", "command": TALL + "\necho done"}})
    # The person was reading Settings to its end, then taps the inbox: it opens on a card's top, not where Settings was
    # scrolled to (the middle of the first card, its Approve under the finger).
    page = open_page(hub, viewport=viewport, token=owner.token, path="/#/settings")
    expect(page.locator(".main .view")).to_be_visible()
    page.locator(".main").evaluate("main => { main.scrollTop = main.scrollHeight; }")
    page.evaluate(STILL_IN, ".main")
    assert page.locator(".main").evaluate("main => main.scrollTop") > 200
    page.locator(".inbox-indicator").click()
    a, b = (page.locator(f"lineup-inbox .interaction-card[data-interaction-id='{q}']") for q in (first, second))
    expect(b).to_be_attached()
    page.evaluate(STILL_IN, ".main")
    expect(a.locator(".card-title")).to_be_in_viewport()
    not_from_its_middle(page, a, ".main")
    shots(page, "01-from-settings")

    # The person reads the first card to its end and approves it there: its top far above, the next card's below. The
    # answered card leaves the list and the next one moves up: it is shown from its top too.
    scroll_to_end(a)
    approve = a.locator("button[data-option='approve']")
    approve.scroll_into_view_if_needed()
    page.evaluate(STILL_IN, ".main")
    assert box_of(a)["y"] < 0
    approve.click()
    expect(a).to_have_count(0)
    page.evaluate(STILL_IN, ".main")
    expect(b.locator(".card-title")).to_be_in_viewport()
    not_from_its_middle(page, b, ".main")
    expect(b.locator("button[data-option='approve']")).to_be_disabled()  # its end not yet seen
    shots(page, "02-next-from-its-top")


@pytest.mark.parametrize("viewport", SIZES)
def test_another_tasks_detail_opens_at_its_top(hub: HubProcess, open_page: OpenPage, world: World, viewport: ViewportSize, shots: Shots) -> None:
    owner, _ = world
    _, (one, two), (first, second) = two_tasks(world, (TALL, TALL + "\necho done"), risk="medium")
    page = open_task(open_page, hub, owner.token, viewport, two)
    expect(detail_card(page, second)).to_be_visible()
    page.evaluate(f"location.hash = '#/tasks/{one}'")
    card = detail_card(page, first)
    scroll_to_end(card)
    card.locator("button[data-option='approve']").scroll_into_view_if_needed()
    page.evaluate(STILL_IN, ".detail")
    assert box_of(card)["y"] < 0  # the person is at its buttons
    # The other task again (the list beside it, a notification's link): its detail, read before, opens at its top.
    page.evaluate(f"location.hash = '#/tasks/{two}'")
    other = detail_card(page, second)
    expect(other).to_be_visible()
    page.evaluate(STILL_IN, ".detail")
    expect(page.locator("#task-detail-heading")).to_be_in_viewport()
    not_from_its_middle(page, other, ".detail")
    shots(page, "01-other-task")
