"""In the browser: the app never runs an agent's pattern (the browser's RegExp backtracks too).

Real Chromium on the real app: an input card whose pattern is `(.|.)*Z` (exponential for a backtracking engine)
is answered with a non-matching text; the tab stays responsive, the hub's refusal naming the pattern is shown on
the card, the person edits the answer and a matching one is taken.
"""

from __future__ import annotations

import contextlib
import time

from tests.e2e.conftest import api, create_owner
from tests.security.support import run_async
from tests.support import browsers
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient

PATTERN = "(.|.)*Z"

with contextlib.suppress(ImportError):  # the test extra installs it; without it browsers.chromium() skips or fails
    from playwright.sync_api import expect


async def ask(hub: HubProcess, credential: str) -> None:
    agent = await LapClient.connect(hub.ws_base, "agent", credential)
    try:
        await agent.ok("conversation.create", {"title": "Codes", "agentIds": []}, conversationId="codes")
        await agent.ok("interaction.requested", {"interaction": {
            "id": "evil", "type": "input", "title": "Which code?", "pattern": PATTERN}}, conversationId="codes")
    finally:
        await agent.close()


def test_the_card_never_runs_the_pattern_and_shows_the_hubs_refusal(hub: HubProcess) -> None:
    owner = create_owner(hub)
    run_async(lambda: ask(hub, pair_agent(hub, owner.token, "Asker")["credential"]))
    with browsers.chromium() as browser:
        context = browser.new_context(base_url=hub.base, service_workers="block")
        context.set_default_timeout(10_000)
        context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/")
        card = page.locator(".interaction-card[data-type='input'][data-status='pending']")
        expect(card).to_be_visible(timeout=15_000)
        expect(card).to_contain_text(f"must match {PATTERN}")
        field = card.get_by_label("Your answer")
        field.fill("a" * 40 + "!")  # 2^40 steps for a backtracking engine
        started = time.monotonic()
        card.get_by_role("button", name="Send answer").click()
        refusal = card.locator(".submission[data-submission='failed']")
        expect(refusal).to_contain_text(f"must match `{PATTERN}`", timeout=5_000)
        assert time.monotonic() - started < 5
        # Typing on after the refusal: every key reaches the field at once, the answer is kept for editing.
        field.press("End")
        field.press_sequentially("aaaa", delay=20)
        expect(field).to_have_value("a" * 40 + "!aaaa", timeout=2_000)
        field.fill("a" * 40 + "Z")
        card.get_by_role("button", name="Send answer").click()
        expect(card).to_have_count(0)  # answered: it leaves "Waiting for me"
        assert not errors, errors
    stored = api(hub, owner.token, "GET", "/api/interactions")["interactions"]
    assert [(i["id"], i["status"]) for i in stored] == [("evil", "answered")]
