"""The phone walkthrough's items about layout and wording outside the conversation and its cards: each seen in
a real Chromium against a real hub and the real demo agent."""

from __future__ import annotations

import re
import shlex
import sys
import time
from datetime import datetime
from typing import cast

import httpx
from playwright.sync_api import Browser, FloatRect, Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import connect_demo_agent, go, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import DemoAgents, OpenPage
from tests.support.hubs import HubProcess


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).first.bounding_box()
    assert found, selector
    return found


def overlap(a: FloatRect, b: FloatRect) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_phone_filter_tabs_say_there_are_more_and_the_timeline_shows_it_opens(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport=PHONE, token=owner.token)
    open_agent_conversation(page, phone=True)
    send_task(page, "Tidy the dependencies").click()
    # The timeline is closed on a phone; its summary draws a triangle that turns when it opens.
    summary = page.locator("aside.detail details.timeline > summary")
    expect(summary).to_be_visible()
    marker = "(el) => { const s = getComputedStyle(el, '::before'); return [s.content, s.borderLeftWidth, s.transform]; }"
    content, width, closed = summary.evaluate(marker)
    assert content not in ("none", "normal") and width == "6px", (content, width)
    summary.click()
    expect(page.locator("aside.detail details.timeline")).to_have_attribute("open", "")
    assert summary.evaluate(marker)[2] != closed  # turned down
    page.keyboard.press("Escape")

    # The five filter tabs keep one row (test_lists_at_a_glance.py): none runs off the right edge without a sign.
    go(page, "Tasks", phone=True)
    tabs = page.locator(".filters .filter")
    expect(tabs).to_have_count(5)
    overflowing = page.evaluate("(() => { const f = document.querySelector('.filters'); return f.scrollWidth > f.clientWidth; })()")
    if overflowing:
        expect(page.locator(".filters")).to_have_class(re.compile(r"\bmore-after\b"))


