"""Screenshots of the app's main screens for docs/screenshots/ (docs/screenshots.md): a real hub and the real demo agent,
Chromium at 390×844 and 1280×800, light and dark, device scale 1, shrunk with pngquant/optipng when installed.

Run: `.venv/bin/python -m tests.e2e.screenshots [OUT_DIR]` (default docs/screenshots). Not a test (no test_ prefix).
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.e2e.conftest import DESKTOP, PHONE, DemoAgent, api, create_owner
from tests.e2e.flows import go, open_agent_conversation, pending_card, send_task
from tests.e2e.world import DIFF, MARKDOWN, Agent
from tests.support import browsers
from tests.support.hubproc import HubProcess

ROOT = Path(__file__).parents[2]
SIZES = {"desktop": DESKTOP, "phone": PHONE}  # desktop first: prepare() uses its sidebar


def prepare(page: Page) -> None:
    """One finished task (approved, with its report) and one waiting for an approval, in the demo conversation."""
    open_agent_conversation(page)
    chip = send_task(page, "Migrate the production database")
    chip.click()
    card = pending_card(page.locator("lineup-task-detail"))
    expect(card).to_be_visible(timeout=20_000)
    card.get_by_role("button", name="Approve").click()
    card.get_by_role("button", name=re.compile("^Yes")).click()
    expect(page.locator("lineup-task-detail article.detail-inner")).to_have_attribute("data-status", "succeeded",
                                                                                      timeout=20_000)
    page.locator("lineup-task-detail .detail-close").click()
    send_task(page, "Apply the same plan to staging")
    expect(pending_card(page.locator(".stream"))).to_have_count(1, timeout=20_000)


CHART = """<svg xmlns="http://www.w3.org/2000/svg" width="360" height="200" viewBox="0 0 360 200">
<rect width="360" height="200" fill="#ffffff"/><text x="16" y="28" font-family="sans-serif" font-size="16"
fill="#1f2937">Sync time per release (s)</text>
<g fill="#2563eb"><rect x="30" y="60" width="60" height="120"/><rect x="115" y="85" width="60" height="95"/>
<rect x="200" y="120" width="60" height="60"/><rect x="285" y="140" width="60" height="40"/></g>
<g font-family="sans-serif" font-size="12" fill="#374151"><text x="45" y="195">2.0</text><text x="130" y="195">2.1
</text><text x="215" y="195">2.2</text><text x="300" y="195">2.3</text></g></svg>"""


def chart_png(page: Page) -> str:
    """A small bar chart as a JPEG data URL, drawn by Chromium (an image artifact the app previews; an artifact's
    URL is at most 4,000 characters)."""
    page.set_viewport_size({"width": 240, "height": 134})
    page.set_content(f"<body style='margin:0'><div style='zoom:0.6667'>{CHART}</div></body>")
    for quality in (60, 45, 30):
        url = "data:image/jpeg;base64," + base64.b64encode(page.screenshot(type="jpeg", quality=quality)).decode()
        if len(url) <= 4000:
            return url
    raise AssertionError(f"the chart is too large for an artifact URL: {len(url)} characters")


def rich_content(writer: Agent, chart: str) -> tuple[str, str]:
    """A second agent's conversation with rendered Markdown and a diff to review, and a task with an image."""
    conversation = writer.conversation("Release 2.3")
    writer.say(conversation, MARKDOWN)
    writer.ask(conversation, {"type": "review", "title": "Check the model change", "content": DIFF})
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    writer.send("task.create", {"title": "Draw the release charts"}, conversationId=conversation, taskId=task_id)
    writer.send("artifact.created", {"name": "sync-time.jpg", "url": chart, "mimeType": "image/jpeg"},
                conversationId=conversation, taskId=task_id)
    return conversation, task_id


# The page's fonts and images are in and two frames have been drawn since: the picture shows the page at rest.
SETTLED = """document.fonts.ready
  .then(() => Promise.all([...document.images].filter((image) => !image.complete)
    .map((image) => new Promise((done) => { image.onload = done; image.onerror = done; }))))
  .then(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))))"""


def shoot(page: Page, path: Path) -> None:
    page.evaluate(SETTLED)
    page.screenshot(path=str(path), animations="disabled")


