"""Screenshots of the session screens for docs/screenshots/ (docs/screenshots.md "Sessions"): a real hub, the scripted
ACP agent (tests/support/acp_agent.py) in a real git repository, Chromium at 390×844, light, device scale 1.

Run: `.venv/bin/python -m tests.e2e.session_screenshots [OUT_DIR]` (default docs/screenshots). Not a test.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

from tests.e2e.conftest import PHONE, create_owner
from tests.e2e.flows import pending_card
from tests.e2e.screenshots import SETTLED, shrink
from tests.e2e.test_sessions_flow import scripted_toml
from tests.integration.test_sessions import make_repo
from tests.support import browsers
from tests.support.hubproc import HubProcess

ROOT = Path(__file__).parents[2]


def shoot(page: Page, out: Path, name: str, taken: list[Path]) -> None:
    page.evaluate(SETTLED)
    path = out / f"{name}-phone-light.png"
    page.screenshot(path=str(path), animations="disabled")
    taken.append(path)


def main(out: Path) -> list[Path]:
    taken: list[Path] = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        base = Path(scratch)
        repo = make_repo(base / "code" / "shop")
        make_repo(base / "code" / "docs-site")
        hub = HubProcess(base / "data")
        hub.data_dir.mkdir(parents=True)
        (hub.data_dir / "lineup.toml").write_text("\n".join([
            "[sessions]", f"roots = [{json.dumps(str(base / 'code'))}]", *scripted_toml(base), ""]))
        hub.start()
        try:
            owner = create_owner(hub)
            browser = browsers.launch(playwright, full=True)  # the browser a person has, for the docs
            context = browser.new_context(viewport=PHONE, locale="en-US", base_url=hub.base, service_workers="block",
                                          color_scheme="light", reduced_motion="reduce")
            context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
            page = context.new_page()
            page.goto("/")
            page.locator("lineup-inbox a.new-session").click()
            steps = page.locator("lineup-new-session section.new-session")
            expect(steps.locator(".agent-pick[data-agent='scripted']")).to_be_visible()
            shoot(page, out, "session-new-agent", taken)
            steps.locator(".agent-pick[data-agent='scripted']").click()
            steps.locator(f".project-pick[data-project='{repo}']").click()
            steps.locator(".where-choice[data-where='new_worktree'] input").check()
            steps.locator(".branch-input").fill("fix/readme")
            shoot(page, out, "session-new-where", taken)
            steps.locator(".step-next").click()
            steps.locator(".first-message").fill("edit README.md # Shop\\n\\nA better first line")
            shoot(page, out, "session-new-message", taken)
            steps.locator(".start-session").click()
            card = pending_card(page.locator(".stream"))
            expect(card.locator(".approves-diff")).to_be_visible(timeout=20_000)
            card.locator(".approves-diff").evaluate("e => e.scrollIntoView({block: 'center'})")
            shoot(page, out, "session-edit-card", taken)
            card.locator("button[data-option]").first.click()
            expect(page.locator("lineup-session-bar .files-changed")).to_have_attribute("data-files", "1",
                                                                                       timeout=20_000)
            shoot(page, out, "session-conversation", taken)
            page.locator("lineup-session-bar .files-changed").click()
            expect(page.locator("lineup-session-changes .changed-file")).to_have_count(1)
            shoot(page, out, "session-files-changed", taken)
            page.locator("lineup-session-changes .changed-file a").click()
            viewer = page.locator("lineup-diff-viewer .diff-viewer")
            expect(viewer).to_have_attribute("data-painted", "true")
            viewer.locator(".diff-line[data-kind='add'] .line-comment").first.click()
            viewer.locator(".comment-text").fill("Say what the shop sells.")
            viewer.locator(".comment-save").click()
            shoot(page, out, "session-diff", taken)
            page.goto("/#/sessions")
            expect(page.locator("lineup-sessions .session-row")).to_have_count(1)
            shoot(page, out, "session-list", taken)
            browser.close()
        finally:
            hub.stop()
    shrink(taken)
    return taken


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    for made in main(folder):
        print(made.relative_to(ROOT) if made.is_relative_to(ROOT) else made)
