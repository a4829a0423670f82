"""Rich, safe content: agent Markdown rendered (tables, lists, highlighted code in a monospace font), hostile
Markdown inert, a unified diff in a review card shown as one, long messages folded, image artifacts previewed (never
svg); and the conversation walkthrough items: it opens at its newest message, a new question is brought into view,
the approval wording, risk badges only when the agent gave a risk, no notification rows in a task's timeline.

A real hub, a real agent on the SDK (in a thread of this process) sending what a test needs, real Chromium.
"""

from __future__ import annotations

import base64
import time
import uuid
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.card_text import expanded
from tests.e2e.conftest import PHONE, api, wait_for_js
from tests.e2e.flows import pending_card
from tests.e2e.world import (  # noqa: F401 - `world` is a fixture, used by name
    DIFF,
    MARKDOWN,
    World,
    loaded_width,
    open_conversation,
    world,
)
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import HubProcess
from tests.support.unchecked_links import store_links_unchecked

# A 1×1 PNG.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cf"
    "c0f01f0005000201a1e2d5b40000000049454e44ae426082")).decode()

HOSTILE = """<script>window.__pwned = 'script'</script>

<img src=x onerror="window.__pwned = 'onerror'">

<iframe src="https://example.com"></iframe>

[click me](javascript:window.__pwned='link') and [html](data:text/html,<script>window.__pwned='data'</script>)
and [vb](vbscript:msgbox) and [relative](/api/me)

![evil svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)

<a href="javascript:window.__pwned='a'">raw link</a> <b onmouseover="window.__pwned='b'">bold</b>
<style>body { display: none }</style> <svg><script>window.__pwned='svg'</script></svg>
<form action="javascript:alert(1)"><button>go</button></form>

```html
<img src=x onerror="window.__pwned = 'code'">
```
"""

