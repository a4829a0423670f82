"""Tool calls in the app: an agent's calls show in its conversation as compact cards paired with their
results ("Painter called calculator.add (a=2, b=3) → 5"), errors with their code and the word "Error"; a canvas is
drawn by the canvas plugin's own element and grows live as the agent draws, a reload shows the same drawing (read
back from the event log), closing it shows it closed; a person-facing tool (choice) is shown on its question's card,
not as a second card; a call outside any conversation is listed under Activity in the inbox; and when the canvas
UI module cannot load, the canvas falls back to text and the note names the module."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient

CONVERSATION = "conv_tools"
TASK = "task_paint"
CANVAS_MODULE = "**/plugins/canvas/static/**/lineup-canvas.js"  # served under its folder's version (v/<hash>/)


class Agent:
    """A paired agent "Painter" on its own event loop thread (Playwright's sync API holds the main thread's)."""

    def __init__(self, hub: HubProcess, token: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="tools-agent", daemon=True)
        self.thread.start()
        paired = pair_agent(hub, token, name="Painter")
        self.lap: LapClient = self.run(LapClient.connect(hub.ws_base, "agent", paired["credential"]))
        app: LapClient = self.run(LapClient.connect(hub.ws_base, "app", token))
        self.run(app.ok("conversation.create", {"title": "Studio", "agentIds": [paired["agentId"]]},
                        conversationId=CONVERSATION))
        self.run(app.ok("task.create", {"title": "Paint the logo"}, conversationId=CONVERSATION, taskId=TASK))
        self.run(self.lap.ok("task.accepted", {}, taskId=TASK))
        self.run(app.close())

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(15)

    def call(self, call_id: str, name: str, arguments: dict[str, Any], action: str | None = None,
             conversation: str | None = CONVERSATION, task: str | None = None) -> dict[str, Any]:
        """tool.call, then the tool.result the hub answers with (the person's answer, for a human tool)."""
        payload: dict[str, Any] = {"call_id": call_id, "name": name, "arguments": arguments}
        if action:
            payload["action"] = action
        self.run(self.lap.ok("tool.call", payload, conversationId=conversation, taskId=task))
        return self.result(call_id)

    def send(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        self.run(self.lap.ok("tool.call", {"call_id": call_id, "name": name, "arguments": arguments},
                             conversationId=CONVERSATION))

    def result(self, call_id: str) -> dict[str, Any]:
        frame = self.run(self.lap.event("tool.result", call_id=call_id))
        return dict(frame["payload"])

    def close(self) -> None:
        self.run(self.lap.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def live(page: Page) -> None:
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")


def paths(page: Page) -> Any:
    return page.locator("lineup-tool-instance lineup-canvas svg path")


def test_tool_calls_live_canvas_reload_and_fallback(hub: HubProcess, open_page: OpenPage, browser: Browser, shots: Shots) -> None:
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    try:
        page = open_page(hub, token=owner.token, path=f"/#/conversations/{CONVERSATION}")
        live(page)
        stream = page.locator(".stream")

        # A calculator call and its result, paired in one compact card.
        assert agent.call("c-add", "calculator", {"a": 2, "b": 3}, "add")["result"]["message"] == "5"
        add = stream.locator(".tool-call[data-call-id='c-add']")
        expect(add).to_have_attribute("data-status", "done")
        expect(add).to_contain_text("Painter called calculator.add (a=2, b=3)")
        expect(add.locator(".tool-result")).to_contain_text("→")
        expect(add.locator(".tool-result-text")).to_have_text("5")

        # An invalid call: the error's code and message, with an icon and the word (not colour alone).
        assert agent.call("c-bad", "calculator", {"a": 2}, "add")["error"]["code"] == "invalid_arguments"
        bad = stream.locator(".tool-call[data-call-id='c-bad']")
        expect(bad).to_have_attribute("data-status", "error")
        expect(bad.locator(".tool-error")).to_contain_text("Error")
        expect(bad.locator(".tool-error-code")).to_have_text("invalid_arguments")
        expect(bad.locator(".tool-error .icon")).to_have_count(1)

        # The canvas: the plugin's <lineup-canvas> for the instance, growing live with every draw.
        opened = agent.call("c-open", "canvas", {"width": 240, "height": 140, "title": "Sketch"}, "open")
        instance_id = opened["result"]["instance_id"]
        canvas = stream.locator(f"lineup-tool-instance [data-instance-id='{instance_id}']")
        expect(canvas.locator("lineup-canvas svg")).to_be_visible()
        expect(paths(page)).to_have_count(0)
        page.evaluate("document.querySelector('lineup-canvas').dataset.sameNode = 'yes'")
        agent.call("c-draw1", "canvas", {"instance_id": instance_id, "path": "M20 20 L120 100", "color": "#356ae6",
                                         "width": 4}, "draw")
        expect(paths(page)).to_have_count(1)
        agent.call("c-draw2", "canvas", {"instance_id": instance_id, "path": "M130 100 Q180 10 220 90",
                                         "color": "#c93c37", "width": 4}, "draw")
        expect(paths(page)).to_have_count(2)
        # Updated in place, not re-created: the element that drew the first stroke drew the second.
        assert page.evaluate("document.querySelector('lineup-canvas').dataset.sameNode") == "yes"
        expect(canvas).to_have_attribute("data-instance-status", "open")
        expect(canvas.locator(".tool-call[data-call-id='c-draw2']")).to_contain_text("drawn; 2 strokes")
        assert page.evaluate("document.querySelector('lineup-canvas svg path:last-child').getAttribute('d')") \
            == "M130 100 Q180 10 220 90"
        canvas.scroll_into_view_if_needed()
        shots(page, "01-calls-and-live-canvas")

        # A person-facing tool: its call sits on its question's card; there is no second card for it.
        agent.send("c-choice", "choice", {"question": "Which colour next?", "options": ["Red", "Blue"]})
        card = stream.locator(".interaction-card[data-type='choice']")
        expect(card).to_be_visible()
        linked = stream.locator(".stream-card:has(.interaction-card[data-type='choice']) .tool-call.linked")
        expect(linked).to_contain_text("Painter called choice")
        expect(stream.locator(".tool-item .tool-call[data-call-id='c-choice']")).to_have_count(0)
        card.get_by_label("Blue").check()
        card.get_by_role("button", name="Send choice").click()
        assert agent.result("c-choice")["result"]["message"] == "Blue"
        expect(linked.locator(".tool-result-text")).to_have_text("Blue")
        expect(card).not_to_have_attribute("data-status", "pending")
        shots(page, "02-choice-on-its-card")

        # A reload draws the same canvas from the log, and the earlier results are still paired.
        page.reload()
        live(page)
        expect(paths(page)).to_have_count(2)
        expect(stream.locator(".tool-call[data-call-id='c-add'] .tool-result-text")).to_have_text("5")
        expect(stream.locator(".tool-call[data-call-id='c-bad'] .tool-error-code")).to_have_text("invalid_arguments")

        # Closing it: shown closed, the drawing kept.
        agent.call("c-close", "canvas", {"instance_id": instance_id}, "close")
        expect(canvas).to_have_attribute("data-instance-status", "closed")
        expect(canvas.locator(".tool-instance-head")).to_contain_text("Closed")
        expect(canvas.locator(".lineup-canvas-caption")).to_contain_text("closed")
        expect(paths(page)).to_have_count(2)
        shots(page, "03-after-reload-closed")
        page.set_viewport_size(PHONE)  # the drawing scales to a phone's width
        canvas.scroll_into_view_if_needed()
        assert page.evaluate("document.querySelector('lineup-canvas svg').getBoundingClientRect().width") <= 390
        shots(page, "03b-phone")
        page.set_viewport_size(DESKTOP)

        # A call outside any conversation: under Activity in the inbox.
        agent.call("c-solo", "calculator", {"a": 6, "b": 7}, "multiply", conversation=None)
        page.locator("#sidebar").get_by_role("link", name="Inbox").click()
        solo = page.locator(".tool-activity .tool-call[data-call-id='c-solo']")
        expect(solo).to_contain_text("calculator.multiply (a=6, b=7)")
        expect(solo.locator(".tool-result-text")).to_have_text("42")
        shots(page, "04-activity")

        # A call made for a task: in the task's detail, and on its timeline with its result.
        agent.call("c-task", "calculator", {"a": 10, "b": 4}, "subtract", conversation=None, task=TASK)
        page.goto(f"/#/inbox?task={TASK}")
        detail = page.locator("lineup-task-detail")
        expect(detail.locator(".tool-call[data-call-id='c-task'] .tool-result-text")).to_have_text("6")
        expect(detail.locator(".timeline-list li[data-event-type='tool.call']")).to_contain_text(
            "Painter called calculator.subtract (a=10, b=4) → 6")
        shots(page, "05-task-detail")

        # The canvas UI module failing to load: the text card, with a note naming the module.
        context = browser.new_context(viewport=DESKTOP, locale="en-US", base_url=hub.base, service_workers="block")
        try:
            context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
            context.route(CANVAS_MODULE, lambda route: route.abort())
            broken = open_page(hub, context=context, path=f"/#/conversations/{CONVERSATION}")
            note = broken.locator(f"[data-instance-id='{instance_id}'] .tool-view-note")
            expect(note).to_have_attribute("data-view-status", "failed")
            expect(note).to_contain_text("canvas")
            expect(broken.locator(f"[data-instance-id='{instance_id}'] .tool-state")).to_contain_text("strokes: 2")
            expect(broken.locator("lineup-canvas")).to_have_count(0)
            shots(broken, "06-module-failed-fallback")
        finally:
            context.close()
    finally:
        agent.close()
