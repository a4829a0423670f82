"""Files in the app (issue "When something goes wrong, the person sees it", item 2): an agent's uploaded image is shown
inline and opens full screen, a Markdown report opens rendered, a person attaches a photo in the composer and the
agent receives it and downloads the same bytes, a file too large is refused before anything is sent, a failed upload
is said on the file and the draft is kept, an svg upload is never an image.

Before, an artifact was a link of at most 4,000 characters and the composer had no way to attach anything: each test
here fails there. A real hub on loopback, a real SDK agent (tests/e2e/test_rich_content.py Agent: hub.sdk in a thread),
real Chromium at 390×844 and 1280×800.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, FilePayload, Page, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.e2e.test_axe import assert_no_violations, axe_source
from tests.e2e.world import Agent, World, loaded_width
from tests.support.files import ascii_pdf, png, png_of_size
from tests.support.fixtures import HubFactory, OpenPage, Shots
from tests.support.hubproc import HubProcess

REPORT = """# Weekly report

## Done

- shipped the **migration**
- fixed `flaky_test`

| service | errors |
|:--------|-------:|
| api     | 3      |
| worker  | 0      |
"""


def axe(page: Page, where: str) -> None:
    page.emulate_media(reduced_motion="reduce")  # no colour mid-transition (tests/e2e/test_axe.py)
    assert_no_violations(page, axe_source(), where)


@pytest.fixture
def world(hub: HubProcess) -> Iterator[tuple[Any, Agent]]:
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    yield owner, agent
    agent.close()


def artifact_task(agent: Agent, files: list[tuple[str, bytes, str]]) -> tuple[str, list[dict[str, Any]]]:
    """A task of the agent's with each file uploaded (hub.sdk) and made an artifact of it."""
    conversation = agent.conversation("Reports")
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    agent.send("task.create", {"title": "Write the report"}, conversationId=conversation, taskId=task_id)
    stored = []
    for name, data, mime in files:
        uploaded = agent.run(agent.client.upload_file(data, name=name, mime_type=mime))
        agent.send("artifact.created", {"name": name, "fileId": uploaded["fileId"]}, conversationId=conversation,
                   taskId=task_id)
        stored.append(uploaded)
    return task_id, stored


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_an_agents_2_mb_png_artifact_is_shown_inline_and_full_screen(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots,
                                                                     viewport: ViewportSize) -> None:
    owner, agent = world
    image = png_of_size(2 * 1024 * 1024)
    width = int(((2 * 1024 * 1024) / 3) ** 0.5)
    task_id, [stored] = artifact_task(agent, [("chart.png", image, "image/png")])
    assert stored["size"] == len(image) > 2_000_000
    page = open_page(hub, token=owner.token, path=f"/#/tasks?task={task_id}", viewport=viewport)
    item = page.locator("lineup-task-detail .artifact-file")
    expect(item).to_have_count(1)
    shown = item.locator("lineup-file .file[data-state='ready'] img.file-image")
    expect(shown).to_be_visible(timeout=20_000)
    assert loaded_width(shown) == width  # the agent's bytes, decoded as its PNG
    expect(shown).to_have_attribute("src", re.compile(r"^blob:"))  # the bytes fetched with the token
    box = shown.bounding_box()
    assert box is not None and box["height"] <= 281 and box["width"] <= min(viewport["width"], 361), box
    shots(page, "01-inline")
    axe(page, "an image artifact")
    item.locator("button.file-thumb").click()
    viewer = item.locator("dialog.file-viewer")
    expect(viewer).to_be_visible()
    assert loaded_width(viewer.locator("img")) == width
    shots(page, "02-full-screen")
    page.keyboard.press("Escape")
    expect(viewer).to_be_hidden()