def test_markdown_renders_tables_lists_and_highlighted_code(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Plans")
    agent.say(conversation, MARKDOWN)
    agent.say(conversation, "Plain words stay plain.")
    page = open_conversation(open_page, hub, owner.token, conversation)
    body = page.locator(".message.theirs lineup-markdown[data-rendered='markdown']")
    expect(body).to_have_count(1)
    expect(body.locator("table th")).to_have_text(["table", "rows"])
    expect(body.locator("table td").nth(2)).to_have_text("orders")
    expect(body.locator("ul > li")).to_have_count(3)
    expect(body.locator("ul strong")).to_have_text("schema")
    expect(body.locator(".md-heading")).to_have_text("Steps")
    code = body.locator("pre.md-code code.language-python")
    expect(code).to_contain_text("def migrate(db):")
    assert code.locator(".hljs-keyword").count() >= 2  # def, return
    assert code.locator(".hljs-string").count() >= 1
    font = code.evaluate("el => getComputedStyle(el).fontFamily")
    assert "monospace" in font or "Menlo" in font, font
    # highlight.js's colours are the app's: a keyword is not the body text's colour.
    keyword, text = code.locator(".hljs-keyword").first.evaluate(
        "el => [getComputedStyle(el).color, getComputedStyle(el.closest('.message-body')).color]")
    assert keyword != text
    link = body.get_by_role("link", name="the docs")
    expect(link).to_have_attribute("href", "https://example.com/docs")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    # A message with nothing Markdown would change is plain text, and the renderer was fetched only now (lazy).
    expect(page.locator(".message.theirs lineup-markdown.prewrap")).to_have_text("Plain words stay plain.")
    shots(page, "01-markdown")


def test_hostile_markdown_stays_inert(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Hostile")
    agent.say(conversation, HOSTILE)
    page = open_conversation(open_page, hub, owner.token, conversation)
    body = page.locator(".message.theirs lineup-markdown[data-rendered='markdown']")
    expect(body).to_have_count(1)
    expect(body).to_contain_text("click me")
    # The raw HTML is shown as the text it is.
    expect(body).to_contain_text("<script>window.__pwned = 'script'</script>")
    expect(body).to_contain_text('<iframe src="https://example.com"></iframe>')
    for selector in ("script", "iframe", "img", "svg", "style", "form", "button", "object", "embed", "[style]"):
        assert body.locator(selector).count() == 0, selector
    found = body.evaluate("""el => [...el.querySelectorAll('*')].flatMap((n) => [...n.attributes]
        .filter((a) => a.name.startsWith('on') || /^\\s*(javascript|data|vbscript):/i.test(a.value)).map((a) => `${n.localName} ${a.name}=${a.value}`))""")
    assert found == []
    hrefs = body.locator("a[href]").evaluate_all("links => links.map((a) => a.getAttribute('href'))")
    assert hrefs == [], hrefs  # javascript:, data:text/html, vbscript:, a relative link into the hub: none linked
    expect(body.locator("a", has_text="click me")).not_to_have_attribute("href", "javascript:window.__pwned='link'")
    # Hover and click what is there: nothing runs.
    body.locator("a", has_text="click me").click()
    body.get_by_text("evil svg").hover()
    assert page.evaluate("window.__pwned === undefined")
    shots(page, "01-hostile-inert")


def test_review_card_with_a_diff_shows_files_and_lines(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Review")
    agent.ask(conversation, {"type": "review", "title": "Check the model change", "content": DIFF})
    agent.ask(conversation, {"type": "review", "title": "Check the notes", "content": "## 2.3\n- Faster sync"})
    page = open_conversation(open_page, hub, owner.token, conversation, viewport=PHONE)
    card = pending_card(page).filter(has_text="Check the model change")
    diff = card.locator(".diff")
    expect(diff.locator(".diff-file-name")).to_have_text(["app/models.py", "README.md"])
    first = diff.locator(".diff-file").first
    expect(first.locator(".diff-stat")).to_have_text("+2 −1")
    expect(first.locator(".diff-add .diff-text")).to_have_text(['    email = Text(unique=True)', '    plan = Text(default="free")'])
    expect(first.locator(".diff-del .diff-text")).to_have_text(["    email = Text()"])
    expect(first.locator(".diff-context")).to_have_count(5)
    added, removed, plain = (first.locator(sel).first.evaluate("el => getComputedStyle(el).backgroundColor")
                             for sel in (".diff-add", ".diff-del", ".diff-context"))
    assert len({added, removed, plain}) == 3, (added, removed, plain)
    # A deleted line holding a script tag is text.
    expect(diff.locator(".diff-del .diff-text").last).to_have_text("# Old <script>window.__pwned='diff'</script>")
    assert diff.locator("script").count() == 0
    assert page.evaluate("window.__pwned === undefined")
    # Not a diff: the agent's text as it is.
    notes = pending_card(page).filter(has_text="Check the notes")
    # As text, verbatim, in a box of its lines (as an approval's items are shown: no scroll box of its own).
    assert expanded(notes.locator(".review-content .approves-text")) == "## 2.3\n- Faster sync"
    assert notes.locator(".diff").count() == 0
    shots(page, "01-diff")


def test_a_long_message_is_folded_and_opens(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Long")
    agent.say(conversation, "\n".join(f"Line {n} of the report" for n in range(1, 201)))
    agent.say(conversation, "Short answer.")
    page = open_conversation(open_page, hub, owner.token, conversation)
    long_body = page.locator(".message-body").filter(has_text="Line 1 of the report")
    expect(long_body).to_have_attribute("data-collapsed", "true")
    # Folded, only its first part is in the page (lib/markdown.js `preview`): the rest when it is opened.
    expect(long_body.locator("lineup-markdown")).to_have_attribute("data-painted", "preview")
    expect(long_body).not_to_contain_text("Line 200 of the report")
    button = page.get_by_role("button", name="Show more")
    expect(button).to_have_attribute("aria-expanded", "false")
    folded = long_body.evaluate("el => el.getBoundingClientRect().height")
    assert folded < 500, folded
    expect(page.get_by_role("button", name="Show more")).to_have_count(1)  # the short one is not folded
    button.click()
    expect(long_body).to_have_attribute("data-collapsed", "false")
    expect(page.get_by_role("button", name="Show less")).to_have_attribute("aria-expanded", "true")
    opened = long_body.evaluate("el => el.getBoundingClientRect().height")
    assert opened > folded * 4, (folded, opened)
    # The last line is really shown (not clipped): it lies inside the body's box.
    expect(long_body.get_by_text("Line 200 of the report", exact=False)).to_be_visible()
    shots(page, "01-expanded")


def test_image_artifacts_preview_and_svg_does_not(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots, monkeypatch: pytest.MonkeyPatch) -> None:
    owner, agent = world
    store_links_unchecked(monkeypatch)  # svg data: URLs, as an older hub stored them (hub/domain/links.py refuses them)
    conversation = agent.conversation("Charts")
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    agent.send("task.create", {"title": "Draw the charts"}, conversationId=conversation, taskId=task_id)
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"/>').decode()
    for name, url, mime in (("chart.png", f"data:image/png;base64,{PNG}", "image/png"),
                            ("logo.svg", f"data:image/svg+xml;base64,{svg}", "image/svg+xml"),
                            ("icon.png", "/icons/icon-192.png", None),
                            ("remote.png", "https://example.com/x.png", "image/png"),
                            ("sneaky.png", f"data:image/svg+xml;base64,{svg}", "image/png")):
        agent.send("artifact.created", {"name": name, "url": url, **({"mimeType": mime} if mime else {})},
                   conversationId=conversation, taskId=task_id)
    page = open_page(hub, token=owner.token, path=f"/#/tasks?task={task_id}")
    artifacts = page.locator("lineup-task-detail .artifact")
    expect(artifacts).to_have_count(5)
    png = artifacts.filter(has_text="chart.png").locator("img.artifact-preview")
    expect(png).to_have_attribute("alt", "Preview of chart.png")
    expect(png).to_have_attribute("src", f"data:image/png;base64,{PNG}")
    assert loaded_width(png) == 1
    same_origin = artifacts.filter(has_text="icon.png").locator("img.artifact-preview")
    expect(same_origin).to_have_count(1)
    assert loaded_width(same_origin) == 192
    for name in ("logo.svg", "remote.png", "sneaky.png"):
        assert artifacts.filter(has_text=name).locator("img").count() == 0, name
    assert page.evaluate("window.__pwned === undefined")
    shots(page, "01-previews")


def scrolled_to_end(page: Page) -> None:
    wait_for_js(page, """() => { const s = document.querySelector('lineup-conversation .stream');
        return s && s.scrollHeight > s.clientHeight + 500 && s.scrollTop + s.clientHeight >= s.scrollHeight - 4; }""")


def test_conversation_opens_at_its_newest_and_shows_a_new_question(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Busy")
    for n in range(8):
        agent.say(conversation, f"Update {n}:\n\n- step one\n- step two\n\n```python\nprint({n})\n```")
        agent.ask(conversation, {"type": "choice", "title": f"Pick a size {n}",
                                 "options": [{"id": "s", "label": "Small"}, {"id": "l", "label": "Large"}]})
    agent.say(conversation, "The newest message")
    other = agent.conversation("Quiet")
    agent.say(other, "Nothing here")
    page = open_conversation(open_page, hub, owner.token, other, viewport=PHONE)
    # Opened from another conversation (its messages are fetched, then cards and Markdown grow the stream).
    page.evaluate(f"location.hash = '#/conversations/{conversation}'")
    newest = page.locator(".message").filter(has_text="The newest message")
    expect(newest).to_be_in_viewport()
    scrolled_to_end(page)  # and stays there once cards and Markdown have grown the stream
    # Scrolled up to read, a new question still comes into view.
    page.locator("lineup-conversation .stream").evaluate("s => { s.scrollTop = 0; }")
    wait_for_js(page, "document.querySelector('lineup-conversation .stream').scrollTop === 0")
    agent.ask(conversation, {"type": "approval", "title": "Run the database migration?", "risk": "high"})
    card = pending_card(page).filter(has_text="Run the database migration?")
    expect(card).to_be_in_viewport()
    shots(page, "01-new-question")


def test_approval_wording_and_risk_badges(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Wording")
    agent.ask(conversation, {"type": "approval", "title": "Run the database migration?", "risk": "high"})
    agent.ask(conversation, {"type": "choice", "title": "Which size?", "options": [{"id": "s", "label": "Small"}, {"id": "l", "label": "Large"}]})
    agent.ask(conversation, {"type": "input", "title": "Which branch?"})
    agent.ask(conversation, {"type": "review", "title": "Check this", "content": "text"})
    agent.ask(conversation, {"type": "review", "title": "Check that, carefully", "content": "text", "risk": "low"})
    page = open_conversation(open_page, hub, owner.token, conversation)
    cards = pending_card(page)
    expect(cards).to_have_count(5)
    for title in ("Which size?", "Which branch?"):
        card = cards.filter(has_text=title)
        assert card.locator("[data-risk]").count() == 0, title
        expect(card).not_to_contain_text("Medium risk")
    # A review approves what it shows, as an approval does: it shows its risk (the agent's; "medium" unless it said).
    expect(cards.filter(has_text="Check this").locator(".card-head [data-risk]")).to_have_text("Medium risk")
    expect(cards.filter(has_text="Check that, carefully").locator("[data-risk]")).to_have_text("Low risk")
    approval = cards.filter(has_text="Run the database migration?")
    expect(approval.locator("[data-risk]")).to_have_text("High risk")
    approval.get_by_role("button", name="Approve").click()
    confirm = approval.locator(".confirm-box")
    expect(confirm).to_contain_text("High risk: are you sure?")
    assert "?”?" not in confirm.inner_text() and '?"?' not in confirm.inner_text()
    approval.get_by_role("button", name="Yes, approve").click()
    answered = page.locator(".interaction-card[data-status='answered']")
    expect(answered.locator(".decision")).to_have_text("Approved")
    shots(page, "01-answered")


def test_task_timeline_leaves_out_notification_rows(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    owner, agent = world
    conversation = agent.conversation("Timeline")
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    agent.send("task.create", {"title": "Deploy"}, conversationId=conversation, taskId=task_id)
    agent.send("task.accepted", {}, taskId=task_id)
    agent.ask(conversation, {"type": "approval", "title": "Deploy now?"}, task_id=task_id)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the hub files its notification about the question after the question
        timeline = api(hub, owner.token, "GET", f"/api/tasks/{task_id}")["timeline"]
        if any(e["type"] == "notification.created" for e in timeline):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"no notification.created in the task's timeline: {[e['type'] for e in timeline]}")
    page = open_page(hub, token=owner.token, path=f"/#/tasks?task={task_id}")
    rows = page.locator("lineup-task-detail .timeline-list li")
    expect(rows.filter(has_text="Asked you: Deploy now?")).to_have_count(1)
    assert page.locator("lineup-task-detail [data-event-type='notification.created']").count() == 0
    assert "notification.created" not in page.locator("lineup-task-detail .timeline-list").inner_text()
    # The status changes that only follow "Accepted by …" and "Asked you: …" have no line of their own either.
    shown = [e for e in timeline if e["type"] != "notification.created" and not (
        e["type"] == "task.status_changed" and e["payload"].get("cause") in ("accepted", "interaction_requested"))]
    expect(page.locator("lineup-task-detail .timeline .count")).to_have_text(str(len(shown)))


DIFF_CASES: list[tuple[str, Any]] = [
    # (diff text, expected [(oldPath, newPath, added, removed, [kinds of lines])] or None when not a diff)
    ("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", [("x.py", "x.py", 1, 1, ["del", "add"])]),
    ("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n", [(None, "new.txt", 2, 0, ["add", "add"])]),
    ("--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", [("gone.txt", None, 0, 1, ["del"])]),
    ("--- x.c\t2024-05-01 10:00:00\n+++ x.c\t2024-05-02 10:00:00\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
     [("x.c", "x.c", 1, 1, ["context", "del", "add", "note"])]),
    ("diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n--- a/old.py\n+++ b/new.py\n"
     "@@ -1,2 +1,2 @@\n x\n-y\n+z\n@@ -10,1 +10,2 @@\n w\n+v\n", [("old.py", "new.py", 2, 1, ["context", "del", "add", "context", "add"])]),
    ("Fix the bug\n\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n--- old\n+--- new\n", [("a", "a", 1, 1, ["del", "add"])]),
    ("--- a/a\n+++ b/a\n@@ -1,3 +1,3 @@\n-x\n+y\n", None),  # shorter than its header says: not shown as a diff
    ("## Notes\n- one\n- two\n", None),
    ("@@ -1 +1 @@\n-a\n+b\n", None),  # a hunk without a file
    ("--- a/a\n+++ b/a\n", None),  # headers without a hunk
]


def test_unified_diff_parser(hub: HubProcess, open_page: OpenPage) -> None:
    page = open_page(hub)
    for text, expected in DIFF_CASES:
        got = page.evaluate("""async (text) => {
            const files = (await import('/lib/diff.js')).parseUnifiedDiff(text);
            return files && files.map((f) => [f.oldPath, f.newPath, f.added, f.removed,
                                               f.hunks.flatMap((h) => h.lines.map((l) => l.kind))]);
        }""", text)
        assert got == ([list(f) for f in expected] if expected else None), (text, got)
    numbers = page.evaluate("""async () => (await import('/lib/diff.js')).parseUnifiedDiff(
        '--- a/a\\n+++ b/a\\n@@ -5,3 +7,3 @@\\n x\\n-y\\n+z\\n w\\n')[0].hunks[0].lines.map((l) => [l.oldLine, l.newLine])""")
    assert numbers == [[5, 7], [6, None], [None, 8], [7, 9]]
