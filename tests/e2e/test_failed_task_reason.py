"""A failed task says why it failed where the person sees it (a phone walkthrough): the conversation's chip kept the
last progress line ("30% · About to crash") next to "Failed", the toast said only "Walker could not finish it.", and
the task detail repeated the code after a message that already held it ("Not run (declined) (declined)"). A real
SDK agent on the real hub fails its tasks; Chromium at phone size."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import PHONE
from tests.e2e.world import Agent, World, open_conversation, world  # noqa: F401 - the fixture is used by name
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess

REASON = "The renderer crashed while drawing chart 3 of 12: out of memory after 2 GiB, see the log for the stack"


def start(agent: Agent, conversation: str, task_id: str, title: str) -> None:
    agent.send("task.create", {"title": title}, conversationId=conversation, taskId=task_id)
    agent.send("task.accepted", {}, conversationId=conversation, taskId=task_id)
    agent.send("task.status_changed", {"progress": 30, "summary": "About to crash"}, conversationId=conversation,
               taskId=task_id)


def test_a_failed_task_says_why_in_its_chip_toast_and_detail(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Charts")
    start(agent, conversation, "task-charts", "Draw the charts")
    page = open_conversation(open_page, hub, owner.token, conversation, viewport=PHONE)
    chip = page.locator(".task-chip[data-task-id='task-charts']")
    expect(chip).to_contain_text("About to crash")  # running: its progress
    page.goto("/#/agents")  # elsewhere: the failure is told in a toast (none covers a conversation that shows it)
    # Live before the failure is sent: a notification that arrives during the socket's catch-up is a replay and pops
    # nothing, by design (the page's reads had already drawn the chip; the run of 2026-12-05 sent it in that window).
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    agent.send("task.status_changed", {"status": "failed", "error": {"code": "renderer_oom", "message": REASON}},
               conversationId=conversation, taskId="task-charts")
    toast = page.locator(".toast[data-kind='failed']")
    expect(toast.locator(".toast-text")).to_have_text(f"Writer could not finish it: {REASON}")
    shots(page, "00-failed-toast")
    page.goto(f"/#/conversations/{conversation}")
    expect(chip.locator("[data-status='failed'], .badge")).to_contain_text("Failed")
    why = chip.locator(".task-chip-error")
    expect(why).to_have_text(REASON)  # the whole text, clipped to one line by its style
    expect(chip).not_to_contain_text("About to crash")
    expect(chip).not_to_contain_text("30%")
    box = why.bounding_box()
    line = float(why.evaluate("(el) => parseFloat(getComputedStyle(el).lineHeight)"))
    assert box is not None and box["height"] <= line * 1.5 and box["x"] + box["width"] <= PHONE["width"], box
    assert why.evaluate("(el) => el.scrollWidth > el.clientWidth")  # clipped, not wrapped
    shots(page, "01-failed-chip")

    # A message that already holds its code is not followed by the code again; one that does not still gets it.
    start(agent, conversation, "task-declined", "Run the migration")
    agent.send("task.status_changed", {"status": "failed", "error": {"code": "declined", "message": "Not run (declined)"}},
               conversationId=conversation, taskId="task-declined")
    page.goto("/#/tasks?task=task-declined")
    verdict = page.locator("lineup-task-detail .restart-verdict")
    expect(verdict).to_contain_text("The task failed: Not run (declined).")
    expect(verdict).not_to_contain_text("(declined) (declined)")
    page.goto("/#/tasks?task=task-charts")
    expect(page.locator("lineup-task-detail .restart-verdict")).to_contain_text(
        re.compile(re.escape(f"The task failed: {REASON} (renderer_oom).")))


def test_the_inbox_badge_says_what_it_counts(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    """The badge counted 3 (two questions and a failed task) while its label said "3 waiting" and "Waiting for me"
    said 2: its label and tooltip now name both parts (docs/design.md: the inbox's first two lists need the person)."""
    owner, agent = world
    conversation = agent.conversation("Chores")
    for title in ("Run the tests?", "Push the branch?"):
        agent.ask(conversation, {"type": "approval", "title": title, "risk": "low"})
    start(agent, conversation, "task-broken", "Fix the build")
    agent.send("task.status_changed", {"status": "failed", "error": {"code": "broken", "message": "It broke"}},
               conversationId=conversation, taskId="task-broken")
    page = open_page(hub, viewport=PHONE, token=owner.token, path="/#/inbox")
    badge = page.locator(".inbox-indicator")
    expect(badge.locator(".count")).to_have_text("3")
    expect(badge).to_have_attribute("aria-label", re.compile(r"^Inbox: 2 waiting for you, 1 failed or needs attention"))
    expect(badge).to_have_attribute("title", re.compile(r"^Inbox: 2 waiting for you, 1 failed or needs attention"))
