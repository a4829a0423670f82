"""One agent message must never freeze the app (security issue item 9): whatever an agent sends, the page's main
thread is never held long, and the text stays there to read.

The target, no task over 200 ms (docs/quality.md P1), is measured in wall time by `python -m bench.page_responsiveness`
on a quiet machine (bench/README.md: none over 51 ms). These tests hold every task of the page's main thread to the
same 200 ms in CPU time, from Chromium's trace (tests/e2e/main_thread.py): a suite run shares two cores with other
browsers and real agents, and wall time there counted the machine's load (a 1,006 ms task, run 49, where the same
test's tasks took at most 37 ms of CPU with four busy loops beside it). What uncut work took on these messages before
(1 s to 42 s, and 434 ms for 200 ordinary messages) is over it.

Before: a 256K-character `a_a_a_…` message held the page 38.8 s every time its conversation opened (marked on the
main thread), thousands of nested `>` overflowed marked's stack (an uncaught RangeError), a 100,000-line message took
23 s in the app's own "does this need Markdown?" check, and 200 ordinary Markdown messages were formatted in one task.
Now marked and highlight.js run in a worker with a time budget (ui/lib/markdown-worker.js, markdown-render.js) and
the text goes into the page a few pieces per frame (ui/lib/markdown.js).

A real hub, a real agent on the SDK sending the messages, real Chromium; tasks are seen from before the conversation
opens until its text is on the screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import create_owner, wait_for_js
from tests.e2e.hostile_corpus import HOSTILE, TEXT
from tests.e2e.main_thread import MainThreadTasks, idle
from tests.e2e.world import Agent, World
from tests.support.fixtures import MainThread, OpenPage, Shots
from tests.support.hubproc import HubProcess

LIMIT_MS = 200  # CPU time of one main-thread task (docs/quality.md P1)
@pytest.fixture
def world(hub: HubProcess) -> Iterator[tuple[Any, Agent]]:
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    yield owner, agent
    agent.close()


def open_watched(open_page: OpenPage, main_thread: Callable[[], MainThreadTasks], hub: HubProcess, token: str,
                 agent: Agent, conversation: str) -> tuple[Page, MainThreadTasks]:
    """The app opened on another conversation, Chromium's trace started, then the conversation opened (as a person
    taps it): every task from there on is seen."""
    quiet = agent.conversation("Quiet")
    agent.say(quiet, "Nothing here")
    page = open_page(hub, token=token, path=f"/#/conversations/{quiet}")
    expect(page.locator(".message.theirs").filter(has_text="Nothing here")).to_be_visible()
    tasks = main_thread()
    page.evaluate(f"location.hash = '#/conversations/{conversation}'")
    return page, tasks


def assert_no_long_task(page: Page, tasks: MainThreadTasks) -> None:
    """No task of the page's main thread took over LIMIT_MS of CPU, once the page is idle (what it was doing, done)."""
    idle(page)
    over = tasks.over(LIMIT_MS)
    assert over == [], f"tasks over {LIMIT_MS} ms of CPU on the page's main thread: {over}"


def shown_text(body: Any) -> str:
    """The message's text as the page shows it, without the note saying it is shown as text, whitespace removed (the
    pieces it is put into the page in are separate blocks)."""
    text = body.evaluate("""el => [...el.children].filter((c) => !c.classList.contains('md-note'))
        .map((c) => c.innerText).join('')""")
    return "".join(str(text).split())


def settled(body: Any, timeout_s: float = 30) -> str:
    """How the message is shown once that is final, all of it in the page: "markdown", or "text" with the note
    saying why. A message the worker has not answered yet is shown as text meanwhile, without a note, and replaced
    when the answer comes (a run read such a text while its formatted form was going in, and missed its end)."""
    deadline = time.monotonic() + timeout_s
    while True:
        rendered, fallback, painted = body.evaluate(
            "el => [el.dataset.rendered, el.dataset.fallback, el.dataset.painted]")
        if painted == "all" and (rendered == "markdown" or (rendered == "text" and fallback)):
            return str(rendered)
        if time.monotonic() > deadline:
            raise AssertionError(f"not settled after {timeout_s:g} s: {rendered=} {fallback=} {painted=}")
        time.sleep(0.05)