def test_desktop_columns_toasts_plural_and_last_heartbeat(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    connected_at = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["lastHeartbeatAt"]
    page = open_page(hub, viewport=DESKTOP, token=owner.token)

    # No empty "Choose a task…" column beside Inbox, Agents and Settings: the main column takes the room.
    for place in ("Inbox", "Agents", "Settings"):
        go(page, place)
        expect(page.locator("#main h1")).to_have_text(place)
        expect(page.locator("aside.detail")).to_be_hidden()
        assert box(page, "#main")["width"] >= DESKTOP["width"] - 248 - 2, place

    # A task open beside the task list: a toast for another task's question lands clear of the detail pane. (Beside
    # the conversation there is none: the question's card is in the conversation, on the screen.)
    open_agent_conversation(page)
    send_task(page, "First migration").click()
    detail = page.locator("aside.detail")
    expect(pending_card(detail)).to_be_visible(timeout=15_000)
    first = detail.locator(".detail-inner").get_attribute("data-task-id")
    send_task(page, "Second migration")
    page.goto(f"{hub.base}/#/tasks?task={first}")
    toast = page.locator("lineup-toasts .toast").filter(has_text="Second migration")
    expect(toast).to_be_visible(timeout=15_000)
    assert not overlap(cast(FloatRect, toast.bounding_box()), box(page, "aside.detail")), "a toast covers the task detail"
    for button in detail.locator("button").all():
        if button.is_visible():
            assert not overlap(cast(FloatRect, toast.bounding_box()), cast(FloatRect, button.bounding_box())), button.inner_text()

    # Two open tasks: "2 active tasks" (the singular is test_one_active_task_is_singular).
    if page.locator("lineup-toasts .toast-dismiss").count():
        page.locator("lineup-toasts .toast-dismiss").first.click()
    go(page, "Agents")
    expect(page.locator(".agent-card").first).to_contain_text(re.compile(r"\b2 active tasks\b"))
    page.locator("#main .agent-card details.diagnostics > summary").click()

    # Last sign of life: the newest frame from the agent (it reported progress since), not the connect time.
    deadline = time.monotonic() + 10
    latest = connected_at
    while time.monotonic() < deadline and latest == connected_at:
        latest = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["lastHeartbeatAt"]
        time.sleep(0.1)
    assert datetime.fromisoformat(latest.replace("Z", "+00:00")) > datetime.fromisoformat(connected_at.replace("Z", "+00:00"))


def test_one_active_task_is_singular(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    open_agent_conversation(page)
    send_task(page, "Only one")
    go(page, "Agents")
    card = page.locator(".agent-card").first
    expect(card).to_contain_text(re.compile(r"\b1 active task\b"))
    expect(card).not_to_contain_text("1 active tasks")


def test_wrong_password_and_setup_code_in_chinese(hub: HubProcess, browser: Browser) -> None:
    # A device that is not the hub's machine (the hub sees a forwarded request) needs the setup code.
    context = browser.new_context(viewport=PHONE, locale="zh-CN", base_url=hub.base, service_workers="block",
                                  extra_http_headers={"X-Forwarded-For": "192.0.2.7"})
    try:
        page = context.new_page()
        page.goto("/")
        expect(page.locator("#setup-setupCode")).to_be_visible()
        page.locator("#setup-displayName").fill("Ada")
        page.locator("#setup-username").fill("ada")
        page.locator("#setup-password").fill("correct-horse-battery")
        page.locator("#setup-password2").fill("correct-horse-battery")
        page.locator("#setup-workspaceName").fill("Demo")
        page.locator("#setup-setupCode").fill("WRONG-CODE")
        page.locator("lineup-setup button[type=submit]").click()
        error = page.locator("lineup-setup .field-error")
        expect(error).to_contain_text("设置码")
        expect(error).to_contain_text(f"http://127.0.0.1:{hub.port}")
        expect(error).not_to_contain_text("PORT")
    finally:
        context.close()
    # The hub's own hint names its real port too (for API clients).
    answer = httpx.post(hub.base + "/api/setup", headers={"X-Forwarded-For": "192.0.2.8"}, timeout=10,
                        json={"username": "ada", "displayName": "Ada", "password": "correct-horse-battery",
                              "workspaceName": "Demo", "deviceName": "t", "setupCode": "nope"})
    assert answer.status_code == 401 and f"127.0.0.1:{hub.port})" in answer.json()["error"]["hint"]

    owner = create_owner(hub)
    context = browser.new_context(viewport=PHONE, locale="zh-CN", base_url=hub.base, service_workers="block")
    try:
        page = context.new_page()
        page.goto("/")
        page.locator("input[name=username]").fill(owner.username)
        page.locator("input[name=password]").fill("not the password")
        page.locator("lineup-sign-in button[type=submit]").click()
        error = page.locator("lineup-sign-in .field-error")
        expect(error).to_contain_text("用户名或密码错误")
        text = error.inner_text()
        assert "pair" not in text.lower() and "配对" not in text and not re.search(r"[A-Za-z]{4,}", text), text
    finally:
        context.close()
    refused = httpx.post(hub.base + "/api/login", json={"username": "ada", "password": "wrong-one",
                                                       "deviceName": "t"}, timeout=10)
    assert refused.status_code == 401 and "pair" not in refused.json()["error"]["hint"].lower()


def test_hub_down_says_unknown_not_online(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    open_agent_conversation(page)
    send_task(page, "Keep going").click()
    head = page.locator(".conversation-head [data-agent-status]")
    expect(head).to_have_text("Online")
    verdict = page.locator("aside.detail .restart-verdict")
    expect(verdict).to_be_visible()
    hub.stop()
    expect(page.locator(".offline-banner")).to_be_visible(timeout=15_000)
    expect(head).to_have_attribute("data-agent-status", "unknown")
    expect(head).not_to_have_text("Online")
    expect(verdict).not_to_contain_text("working on it")
    expect(verdict).to_contain_text("cannot reach the hub")


def test_hub_down_after_the_agent_was_lost_still_says_the_hub_is_unreachable(
        hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    """A stopping hub closes the agents' sockets first, so the app often hears "connection lost" just before its own
    socket drops. With the hub gone the grace period it counted is no longer known: the verdict says the hub cannot
    be reached (the lost line stays). Here in that order for certain: the agent is killed, then the hub stopped.

    A read of the detail that fails while the hub is away keeps what the detail showed (its timeline, the lost
    line): it was replaced by the bare error, and the detail fell back to the list's copy of the task, without
    either (seen in a full run, where a read scheduled by the loss went out as the hub stopped). Reopening the task
    with the hub down makes that read for certain."""
    owner = create_owner(hub)
    agent = connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    open_agent_conversation(page)
    chip = send_task(page, "Keep going")
    chip.click()
    verdict = page.locator("aside.detail .restart-verdict")
    expect(verdict).to_be_visible()
    agent.kill()
    expect(verdict).to_have_attribute("data-connection-lost", "true", timeout=15_000)
    timeline = page.locator("aside.detail .timeline-list li")
    expect(timeline.first).to_be_visible()
    events = timeline.count()
    hub.stop()
    expect(page.locator(".offline-banner")).to_be_visible(timeout=15_000)
    expect(verdict).to_contain_text("cannot reach the hub")
    expect(verdict.locator(".lost-line")).to_be_visible()
    page.locator("aside.detail .detail-close").click()
    expect(verdict).to_have_count(0)
    chip.click()
    expect(verdict).to_contain_text("cannot reach the hub")
    expect(verdict.locator(".lost-line")).to_be_visible()
    expect(timeline).to_have_count(events)


def test_commands_name_the_real_program_and_data_dir(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    # The test hub runs as `python -m hub serve --data-dir <tmp>`: neither `lineup` on PATH nor the default folder.
    cli = httpx.get(hub.base + "/-/plugins.json", timeout=10).json()["cli"]
    program = f"{shlex.quote(sys.executable)} -m hub"
    assert cli == {"program": program, "dataDirArgs": f"--data-dir {shlex.quote(str(hub.data_dir))}",
                   "portArgs": f"--port {hub.port}"}  # for `serve` only: the test hub is not on 9527
    pairing = api(hub, owner.token, "POST", "/api/pairing-codes", {})
    assert pairing["command"].startswith(f"{program} demo-agent --hub ")
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    go(page, "Agents")
    preset = page.locator(".agent-preset .command").first
    expect(preset).to_have_text(re.compile(
        "^" + re.escape(f"{program} agents add ") + r"\S+ --dir ~/code/my-project " + re.escape(cli["dataDirArgs"]) + "$"))
    page.get_by_role("button", name="Connect my agent").first.click()
    page.get_by_role("radio", name="Demo agent (lineup demo-agent)").check()  # nothing is chosen for the person
    page.get_by_role("button", name="Create a pairing code").click()
    expect(page.locator("lineup-connect-agent .command")).to_contain_text(f"{program} demo-agent --hub")
    assert "lineup demo-agent" not in page.locator("lineup-connect-agent .command").inner_text()
    # The agents people already run are offered too, each with its own one command (seen missing when walked through by
    # hand).
    assert pairing["commands"]["claude-code"].startswith(f"{program} connect claude-code --dir ~/code/my-project --hub ")
    assert pairing["code"] in pairing["commands"]["claude-code"]
    # Codex takes LineUp's approval hook from the user's config only: the app's command says --user.
    assert pairing["commands"]["codex"].startswith(f"{program} connect codex --user --hub ")
    page.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Connect my agent").first.click()
    page.get_by_label("Claude Code, in your terminal").check()
    page.get_by_role("button", name="Create a pairing code").click()
    command = page.locator("lineup-connect-agent .command")
    expect(command).to_contain_text(f"{program} connect claude-code --dir ~/code/my-project --hub {hub.base} --code ")
    expect(page.locator("lineup-connect-agent .pairing")).to_contain_text("with your project folder instead of")


def test_a_long_word_in_a_task_wraps_inside_the_detail_pane(hub: HubProcess, open_page: OpenPage) -> None:
    """Seen in a walkthrough: a summary with a long token (an id, a path, a URL) ran off the detail pane's right
    edge at 1280 px. Agent-controlled words wrap anywhere instead."""
    import asyncio
    import threading

    from hub.sdk import AgentClient, pair

    owner = create_owner(hub)
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "Long words"})["code"]
    token = "Outcome(interaction_id='int_" + "d80a5405f93459fb73515e5d" * 4 + "')"

    async def agent() -> None:
        client = AgentClient(await pair(hub.base, code, name="Long words"))
        await client.start()
        fields = {"taskId": "task_long", "conversationId": "conv_long"}
        await client.send("conversation.create", {"title": "Long"}, conversationId="conv_long")
        await client.send("task.create", {"title": "Path " + "/very/long/path" * 12}, **fields)
        await client.send("task.accepted", {}, **fields)
        await client.send("task.status_changed", {"status": "succeeded", "progress": 100, "summary": token}, **fields)
        await client.close()

    runner = threading.Thread(target=lambda: asyncio.run(agent()))  # the page's own loop runs in this thread
    runner.start()
    runner.join(30)
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    page.goto(hub.base + "/#/tasks?task=task_long")
    detail = page.locator("aside.detail")
    expect(detail.locator(".detail-summary")).to_contain_text("int_d80a5405")
    for selector in (".detail-summary", ".detail-head h2"):
        fits = detail.locator(selector).evaluate(
            "(el) => { const pane = el.closest('aside').getBoundingClientRect(), own = el.getBoundingClientRect();"
            " return el.scrollWidth <= el.clientWidth + 1 && own.right <= pane.right + 1; }")
        assert fits, selector
