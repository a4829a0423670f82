"""Creating a task is found where people look for it: a New task button on the Tasks page makes a task for a chosen
agent (four of five people looked for "New task" under Tasks; the only way was "Track as task" in a conversation's
composer). The task is the agent's, in its conversation, and opens beside the list. A real hub, the real demo agent,
Chromium at 390x844 and 1280x800.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import connect_demo_agent, go
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_new_task_on_the_tasks_page(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots, viewport: ViewportSize) -> None:
    phone = viewport is PHONE
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents, step_s=0.3)
    # A second agent, paired but away: the person chooses which one does the task.
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"]
    httpx.post(hub.base + "/api/pair", json={"code": code, "name": "Night shift"}, timeout=10).raise_for_status()
    page = open_page(hub, viewport=viewport, token=owner.token)
    go(page, "Tasks", phone=phone)
    expect(page.locator(".task-list .empty")).to_be_visible()

    page.get_by_role("button", name="New task").click()
    form = page.locator("lineup-new-task form")
    expect(form.get_by_role("combobox", name="Agent")).to_be_focused()
    # Nothing chosen, nothing said: the form says what is missing, and sends nothing.
    form.get_by_role("button", name="Create task").click()
    expect(form.locator(".field-error")).to_have_text("Choose the agent that should do it.")
    form.get_by_role("combobox", name="Agent").select_option(label="Demo agent · Online")
    form.get_by_role("button", name="Create task").click()
    expect(form.locator(".field-error")).to_have_text("Say what the agent should do.")
    shots(page, "01-new-task")
    form.get_by_label("What should it do?").fill("Tidy the changelog\nKeep the dates as they are.")
    form.get_by_role("button", name="Create task").click()

    # The task is in the list, open beside it, and the agent does it in its own conversation.
    row = page.locator(".task-row").filter(has_text="Tidy the changelog")
    expect(row).to_have_count(1)
    expect(page.locator("lineup-new-task")).to_have_count(0)
    expect(page.locator("#task-detail-heading")).to_have_text("Tidy the changelog")
    expect(page.locator("aside.detail")).to_contain_text("Demo agent")
    tasks = api(hub, owner.token, "GET", "/api/tasks")
    tasks = tasks.get("tasks", tasks) if isinstance(tasks, dict) else tasks
    task = next(t for t in tasks if t["title"] == "Tidy the changelog")
    agents = {a["id"]: a["name"] for a in api(hub, owner.token, "GET", "/api/agents")["agents"]}
    assert agents[task["agentId"]] == "Demo agent"
    assert task["description"] == "Tidy the changelog\nKeep the dates as they are."
    conversations = api(hub, owner.token, "GET", "/api/conversations")
    conversations = conversations.get("conversations", conversations) if isinstance(conversations, dict) else conversations
    conversation = next(c for c in conversations if c["id"] == task["conversationId"])
    assert [agents[a] for a in conversation["agentIds"]] == ["Demo agent"]
    shots(page, "02-task-created")

    # Its message is in the conversation once, as sent: the copy New task sent to a conversation not open stayed
    # "You · Sending…" below the agent's reply in 2 of 5 usability runs (the outbox put it back after the hub stored it).
    stream = page.locator("lineup-conversation .stream")
    page.goto(f"/#/conversations/{conversation['id']}")
    expect(stream.locator(".message.theirs").first).to_be_visible(timeout=30_000)
    expect(stream.locator(".message.mine").filter(has_text="Tidy the changelog")).to_have_count(1)
    expect(stream.locator(".message.outgoing")).to_have_count(0)

    # On a phone, the menu opened while a task is open lies above the task's drawer: its links can be tapped.
    if phone:
        page.goto(f"/#/tasks?task={task['id']}")
        expect(page.locator("aside.detail")).to_be_visible()
        page.get_by_role("button", name="Menu").click()
        page.locator("#sidebar").get_by_role("link", name="Agents").click()
        expect(page.locator("#agents-heading")).to_be_visible()