@pytest.mark.parametrize(("name", "message"), HOSTILE, ids=[name for name, _ in HOSTILE])
def test_a_hostile_message_never_holds_the_page(hub: HubProcess, open_page: OpenPage, main_thread: MainThread, world: World, shots: Shots, name: str, message: str) -> None:
    owner, agent = world
    assert len(message) <= TEXT
    conversation = agent.conversation(f"Hostile {name}")
    agent.say(conversation, message)
    agent.say(conversation, "The **newest** message")
    page, tasks = open_watched(open_page, main_thread, hub, owner.token, agent, conversation)
    newest = page.locator(".message.theirs lineup-markdown").filter(has_text="The newest message")
    expect(newest.locator("strong")).to_have_text("newest", timeout=20_000)
    message_box = page.locator(".message.theirs").filter(has_text="START")
    expect(message_box.get_by_text("START", exact=False).first).to_be_visible(timeout=20_000)
    # Folded (it is long): opened, all of it comes into the page, a little per frame.
    message_box.get_by_role("button", name="Show more").click()
    expect(message_box.get_by_text("END", exact=False).last).to_be_visible(timeout=30_000)
    body = message_box.locator("lineup-markdown")
    if settled(body) == "text":
        # Shown as text: every character is there, and the note says why.
        assert shown_text(body) == "".join(message.split())
        expect(body.locator(".md-note")).to_be_visible()
    shots(page, name)
    assert_no_long_task(page, tasks)


