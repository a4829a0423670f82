"""Links an agent writes are judged on the parsed URL (security issue item 10), in the app: an artifact's or a review
attachment's `url` becomes a link only when the browser's own parse (`new URL(value, location.href)`) says http(s)
or data:, opens exactly that parsed address, and is labelled as this hub's only when the parsed origin is the hub's.

Before, the app judged the string: `" javascript:alert(1)"`, `"\\tjavascript:…"` and `"java\\nscript:…"` became
links (labelled as pages of the hub), and `/\\t/evil.example/login` was labelled a hub link but opened evil.example.

A real hub storing these values as an older hub did (hub/domain/links.py refuses them now: switched off here by
tests/support/unchecked_links.py), a real agent on the SDK, real Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import create_owner
from tests.e2e.flows import pending_card
from tests.e2e.world import Agent, World
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import HubProcess
from tests.support.unchecked_links import store_links_unchecked

# (id, url, what the app must make of it: None = no link at all, else (data-link, host shown or None))
LINKS: list[tuple[str, str, Any]] = [
    ("space-javascript", " javascript:window.__pwned=1", None),
    ("tab-javascript", "\tjavascript:window.__pwned=2", None),
    ("newline-javascript", "java\nscript:window.__pwned=3", None),
    ("javascript", "JaVaScRiPt:window.__pwned=4", None),
    ("vbscript", "vbscript:msgbox(1)", None),
    ("blob", "blob:https://example.com/0f9c", None),
    ("tab-slash", "/\t/evil.example/login", ("external", "evil.example")),
    ("backslash", "/\\evil.example/login", ("external", "evil.example")),
    ("newline-slash", "/\n/evil.example/login", ("external", "evil.example")),
    ("protocol-relative", "//evil.example/login", ("external", "evil.example")),
    ("userinfo", "https://HUB@evil.example/login", ("external", "evil.example")),
    ("web", "https://example.com/docs?x=1", ("external", "example.com")),
    ("hub-path", "/icons/icon-192.png", ("hub", None)),
]


@pytest.fixture
def world(hub: HubProcess, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Agent]]:
    # The hub refuses these addresses when it stores them (hub/domain/links.py); an older hub's database holds them,
    # and the app must judge them itself all the same.
    store_links_unchecked(monkeypatch)
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    yield owner, agent
    agent.close()


def link_problems(page: Page, key: str) -> list[str]:
    """Every way the app's links differ from LINKS (all of them, so a failure lists each case)."""
    problems = []
    origin = page.evaluate("location.origin")
    for name, url, expected in LINKS:
        item = page.locator(f".artifact[data-artifact='{key.format(name=name)}']")
        links = item.locator("a[href]")
        hrefs = [str(a.get_attribute("href")) for a in links.all()]
        if expected is None:
            if hrefs:
                problems.append(f"{name}: {url!r} became a link {hrefs} ({links.first.get_attribute('data-link')})")
            elif "This link cannot be opened here." not in item.inner_text():
                problems.append(f"{name}: not said to be unopenable")
            continue
        kind, host = expected
        if len(hrefs) != 1:
            problems.append(f"{name}: {len(hrefs)} links")
            continue
        link = links.first
        # The link opens what the browser parsed, and that is what was judged.
        parsed = page.evaluate("([value]) => { const u = new URL(value, location.href); return [u.href, u.origin]; }",
                               [url])
        if hrefs[0] != parsed[0]:
            problems.append(f"{name}: opens {hrefs[0]!r}, the browser reads {parsed[0]!r}")
        if link.get_attribute("data-link") != kind or (kind == "hub") != (parsed[1] == origin):
            problems.append(f"{name}: labelled {link.get_attribute('data-link')!r}, opens {parsed[1]}")
        shown = item.locator(".artifact-host")
        if (shown.inner_text() if shown.count() else None) != host:
            problems.append(f"{name}: names the host {shown.all_inner_texts()}, not {host!r}")
        if (link.get_attribute("target"), link.get_attribute("rel")) != ("_blank", "noopener noreferrer"):
            problems.append(f"{name}: target/rel {link.get_attribute('target')!r} {link.get_attribute('rel')!r}")
    return problems


def test_artifact_links_are_judged_on_the_parsed_url(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Links")
    task_id = "task-links"
    agent.send("task.create", {"title": "Publish the results"}, conversationId=conversation, taskId=task_id)
    for name, url, _ in LINKS:
        agent.send("artifact.created", {"name": f"{name}.txt", "url": url, "artifactId": f"art-{name}"},
                   conversationId=conversation, taskId=task_id)
    agent.send("artifact.created", {"name": "notes.txt", "url": "data:text/plain;charset=utf-8,hello%20there",
                                    "artifactId": "art-data"}, conversationId=conversation, taskId=task_id)
    agent.send("artifact.created", {"name": "big.log", "url": "file:///home/ada/my%20project/big.log",
                                    "artifactId": "art-file"}, conversationId=conversation, taskId=task_id)
    page = open_page(hub, token=owner.token, path=f"/#/tasks?task={task_id}")
    items = page.locator("lineup-task-detail .artifact")
    expect(items).to_have_count(len(LINKS) + 2)
    problems = link_problems(page, "art-{name}")
    assert not problems, "\n".join(problems)
    # data: downloads (or opens as a blob of a safe type); file: is a path on the agent's machine, never a link.
    data = page.locator("[data-artifact='art-data']")
    expect(data.locator("a[download]")).to_have_attribute("href", "data:text/plain;charset=utf-8,hello%20there")
    file = page.locator("[data-artifact='art-file']")
    assert file.locator("a").count() == 0
    expect(file).to_contain_text("A file on the agent’s computer: /home/ada/my project/big.log")
    assert page.evaluate("window.__pwned === undefined")
    shots(page, "artifacts")


def test_review_attachment_links_are_judged_on_the_parsed_url(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Review")
    attachments = [{"name": f"att-{name}", "url": url} for name, url, _ in LINKS]
    agent.ask(conversation, {"type": "review", "title": "Check these files", "content": "See the attachments.",
                             "attachments": attachments})
    page = open_page(hub, token=owner.token, path=f"/#/conversations/{conversation}")
    card = pending_card(page).filter(has_text="Check these files")
    items = card.locator(".artifact")
    expect(items).to_have_count(len(LINKS))
    problems = link_problems(page, "att-{name}")
    assert not problems, "\n".join(problems)
    assert page.evaluate("window.__pwned === undefined")
    shots(page, "attachments")


def test_message_links_open_the_parsed_address(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    owner, agent = world
    conversation = agent.conversation("Message links")
    agent.say(conversation, "[proto](//evil.example/login) [user](https://HUB@evil.example/x) "
                            "[mail](mailto:ada@example.com) [js](javascript:window.__pwned=1) <https://example.com/auto>")
    page = open_page(hub, token=owner.token, path=f"/#/conversations/{conversation}")
    body = page.locator(".message.theirs lineup-markdown")
    expect(body).to_have_attribute("data-rendered", "markdown")
    links = {str(a.inner_text()): a.get_attribute("href") for a in body.locator("a").all()}
    # What opens is the parsed address (`//evil.example` reads as the site it is), and only http(s) and mailto.
    assert links == {"proto": "http://evil.example/login", "user": "https://HUB@evil.example/x",
                     "mail": "mailto:ada@example.com", "js": None,
                     "https://example.com/auto": "https://example.com/auto"}, links
    assert page.evaluate("window.__pwned === undefined")
