"""axe-core (the npm package, injected into the real page) finds no violation on any main screen of the app, at a
phone's 390×844 and a desktop's 1280×800, in the light and the dark colour scheme.

Each screen is checked in both schemes in turn, switched in place (Playwright's emulate_media), so a viewport's
screens are reached once, not once per scheme."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.e2e.flows import connect_demo_agent, go, open_agent_conversation, pending_card, send_task, sign_in
from tests.support.fixtures import DemoAgents
from tests.support.hubs import HubProcess
from tests.support.needs import missing

NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX", "/root/.cache/lineup-agents/npm"))
AXE = NPM_PREFIX / "node_modules" / "axe-core" / "axe.min.js"


def axe_source() -> str:
    if not AXE.exists():
        problem = f"axe-core is missing at {AXE} (.ci/run installs it: npm install --prefix $LINEUP_TEST_NPM_PREFIX)"
        missing(problem)
    return AXE.read_text()


SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")


def assert_no_violations(page: Page, source: str, where: str) -> None:
    """Run every axe rule (WCAG A/AA and best practices) on the whole document, in the light and then the dark
    colour scheme; each violation listed by node. The page is left in the light scheme."""
    if not page.evaluate("() => Boolean(window.axe)"):
        # Evaluated through the DevTools protocol, not a <script> tag: the hub's CSP forbids inline scripts.
        page.evaluate(source)
    found = {}
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        result: dict[str, Any] = page.evaluate(
            "async () => { const r = await axe.run(document, { resultTypes: ['violations'] });"
            " return { violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })) })) }; }")
        found[scheme] = result["violations"]
    page.emulate_media(color_scheme="light")
    problems = {scheme: violations for scheme, violations in found.items() if violations}
    assert not problems, f"{where}: axe violation(s) in {', '.join(problems)}\n" + json.dumps(problems, indent=1)[:6000]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_axe_finds_nothing_on_every_main_screen(hub: HubProcess, browser: Browser, demo_agents: DemoAgents, viewport: ViewportSize) -> None:
    source = axe_source()
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, locale="en-US", base_url=hub.base, service_workers="block",
                                  color_scheme="light", reduced_motion="reduce")  # no colour mid-transition
    context.set_default_timeout(10_000)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/")
        expect(page.locator("lineup-setup h1")).to_be_visible()
        assert_no_violations(page, source, "setup")

        owner = create_owner(hub)
        page.reload()
        expect(page.get_by_label("Password")).to_be_visible()
        assert_no_violations(page, source, "sign-in")
        page.get_by_label("Username").fill(owner.username)
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Sign in").click()
        expect(page.locator(".field-error")).to_be_visible()
        assert_no_violations(page, source, "sign-in with a wrong password")
        sign_in(page, owner)

        connect_demo_agent(hub, owner, demo_agents)
        open_agent_conversation(page, phone=phone)
        send_task(page, "Deploy the first service")
        send_task(page, "Deploy the second service")
        expect(pending_card(page.locator(".stream"))).to_have_count(2, timeout=20_000)
        assert_no_violations(page, source, "a conversation with two pending cards")

        go(page, "Inbox", phone)
        expect(pending_card(page.locator("lineup-inbox"))).to_have_count(2)
        assert_no_violations(page, source, "inbox")

        go(page, "Conversations", phone)
        expect(page.locator("#main h1")).to_have_text("Conversations")
        assert_no_violations(page, source, "conversations")

        go(page, "Tasks", phone)
        expect(page.locator("#main .task-row")).to_have_count(2)
        assert_no_violations(page, source, "tasks")
        page.locator("#main .task-row-button").first.click()
        expect(page.locator("lineup-task-detail .detail-inner")).to_be_visible()
        assert_no_violations(page, source, "a task's detail")
        if phone:
            page.keyboard.press("Escape")
            expect(page.locator("aside.detail")).not_to_be_visible()

        go(page, "Agents", phone)
        expect(page.locator(".agent-card")).to_have_count(1)
        assert_no_violations(page, source, "agents")

        go(page, "Settings", phone)
        expect(page.locator("#main h1")).to_have_text("Settings")
        assert_no_violations(page, source, "settings")
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_axe_finds_nothing_on_the_rich_content_screens(hub: HubProcess, browser: Browser, viewport: ViewportSize) -> None:
    """An agent's message rendered as Markdown (a list, a table, highlighted code), a review card showing a diff,
    and a task's detail previewing an image artifact, from a second agent (as in the screenshots)."""
    from tests.e2e.screenshots import chart_png, rich_content
    from tests.e2e.world import Agent

    source = axe_source()
    owner = create_owner(hub)
    writer = Agent(hub, owner.token)
    drawing = browser.new_page()
    try:
        conversation, task_id = rich_content(writer, chart_png(drawing))
    except BaseException:
        writer.close()
        raise
    finally:
        drawing.close()
    context = browser.new_context(viewport=viewport, locale="en-US", base_url=hub.base, service_workers="block",
                                  color_scheme="light", reduced_motion="reduce")
    context.set_default_timeout(10_000)
    context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"/#/conversations/{conversation}")
        markdown = page.locator("lineup-conversation .message.theirs lineup-markdown[data-rendered='markdown']")
        expect(markdown.locator("ul > li")).to_have_count(3)
        expect(markdown.locator("table td")).to_have_count(4)
        expect(markdown.locator("pre.md-code code.language-python .hljs-keyword").first).to_be_visible()
        markdown.evaluate("e => e.scrollIntoView({block: 'start'})")
        assert_no_violations(page, source, "an agent's message rendered as Markdown")

        diff = pending_card(page.locator("lineup-conversation .stream")).locator(".diff")
        expect(diff.locator(".diff-file-name")).to_have_text(["app/models.py", "README.md"])
        expect(diff.locator(".diff-add").first).to_be_visible()
        diff.evaluate("e => e.scrollIntoView({block: 'center'})")
        assert_no_violations(page, source, "a review card with a diff")

        page.goto(f"/#/conversations/{conversation}?task={task_id}")
        preview = page.locator("lineup-task-detail img.artifact-preview")
        expect(preview).to_have_attribute("alt", "Preview of sync-time.jpg")
        # Waits for the picture in the page (not page.wait_for_function: its polling evals, which the CSP forbids).
        width = preview.evaluate("""img => img.complete ? img.naturalWidth : new Promise((done) => {
            img.addEventListener('load', () => done(img.naturalWidth)); img.addEventListener('error', () => done(0));
            setTimeout(() => done(-1), 10000); })""")
        assert width > 0, f"the image artifact's preview did not load ({'timed out' if width < 0 else 'failed'})"
        expect(preview).to_be_visible()
        assert_no_violations(page, source, "a task's detail with an image preview")
    finally:
        context.close()
        writer.close()
    assert not errors, errors
