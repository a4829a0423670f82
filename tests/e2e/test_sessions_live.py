"""Sessions are live and honest (docs/sessions.md "The session list"), in real Chromium at 390×844 and 1280×800.

A terminal agent's conversation (an agent of runtime claude-code, as `lineup connect claude-code`'s hooks make it)
appears in Sessions and ends there without a reload; its composer says the agent cannot receive messages and is off;
the top bar and the Agents page raise no alarm for it between runs. A session whose agent takes seconds to start
says "Starting <agent>… N s", never Idle; Claude Code's "Bypass Permissions" carries the full-access warning before
it ever ran; the step count never grows; the branch is named by whole words; End turns the composer off, saying
why. A demo agent that is killed is "offline since HH:MM; it resumes where it left off", with no pairing advice.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ViewportSize, expect

from hub.sdk import AgentClient, pair
from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import connect_demo_agent
from tests.integration.test_sessions import make_repo
from tests.support.fixtures import DemoAgents, HubFactory, OpenPage
from tests.support.hubs import HubProcess

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

SLOW_AGENT = Path(__file__).resolve().parents[1] / "support" / "slow_acp_agent.py"
LONG = "Refactor the authentication middleware so that sessions expire"


def slow_hub(hub_factory: HubFactory, tmp_path: Path) -> Any:
    """Sessions on, with Claude Code's key run by the scripted agent that takes 4 s to start."""
    hub = hub_factory(start=False)
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    make_repo(tmp_path / "code" / "proj")
    (hub.data_dir / "lineup.toml").write_text("\n".join([
        "[sessions]", f"roots = [{json.dumps(str(tmp_path / 'code'))}]",
        "[sessions.agents.claude-code]",
        f"command = [{json.dumps(sys.executable)}, {json.dumps(str(SLOW_AGENT))}]",
        'env = { ACP_TEST_START_DELAY_S = "4" }', "init_timeout_s = 30", ""]))
    return hub.start()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_start_shows_progress_and_an_end_closes_the_composer(hub_factory: HubFactory, open_page: OpenPage, tmp_path: Path, viewport: ViewportSize) -> None:
    hub = slow_hub(hub_factory, tmp_path)
    owner = create_owner(hub)
    page = open_page(hub, viewport=viewport, token=owner.token, path="/#/sessions/new")
    steps = page.locator("lineup-new-session section.new-session")
    heading = steps.locator("#new-session-step")
    expect(heading).to_contain_text("of 5")
    steps.locator(".agent-pick[data-agent='claude-code']").click()
    expect(heading).to_contain_text("of 5")  # the count did not grow once the agent was known
    steps.locator(".project-pick").first.click()
    steps.locator(".where-choice[data-where='new_worktree'] input").check()
    steps.locator(".step-next").click()
    expect(steps).to_have_attribute("data-step", "settings")
    bypass = steps.locator(".mode-choice[data-mode='bypassPermissions']")
    expect(bypass).to_have_attribute("data-kind", "full_access")  # before Claude Code ever ran
    bypass.locator("input").check()
    expect(steps.locator(".full-access-warning")).to_be_visible()
    steps.locator("input[name='mode'][type='radio']").first.check()
    steps.locator(".step-next").click()
    steps.locator(".first-message").fill(LONG)
    expect(steps.locator(".summary-where")).to_contain_text("lineup/refactor-the-authentication-middleware")
    expect(steps.locator(".summary-where")).not_to_contain_text("middleware-so")
    steps.locator(".start-session").click()

    bar = page.locator("lineup-session-bar .session-bar")
    badge = bar.locator(".session-status")
    expect(badge).to_have_attribute("data-status", "starting", timeout=10_000)
    expect(badge).to_contain_text(re.compile(r"Starting Claude Code… \d+ s"))
    first = badge.inner_text()
    expect(badge).not_to_have_text(first, timeout=5_000)  # the seconds count up
    expect(bar).not_to_have_attribute("data-status", "starting", timeout=30_000)
    assert bar.get_attribute("data-status") in ("running", "idle")
    expect(page.locator("lineup-composer form")).to_have_attribute("data-closed", "open")

    bar.locator(".session-end").click()
    page.locator("dialog.session-end-confirm .session-end-confirm-button").click()
    expect(bar).to_have_attribute("data-status", "ended", timeout=30_000)
    composer = page.locator("lineup-composer form")
    expect(composer).to_have_attribute("data-closed", "session-ended")
    expect(composer.locator(".composer-closed")).to_contain_text("This session has ended")
    expect(composer.locator("textarea")).to_be_disabled()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_terminal_run_appears_and_ends_live_and_is_no_fault(hub_factory: HubFactory, open_page: OpenPage, tmp_path: Path, viewport: ViewportSize) -> None:
    hub = slow_hub(hub_factory, tmp_path)
    owner = create_owner(hub)
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "Claude Code"})["code"]
    page = open_page(hub, viewport=viewport, token=owner.token, path="/#/sessions")
    expect(page.locator("lineup-sessions .empty")).to_be_visible(timeout=15_000)
    loop = asyncio.new_event_loop()
    thread = ThreadPoolExecutor(1)  # Playwright's sync API holds this thread's event loop
    run: Callable[[Coroutine[Any, Any, Any]], Any] = lambda coro: thread.submit(loop.run_until_complete, coro).result(60)  # noqa: E731

    async def connect() -> AgentClient:
        client = AgentClient(await pair(hub.base, code, name="Claude Code", runtime="claude-code"),
                             runtime="claude-code")
        await client.start(timeout_s=10)
        await client.send("conversation.create", {"title": "Claude Code in proj: fix the tests"},
                          conversationId="conv_cc_live1")
        return client

    try:
        client = run(connect())
        row = page.locator("lineup-sessions .session-row[data-conversation-id='conv_cc_live1']")
        expect(row).to_be_visible(timeout=10_000)  # live: no reload
        expect(row).to_have_attribute("data-status", "idle")
        run(client.close())  # Claude Code exited: its hooks' connection closes normally
        expect(row).to_have_attribute("data-status", "ended", timeout=15_000)

        indicator = page.locator(".agent-indicator")
        expect(indicator).to_have_text("No agent working")
        expect(indicator).to_have_class(re.compile(r"\btone-neutral\b"))
        row.locator("a").click()
        composer = page.locator("lineup-composer form")
        expect(composer).to_have_attribute("data-closed", "no-receive")
        expect(composer.locator(".composer-closed")).to_contain_text("cannot receive messages here")
        expect(composer.locator("textarea")).to_be_disabled()
        expect(composer).not_to_contain_text("delivered when it reconnects")

        page.goto(hub.base + "/#/agents")
        card = page.locator(".agent-card").filter(has_text="Claude Code")
        expect(card.locator(".agent-facts")).to_contain_text("online only while it works in your terminal")
        expect(card.locator("[data-diagnostic-code]")).to_have_count(0)
        expect(card).not_to_contain_text("never connected")
        # Not beside Message as if pairing were the fix; in its details, for a lost credential (as for any agent).
        expect(card.locator(".agent-card-head ~ .button-row .pair-again-button")).to_have_count(0)
    finally:
        thread.submit(loop.close).result(10)
        thread.shutdown()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_killed_agent_says_one_thing(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, viewport: ViewportSize) -> None:
    owner = create_owner(hub)
    demo = connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport=viewport, token=owner.token, path="/#/agents")
    card = page.locator(".agent-card").first
    expect(card).to_have_attribute("data-status", "online")
    demo.kill()
    expect(card).to_have_attribute("data-status", "offline", timeout=15_000)
    facts = card.locator(".agent-facts")
    expect(facts).to_contain_text(re.compile(r"offline since \d{1,2}:\d{2}(:\d{2})?.*; it resumes where it left off"))
    expect(page.locator("lineup-agent-list")).not_to_contain_text("has not come online")
    expect(page.locator("lineup-agent-list")).not_to_contain_text("WebSocket")
    expect(card.locator("[data-diagnostic-code]")).to_contain_text("it resumes where it left off")
    # What to do, in a newcomer's words: start it again the same way; no "adapter", no "credential file" (both
    # newcomers of the usability re-run asked whether to pair again).
    expect(card.locator("[data-diagnostic-code]")).to_contain_text("with the same command as before")
    expect(card).not_to_contain_text("adapter")
    expect(card).not_to_contain_text("credential file")
    # "Pair again" (for a lost credential file) is with the details, not beside Message as if pairing were the fix.
    expect(card.locator(".agent-card-head ~ .button-row .pair-again-button")).to_have_count(0)
    # ...and folded under "More about this agent" with its facts: the box above already says what to do.
    more = card.locator("details.diagnostics details.agent-more")
    expect(more.locator(".pair-again-button")).to_be_hidden()
    more.locator("summary").click()
    expect(more.locator(".pair-again-button")).to_be_visible()