def test_a_worker_slow_to_load_its_code_still_formats_the_first_message(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    """A message's time budget runs once the worker has loaded marked and highlight.js. Before, it ran from when the
    message was sent to a worker still loading them, so on a busy machine (a suite run, 12 s stolen by the host) or a
    slow phone the first message of a conversation, `The **newest** message`, was shown as plain text "too long or
    too complex to format", and stayed so."""
    owner, agent = world
    conversation = agent.conversation("First words")
    agent.say(conversation, "The **newest** message")
    page = open_page(hub, token=owner.token, path="/#/inbox")
    expect(page.locator(".connection-indicator[data-connection=live]")).to_be_attached()
    delayed: list[str] = []

    def slow(route: Any) -> None:  # the worker's Markdown library, 2.5 s late (the budget is 1.5 s)
        delayed.append(route.request.url)
        time.sleep(2.5)
        route.continue_()

    page.route("**/vendor/marked/marked.esm.js", slow)
    page.evaluate(f"location.hash = '#/conversations/{conversation}'")
    body = page.locator(".message.theirs lineup-markdown").filter(has_text="newest")  # as text or formatted
    expect(body).to_have_attribute("data-rendered", "markdown", timeout=20_000)
    expect(body.locator("strong")).to_have_text("newest")
    expect(body.locator(".md-note")).to_have_count(0)
    assert delayed, "the worker's code was not fetched through the slowed route"


def test_a_worker_that_cannot_load_says_so_and_the_message_is_formatted_once_it_can(hub: HubProcess, open_page: OpenPage, world: World) -> None:
    """The worker's Markdown library fails to load (a dropped request): the message is shown as text saying that
    formatting could not be loaded, not that the message is too complex, and that is not held against the message:
    opened again, with the library reachable, it is formatted. Every message waiting on that worker is told at once:
    before, each was given a new worker of its own, which failed in turn (five loads for five messages, and with a
    library that hangs, 20 s apart)."""
    owner, agent = world
    conversation = agent.conversation("First words")
    for n in range(4):
        agent.say(conversation, f"Step **{n}**")
    agent.say(conversation, "The **newest** message")
    quiet = agent.conversation("Quiet")
    agent.say(quiet, "Nothing here")
    page = open_page(hub, token=owner.token, path=f"/#/conversations/{quiet}")
    expect(page.locator(".message.theirs").filter(has_text="Nothing here")).to_be_visible()
    dropped: list[str] = []
    page.route("**/vendor/marked/marked.esm.js", lambda route: (dropped.append(route.request.url), route.abort()))
    page.evaluate(f"location.hash = '#/conversations/{conversation}'")
    body = page.locator(".message.theirs lineup-markdown").filter(has_text="newest")
    expect(body).to_have_attribute("data-fallback", "markdown.notLoaded", timeout=20_000)
    expect(body.locator(".md-note")).to_have_text(
        "Shown as plain text: formatting could not be loaded. Open the conversation again to try again.")
    noted = page.locator(".message.theirs lineup-markdown[data-fallback='markdown.notLoaded']")
    expect(noted).to_have_count(5)
    assert len(dropped) == 1, dropped  # one worker tried, for all five
    page.unroute("**/vendor/marked/marked.esm.js")
    page.evaluate(f"location.hash = '#/conversations/{quiet}'")
    expect(page.locator(".message.theirs").filter(has_text="Nothing here")).to_be_visible()
    page.evaluate(f"location.hash = '#/conversations/{conversation}'")
    expect(body).to_have_attribute("data-rendered", "markdown", timeout=20_000)
    expect(body.locator("strong")).to_have_text("newest")
    expect(body.locator(".md-note")).to_have_count(0)


def test_hundreds_of_messages_open_without_a_long_task(hub: HubProcess, open_page: OpenPage, main_thread: MainThread, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Busy")
    for n in range(180):
        agent.say(conversation, f"Update {n}:\n\n- step **one**\n- step `two`\n\n| a | b |\n|---|---|\n| {n} | x |\n\n"
                                f"```python\nprint({n})\n```")
    for n in range(10):
        agent.say(conversation, f"Slow {n} " + "a_" * 3000)  # each a fraction of a second in marked
    agent.say(conversation, "The **newest** message")
    page, tasks = open_watched(open_page, main_thread, hub, owner.token, agent, conversation)
    newest = page.locator(".message.theirs lineup-markdown").filter(has_text="The newest message")
    expect(newest).to_have_attribute("data-rendered", "markdown", timeout=20_000)
    expect(newest).to_be_in_viewport()
    bodies = page.locator(".message.theirs lineup-markdown")
    expect(bodies).to_have_count(191)
    wait_for_js(page, "document.querySelectorAll('.message.theirs lineup-markdown[data-rendered]').length === 191",
                timeout_ms=30_000)
    first = bodies.filter(has_text="Update 0:")
    expect(first).to_have_attribute("data-rendered", "markdown")
    expect(first.locator("table td").first).to_have_text("0")
    shots(page, "busy")
    assert_no_long_task(page, tasks)


def test_a_conversation_of_the_longest_messages_opens_without_a_long_task(hub: HubProcess, open_page: OpenPage, main_thread: MainThread, world: World) -> None:
    """150 messages of 256 Ki characters, alike but for their last characters (V8 hashes a string that long by its
    length alone: a cache keyed by the text made every lookup compare them all, a 1 s task)."""
    owner, agent = world
    conversation = agent.conversation("Longest")
    for n in range(150):
        agent.say(conversation, "a_" * ((TEXT - 8) // 2) + f" {n:06d}!")
    agent.say(conversation, "The **newest** message")
    page, tasks = open_watched(open_page, main_thread, hub, owner.token, agent, conversation)
    newest = page.locator(".message.theirs lineup-markdown").filter(has_text="The newest message")
    # 38 MiB of text to paint a few pieces a frame: a CI run sharing its cores with real agents took longer than
    # the 30 s first allowed (a wait, not the measure: the measure is the long tasks below).
    expect(newest.locator("strong")).to_have_text("newest", timeout=60_000)
    wait_for_js(page, "document.querySelectorAll('.message.theirs lineup-markdown[data-painted]').length === 151",
                timeout_ms=90_000)
    expect(page.locator(".message.theirs").filter(has_text="a_a_a_").first).to_be_visible()
    assert_no_long_task(page, tasks)


def test_a_long_task_description_opens_a_little_at_a_time(hub: HubProcess, open_page: OpenPage, main_thread: MainThread, world: World) -> None:
    owner, agent = world
    conversation = agent.conversation("Work")
    description = "FIRST\n" + "ab\n" * 85000 + "LAST"
    agent.send("task.create", {"title": "Big plan", "description": description}, conversationId=conversation,
               taskId="task-big-plan")
    page = open_page(hub, token=owner.token, path="/#/inbox")
    expect(page.locator("lineup-inbox")).to_be_visible()
    tasks = main_thread()
    page.evaluate("location.hash = '#/tasks?task=task-big-plan'")
    details = page.locator("lineup-task-detail details").filter(has_text="What was asked")
    details.locator("summary").click()
    expect(details.get_by_text("LAST")).to_be_visible(timeout=30_000)
    text = details.evaluate("""el => [...el.children].filter((c) => c.localName !== 'summary')
        .map((c) => c.innerText).join('')""")
    assert "".join(str(text).split()) == "".join(description.split())
    assert_no_long_task(page, tasks)