def test_a_markdown_report_opens_rendered_and_an_svg_is_never_an_image(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"><script>window.__pwned=2</script></svg>'
    task_id, stored = artifact_task(agent, [("report.md", REPORT.encode(), "text/markdown"),
                                            ("notes.txt", b"line one\nline two\n", "text/plain"),
                                            ("logo.svg", svg, "image/svg+xml"),
                                            ("data.bin", bytes(range(256)) * 4, "application/octet-stream")])
    assert [s["mimeType"] for s in stored] == ["text/markdown", "text/plain", "text/plain", "application/octet-stream"]
    page = open_page(hub, token=owner.token, path=f"/#/tasks?task={task_id}", viewport=PHONE)
    items = page.locator("lineup-task-detail .artifact-file")
    expect(items).to_have_count(4)
    report = items.filter(has_text="report.md").locator("lineup-markdown[data-rendered='markdown']")
    expect(report).to_have_count(1, timeout=20_000)
    expect(report.locator(".md-heading").first).to_have_text("Weekly report")
    expect(report.locator("table td").nth(2)).to_have_text("worker")
    expect(report.locator("ul strong")).to_have_text("migration")
    notes = items.filter(has_text="notes.txt").locator("lineup-markdown[data-rendered='text']")
    expect(notes).to_contain_text("line two")
    logo = items.filter(has_text="logo.svg")
    expect(logo.locator("lineup-markdown[data-rendered]")).to_contain_text("<svg")  # its source, as text
    assert logo.locator("img, svg:not(.icon)").count() == 0
    binary = items.filter(has_text="data.bin")
    expect(binary.locator(".file-download")).to_be_visible()
    assert binary.locator("img, lineup-markdown").count() == 0
    # Downloaded under its name, with its bytes.
    with page.expect_download() as download:
        binary.locator(".file-download").click()
    saved = download.value
    assert saved.suggested_filename == "data.bin"
    assert Path(saved.path()).read_bytes() == bytes(range(256)) * 4
    assert page.evaluate("window.__pwned === undefined")
    shots(page, "01-report")
    axe(page, "file artifacts")
    # Opened as a page of the hub on its own (no token can ride along; none is needed to refuse it), nothing runs.
    served = page.request.get(f"/api/files/{stored[2]['fileId']}",
                              headers={"Authorization": f"Bearer {owner.token}"})
    assert served.headers["content-type"].startswith("text/plain")


def touch_page(browser: Browser, hub: HubProcess, token: str) -> tuple[Any, Page]:
    """A phone: 390×844, touch, so the composer offers "Photo" (an input with capture)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-US", base_url=hub.base,
                                  service_workers="block")
    context.set_default_timeout(10_000)
    context.add_init_script(f"localStorage.setItem('lineup.token', {token!r});")
    return context, context.new_page()


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_a_person_attaches_a_photo_and_the_agent_downloads_the_same_bytes(hub: HubProcess, open_page: OpenPage, browser: Browser, world: World, shots: Shots,
                                                                          device: str) -> None:
    owner, agent = world
    conversation = agent.conversation("Photos")
    photo = png(320, 240, seed=11)
    delivered: asyncio.Future[dict[str, Any]] = agent.loop.create_future()

    async def got(envelope: dict[str, Any]) -> None:
        if not delivered.done():
            delivered.set_result(envelope)

    agent.client.on("message.delivered")(got)
    context = None
    if device == "phone":
        context, page = touch_page(browser, hub, owner.token)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"/#/conversations/{conversation}")
        chooser = page.locator("lineup-composer .composer-photo input[type=file]")
        expect(chooser).to_have_attribute("capture", "environment")
        expect(chooser).to_have_attribute("accept", "image/*")
    else:
        page = open_page(hub, token=owner.token, path=f"/#/conversations/{conversation}")
        chooser = page.locator("lineup-composer .composer-attach input[type=file]")
        errors = []
    try:
        chooser.set_input_files(files=cast(list[FilePayload], [{"name": "IMG_2041.png", "mimeType": "image/png", "buffer": photo}]))
        chosen = page.locator("lineup-composer .composer-file")
        expect(chosen).to_have_count(1)
        expect(chosen).to_contain_text("IMG_2041.png")
        page.locator("lineup-composer textarea").fill("What is on this photo?")
        shots(page, f"01-chosen-{device}")
        axe(page, "the composer with a file chosen")
        page.locator("lineup-composer .send-button").click()
        waiting = asyncio.wait_for(asyncio.shield(delivered), 20)
        envelope = asyncio.run_coroutine_threadsafe(waiting, agent.loop).result(25)
        [attachment] = envelope["payload"]["attachments"]
        assert envelope["payload"]["content"] == "What is on this photo?"
        assert attachment["name"] == "IMG_2041.png" and attachment["mimeType"] == "image/png"
        assert attachment["size"] == len(photo)
        assert agent.run(agent.client.download_file(attachment["fileId"])) == photo
        # The composer is empty again, and the message shows the photo inline.
        expect(chosen).to_have_count(0)
        sent = page.locator(".message.mine").filter(has_text="What is on this photo?")
        image = sent.locator("lineup-file .file[data-state='ready'] img.file-image")
        expect(image).to_be_visible(timeout=20_000)
        assert loaded_width(image) == 320
        shots(page, f"02-sent-{device}")
        assert not errors, errors
    finally:
        if context is not None:
            context.close()


def test_a_file_too_large_is_refused_before_anything_is_sent(hub_factory: HubFactory, open_page: OpenPage, shots: Shots) -> None:
    hub = hub_factory(env={"LINEUP_MAX_FILE_BYTES": str(1024 * 1024)})
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    try:
        conversation = agent.conversation("Big")
        page = open_page(hub, token=owner.token, path=f"/#/conversations/{conversation}", viewport=PHONE)
        uploads: list[str] = []
        page.on("request", lambda request: uploads.append(request.url) if "/api/files" in request.url else None)
        chooser = page.locator("lineup-composer .composer-attach input[type=file]")
        expect(chooser).to_be_attached()
        huge = png_of_size(2 * 1024 * 1024)
        chooser.set_input_files(files=cast(list[FilePayload], [{"name": "huge.png", "mimeType": "image/png", "buffer": huge},
                                                               {"name": "small.txt", "mimeType": "text/plain", "buffer": b"fits"}]))
        refused = page.locator("lineup-composer .composer-refused")
        expect(refused).to_have_count(1)
        expect(refused).to_contain_text("huge.png")
        expect(refused).to_contain_text("at most 1 MB")
        expect(page.locator("lineup-composer .composer-file")).to_have_count(1)
        expect(page.locator("lineup-composer .composer-file")).to_contain_text("small.txt")
        assert uploads == []
        shots(page, "01-refused")
    finally:
        agent.close()


def test_a_failed_upload_is_said_on_the_file_and_the_draft_is_kept(hub_factory: HubFactory, open_page: OpenPage, shots: Shots) -> None:
    # What one person may keep is 100 KB here: a 300 KB photo is refused by the hub after it was sent.
    hub = hub_factory(env={"LINEUP_MAX_AGENT_FILE_BYTES": str(100 * 1024)})
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    try:
        conversation = agent.conversation("Quota")
        page = open_page(hub, token=owner.token, path=f"/#/conversations/{conversation}")
        page.locator("lineup-composer .composer-attach input[type=file]").set_input_files(
            files=cast(list[FilePayload], [{"name": "photo.png", "mimeType": "image/png", "buffer": png_of_size(300 * 1024)}]))
        page.locator("lineup-composer textarea").fill("Look at this")
        page.locator("lineup-composer .send-button").click()
        failed = page.locator("lineup-composer .composer-file[data-status='failed']")
        expect(failed).to_contain_text("max_agent_file_bytes")
        expect(page.locator("lineup-composer textarea")).to_have_value("Look at this")
        expect(page.locator("lineup-composer .send-button")).to_have_text("Try again")
        assert page.locator(".message.mine").count() == 0
        shots(page, "01-failed")
        axe(page, "a failed upload")
        page.locator("lineup-composer .composer-file-remove").click()
        expect(page.locator("lineup-composer .composer-file")).to_have_count(0)
        page.locator("lineup-composer .send-button").click()
        expect(page.locator(".message.mine").filter(has_text="Look at this")).to_have_count(1)
    finally:
        agent.close()


PDF_VIEWER = "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/"  # Chromium's own PDF viewer


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_pdf_artifact_opens_in_a_tab_of_its_own_as_well_as_downloading(hub: HubProcess, open_page: OpenPage, full_browser: Browser, world: World,
                                                                         shots: Shots, viewport: ViewportSize) -> None:
    """A PDF (here one of ASCII bytes only, which was stored as text/plain and shown as its source) has Open beside
    Download: a new tab, cut from the app, shows the PDF in the browser's viewer from its bytes, a blob: URL of type
    application/pdf (the hub's file URL cannot carry the token). The full Chromium: its headless shell has no PDF
    viewer and downloads instead."""
    owner, agent = world
    pdf = ascii_pdf()
    task_id, [stored] = artifact_task(agent, [("paper.pdf", pdf, "application/pdf")])
    assert stored["mimeType"] == "application/pdf"
    context = full_browser.new_context(viewport=viewport, locale="en-US", base_url=hub.base, service_workers="block",
                                       accept_downloads=True)
    try:
        context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
        # The blob: URLs the app makes, kept to read back (the app's CSP lets no page fetch a blob: URL).
        context.add_init_script("window.__made = {}; const make = URL.createObjectURL; URL.createObjectURL = (b) => "
                                "{ const url = make(b); window.__made[url] = b; return url; };")
        page = open_page(hub, path=f"/#/tasks?task={task_id}", context=context)
        item = page.locator("lineup-task-detail .artifact-file")
        expect(item.locator(".file-open")).to_be_visible()
        expect(item.locator(".file-download")).to_be_visible()
        expect(item.locator(".file-open")).to_have_text(re.compile(r"^Open"))
        assert item.locator("lineup-markdown, img").count() == 0  # never shown as text
        opener, saver = item.locator(".file-open").bounding_box(), item.locator(".file-download").bounding_box()
        assert opener and saver and opener["height"] >= 24 and opener["x"] + opener["width"] <= viewport["width"]
        shots(page, "01-pdf")
        navigated: list[str] = []
        context.on("page", lambda tab: tab.on("framenavigated", lambda frame: navigated.append(frame.url)))
        with context.expect_page() as opened:
            item.locator(".file-open").click()
        tab = opened.value
        # Playwright's sync API hands events over only while it waits in a call of its own: wait_for_timeout, not
        # time.sleep (so not the suite's eventually_sync).
        deadline = time.monotonic() + 20
        while not any(url.startswith(PDF_VIEWER) for url in navigated):  # the viewer took the tab
            assert time.monotonic() < deadline, navigated
            page.wait_for_timeout(100)
        assert tab.url.startswith(f"blob:{hub.base}/"), tab.url
        assert tab.evaluate("window.opener") is None  # cut from the app
        served = page.evaluate("async (url) => { const b = window.__made[url]; return { type: b.type, size: b.size, "
                               "head: await b.slice(0, 8).text() }; }", tab.url)
        assert served == {"type": "application/pdf", "head": "%PDF-1.4", "size": len(pdf)}, served
        with page.expect_download() as download:
            item.locator(".file-download").click()
        assert download.value.suggested_filename == "paper.pdf"
        assert Path(download.value.path()).read_bytes() == pdf
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_an_agents_files_are_chips_on_its_task_card_in_the_conversation(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots,
                                                                        viewport: ViewportSize) -> None:
    """The task's card in the conversation names the agent's files as chips, as they come (the detail was the only
    place they showed): a text file opens in a tab of its own, any other kind downloads; past six, "+N more" opens
    the task."""
    owner, agent = world
    conversation = agent.conversation("Reports")
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    agent.send("task.create", {"title": "Write the report"}, conversationId=conversation, taskId=task_id)
    page = open_page(hub, token=owner.token, path=f"/#/conversations/{conversation}", viewport=viewport)
    card = page.locator(f"lineup-conversation .task-chip-wrap:has(.task-chip[data-task-id='{task_id}'])")
    expect(card).to_be_visible()
    assert card.locator(".file-chip").count() == 0
    files = [("notes.txt", b"line one\nline two\n", "text/plain"),
             ("data.bin", bytes(range(256)) * 4, "application/octet-stream")]
    stored = []
    for name, data, mime in files:  # while the conversation is open: the chips come with the artifacts
        uploaded = agent.run(agent.client.upload_file(data, name=name, mime_type=mime))
        agent.send("artifact.created", {"name": name, "fileId": uploaded["fileId"]}, conversationId=conversation,
                   taskId=task_id)
        stored.append(uploaded)
    chips = card.locator(".task-files .file-chip:not(.file-chip-more)")
    expect(chips).to_have_count(2)
    expect(chips.nth(0)).to_have_text("notes.txt")
    expect(chips.nth(0)).to_have_attribute("data-action", "open")
    expect(chips.nth(1)).to_have_attribute("data-action", "download")
    expect(chips.nth(1)).to_have_accessible_name("Download data.bin")
    for chip in (chips.nth(0), chips.nth(1)):
        box, within = chip.bounding_box(), card.locator(".task-chip").bounding_box()
        assert box and within and box["height"] >= 32 and box["x"] >= within["x"] - 1, (box, within)
        assert box["x"] + box["width"] <= within["x"] + within["width"] + 1, (box, within)
    shots(page, "01-chips")
    axe(page, "file chips on a task's card")
    with page.expect_download() as download:
        chips.nth(1).click()
    assert download.value.suggested_filename == "data.bin"
    assert Path(download.value.path()).read_bytes() == files[1][1]
    with page.context.expect_page() as opened:
        chips.nth(0).click()
    tab = opened.value
    tab.wait_for_url(re.compile(r"^blob:"))
    expect(tab.locator("body")).to_contain_text("line two")  # plain text, in a tab cut from the app
    assert tab.evaluate("window.opener") is None
    tab.close()
    # More than six: the first six and "+N more", which opens the task with all of them.
    for n in range(6):
        uploaded = agent.run(agent.client.upload_file(f"part {n}\n".encode(), name=f"part-{n}.txt",
                                                      mime_type="text/plain"))
        agent.send("artifact.created", {"name": f"part-{n}.txt", "fileId": uploaded["fileId"]},
                   conversationId=conversation, taskId=task_id)
    expect(card.locator(".file-chip-more")).to_have_text("+2 more")
    expect(chips).to_have_count(6)
    shots(page, "02-more")
    card.locator(".file-chip-more").click()
    expect(page.locator("lineup-task-detail .artifact-file")).to_have_count(8)
