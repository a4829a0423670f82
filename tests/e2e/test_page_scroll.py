"""The page itself never scrolls, only its panes: on a phone a page that scrolls takes the top bar away.

Found while taking docs/screenshots: the visually hidden texts of a diff's +/- signs and of the settings' buttons
(position: absolute) escaped their scroll containers and made the whole document taller than the screen.
"""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.e2e.conftest import DESKTOP, PHONE, wait_for_js
from tests.e2e.world import DIFF, MARKDOWN, World, world  # noqa: F401 - the fixture, used by name
from tests.support.fixtures import OpenPage
from tests.support.hubs import HubProcess

PAGE_HEIGHT = "[document.scrollingElement.scrollHeight, window.innerHeight]"


# The first toast is there and its slide-in has ended (a finished CSS animation leaves getAnimations()).
TOAST_AT_REST = ("() => { const toast = document.querySelector('lineup-toasts .toast');"
                 " return toast !== null && toast.getAnimations().length === 0; }")


def test_only_the_panes_scroll_on_a_conversation_with_a_diff_and_in_settings(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    owner, agent = world
    conversation = agent.conversation("Release")
    agent.say(conversation, MARKDOWN)
    agent.ask(conversation, {"type": "review", "title": "Check the model change", "content": DIFF})
    for viewport in (PHONE, DESKTOP):
        page = open_page(hub, viewport=viewport, token=owner.token, path=f"/#/conversations/{conversation}")
        expect(page.locator("lineup-conversation .diff .diff-sign").first).to_be_attached()
        document, screen = page.evaluate(PAGE_HEIGHT)
        assert document == screen, (viewport, document, screen)
        page.goto(hub.base + "/#/settings")
        expect(page.locator("lineup-settings .device-revoke").first).to_be_attached()
        document, screen = page.evaluate(PAGE_HEIGHT)
        assert document == screen, (viewport, "settings", document, screen)


def test_on_a_phone_toasts_leave_the_detail_close_button_free(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    """On a phone a toast takes its own room under the top bar and the task's detail (a drawer) starts below it, so
    the detail's close button is never under a toast (seen in the usability walk: the button could not be pressed).
    The open task's own question pops no toast: its card is on the screen."""
    owner, agent = world
    conversation = agent.conversation("Deploys")
    shown_task, other_task = f"task-{uuid.uuid4().hex[:8]}", f"task-{uuid.uuid4().hex[:8]}"
    for task_id, title in ((shown_task, "Deploy the API"), (other_task, "Deploy the web app")):
        agent.send("task.create", {"title": title}, conversationId=conversation, taskId=task_id)
        agent.send("task.accepted", {}, taskId=task_id)
    page = open_page(hub, viewport=PHONE, token=owner.token, path=f"/#/tasks?task={shown_task}")
    expect(page.locator("lineup-task-detail .detail-inner")).to_be_visible()
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    agent.ask(conversation, {"type": "approval", "title": "Restart the API?"}, task_id=shown_task)
    agent.ask(conversation, {"type": "approval", "title": "Purge the web cache?"}, task_id=other_task)
    expect(page.locator("lineup-toasts .toast")).to_have_count(1)
    expect(page.locator("lineup-toasts .toast")).to_contain_text("Purge the web cache?")
    wait_for_js(page, TOAST_AT_REST)  # the toast slides in (160 ms): measured at rest
    toast = page.locator("lineup-toasts .toast").first.bounding_box()
    close = page.locator("lineup-task-detail .detail-close").bounding_box()
    assert toast and close and toast["y"] + toast["height"] <= close["y"], (toast, close)
    page.locator("lineup-task-detail .detail-close").click()
    expect(page.locator("lineup-task-detail .detail-inner")).to_have_count(0)


def test_on_a_phone_the_end_of_a_task_detail_is_never_under_a_toast(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    """A phone's toast used to sit at the bottom over the detail's end: the timeline's last lines (and its summary,
    when closed) could not be reached until the toast went (a browser test's click landed on the toast in a full
    run). The drawer now starts under the toast, so its end is the screen's end."""
    owner, agent = world
    conversation = agent.conversation("Deploys")
    task_id, other_task = f"task-{uuid.uuid4().hex[:8]}", f"task-{uuid.uuid4().hex[:8]}"
    for made, title in ((task_id, "Deploy the API"), (other_task, "Deploy the web app")):
        agent.send("task.create", {"title": title}, conversationId=conversation, taskId=made)
        agent.send("task.accepted", {}, taskId=made)
    for step in range(1, 25):  # a timeline longer than the screen
        agent.send("task.status_changed", {"progress": step, "summary": f"Step {step}"}, taskId=task_id)
    page = open_page(hub, viewport=PHONE, token=owner.token, path=f"/#/tasks?task={task_id}")
    timeline = page.locator("aside.detail details.timeline")
    expect(page.locator("aside.detail .detail-summary")).to_contain_text("Step 24")
    timeline.evaluate("details => { details.open = true; }")
    # A toast is for what arrives live: ask once the page's socket is up (asked before, it is only in the inbox).
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    agent.ask(conversation, {"type": "approval", "title": "Purge the web cache?"}, task_id=other_task)
    toast = page.locator("lineup-toasts .toast").first
    expect(toast).to_be_visible()
    # Scrolled to its end, the detail's last line is clear of the toast; checked until the layout has settled
    # (the drawer follows the toast's size through a ResizeObserver, and the toast slides in).
    clear = wait_for_js(page, """(() => {
        const pane = document.querySelector('aside.detail');
        pane.scrollTop = pane.scrollHeight;
        const last = [...pane.querySelectorAll('.timeline-list li')].pop().getBoundingClientRect();
        const toast = document.querySelector('lineup-toasts .toast').getBoundingClientRect();
        return (last.top >= toast.bottom || last.bottom <= toast.top) && last.bottom <= innerHeight && [last.top, toast.bottom];
    })()""")
    assert clear, clear
    timeline.locator(".timeline-list li").last.click(trial=True)  # nothing lies on it: a tap would reach it