def screens(page: Page, size: str, scheme: str, out: Path, rich: tuple[str, str]) -> list[Path]:
    phone = size == "phone"
    taken = []

    def take(name: str) -> None:
        path = out / f"{name}-{size}-{scheme}.png"
        shoot(page, path)
        taken.append(path)

    go(page, "Inbox", phone)
    expect(pending_card(page.locator("lineup-inbox"))).to_have_count(2)  # the approval and the diff review
    take("inbox")
    conversation, task_id = rich
    dismissed = page.locator("lineup-toasts .toast-dismiss")
    while dismissed.count():  # the pictures show the screens, not the notifications of the set-up above
        dismissed.first.click()
    page.goto(f"/#/conversations/{conversation}")
    expect(page.locator("lineup-conversation .diff")).to_be_visible()
    expect(page.locator("lineup-conversation lineup-markdown table")).to_be_visible()
    page.locator("lineup-conversation lineup-markdown").first.evaluate("e => e.scrollIntoView({block: 'start'})")
    take("markdown")
    page.locator("lineup-conversation .diff").first.evaluate("e => e.scrollIntoView({block: 'center'})")
    take("diff-review")
    page.goto(f"/#/conversations/{conversation}?task={task_id}")
    expect(page.locator("lineup-task-detail img.artifact-preview")).to_be_visible()
    take("image-artifact")
    if phone:
        page.keyboard.press("Escape")
    go(page, "Conversations", phone)
    expect(page.locator("#main .conversation-link")).to_have_count(2)
    take("conversations")
    page.locator("#main .conversation-link").first.click()
    expect(pending_card(page.locator(".stream"))).to_have_count(1)
    if not phone:  # the three columns: conversation and the finished task's detail with its report
        page.locator(".task-chip").first.click()
        expect(page.locator("lineup-task-detail .detail-inner")).to_be_visible()
    take("conversation")
    if not phone:
        page.locator("lineup-task-detail .detail-close").click()
    go(page, "Tasks", phone)
    expect(page.locator("#main .task-row")).to_have_count(3)
    if phone:
        take("tasks")
        page.locator("#main .task-row-button").first.click()
        expect(page.locator("lineup-task-detail .detail-inner")).to_be_visible()
        take("task-detail")
        page.keyboard.press("Escape")
    else:
        take("tasks")
        page.locator("#main .task-row-button").first.click()
        expect(page.locator("lineup-task-detail .detail-inner")).to_be_visible()
        take("task-detail")
    go(page, "Agents", phone)
    expect(page.locator(".agent-card")).to_have_count(2)
    take("agents")
    go(page, "Settings", phone)
    expect(page.get_by_role("heading", name="Settings", exact=True)).to_be_visible()
    take("settings")
    return taken


def first_run(browser: Browser, hub: HubProcess, fresh: HubProcess, out: Path) -> list[Path]:
    """Setup (a hub nobody has set up yet) and sign-in (a browser this hub has not seen), every size and scheme."""
    taken = []
    for scheme in ("light", "dark"):
        for size, viewport in SIZES.items():
            context = browser.new_context(viewport=viewport, device_scale_factor=1, locale="en-US",
                                          service_workers="block", color_scheme=scheme, reduced_motion="reduce")
            page = context.new_page()
            for name, url, field in (("setup", fresh.base, "Your name"), ("sign-in", hub.base, "Password")):
                page.goto(url)
                expect(page.get_by_label(field).first).to_be_visible()
                path = out / f"{name}-{size}-{scheme}.png"
                shoot(page, path)
                taken.append(path)
            context.close()
    return taken


def shrink(paths: list[Path]) -> None:
    if shutil.which("pngquant"):
        for path in paths:
            subprocess.run(["pngquant", "--force", "--skip-if-larger", "--quality", "70-90", "--output", str(path),
                            str(path)], check=False)
    if shutil.which("optipng"):
        subprocess.run(["optipng", "-quiet", "-o2", *map(str, paths)], check=False)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        hub = HubProcess(Path(scratch) / "data").start()
        fresh = HubProcess(Path(scratch) / "fresh").start()  # nobody has set it up: its setup screen
        agent = writer = None
        try:
            owner = create_owner(hub)
            code = api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"]
            folder = Path(scratch) / "agent"
            folder.mkdir()
            agent = DemoAgent(hub, folder, code, 0.3).start()
            deadline = time.monotonic() + 20
            while api(hub, owner.token, "GET", "/api/agents")["agents"][:1] == [] or \
                    api(hub, owner.token, "GET", "/api/agents")["agents"][0]["status"] != "online":
                assert time.monotonic() < deadline, agent.log()
                time.sleep(0.1)
            taken: list[Path] = []
            with sync_playwright() as playwright:
                browser = browsers.launch(playwright, full=True)  # the browser a person has, for the docs
                rich: tuple[str, str] = ("", "")
                for scheme in ("light", "dark"):
                    for size, viewport in SIZES.items():
                        context = browser.new_context(viewport=viewport, device_scale_factor=1, locale="en-US",
                                                      base_url=hub.base, service_workers="block",
                                                      color_scheme=scheme, reduced_motion="reduce")
                        context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
                        page = context.new_page()
                        page.goto("/")
                        expect(page.locator(".topbar")).to_be_visible()
                        if not taken:
                            prepare(page)  # with the demo agent, the only one yet (it opens the first agent card)
                            drawing = browser.new_page()
                            writer = Agent(hub, owner.token)
                            rich = rich_content(writer, chart_png(drawing))
                            drawing.close()
                        taken += screens(page, size, scheme, out, rich)
                        context.close()
                taken += first_run(browser, hub, fresh, out)
                browser.close()
            shrink(taken)
            total = sum(p.stat().st_size for p in taken)
            print(f"{len(taken)} screenshots, {total / 1024:.0f} KiB in {out}")
        finally:
            if writer is not None:
                writer.close()
            if agent is not None:
                agent.stop()
            hub.stop()
            fresh.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")
