"""In a real Chromium against a real hub: the app's status names are the ones the hub put in its page
(hub/protocol/vocabulary.py), every one of them is shown with its word, and a name the app has no look for is shown
neutral with its own name rather than a bare string key."""

from __future__ import annotations

from playwright.sync_api import expect

from hub.protocol import vocabulary
from tests.e2e.conftest import PHONE, create_owner
from tests.support.fixtures import OpenPage
from tests.support.hubs import HubProcess

RENDER = """async () => {
  const href = [...document.querySelectorAll('link[rel=modulepreload]')].map((l) => l.href)
    .find((h) => h.endsWith('/lib/status.js'));
  const status = await import(href);  // the very module the app runs (same URL, same instance)
  const { render } = await import(new URL('../vendor/lit-html/lit-html.js', href).href);
  const served = JSON.parse(document.getElementById('lineup-vocabulary').textContent);
  const box = document.createElement('div');
  document.body.append(box);
  const shown = {};
  for (const name of [...served.taskStatuses, 'paused_by_a_newer_hub']) {
    render(status.taskStatusBadge({ status: name }), box);
    const badge = box.querySelector('[data-status]');
    shown[name] = { word: badge.textContent.trim(), tone: [...badge.classList].find((c) => c.startsWith('tone-')) };
  }
  box.remove();
  return { served, terminal: [...status.TERMINAL], statuses: status.TASK_STATUSES, risks: status.RISK_LEVELS, shown };
}"""


def test_the_app_shows_the_statuses_the_hub_sent(hub: HubProcess, open_page: OpenPage) -> None:
    owner = create_owner(hub)
    page = open_page(hub, viewport=PHONE, token=owner.token)
    expect(page.get_by_role("heading", name="Inbox")).to_be_visible()
    seen = page.evaluate(RENDER)
    assert seen["served"] == vocabulary.for_app()
    assert seen["statuses"] == list(vocabulary.TASK_STATUSES)
    assert set(seen["terminal"]) == vocabulary.TERMINAL_TASK_STATUSES
    assert seen["risks"] == list(vocabulary.RISK_LEVELS)
    words = {name: shown["word"] for name, shown in seen["shown"].items()}
    assert words == {"queued": "Queued", "running": "Running", "waiting_for_human": "Waiting for you",
                     "succeeded": "Succeeded", "failed": "Failed", "cancelled": "Cancelled",
                     "paused_by_a_newer_hub": "paused by a newer hub"}
    assert seen["shown"]["paused_by_a_newer_hub"]["tone"] == "tone-neutral"
    assert seen["shown"]["failed"]["tone"] == "tone-danger"
