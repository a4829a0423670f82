"""Issue "When something goes wrong, the person sees it", items 8, 9 and 10: the agent goes away mid-task, the person
approves while it is down, it comes back. A real hub, the real demo agent (killed, like a crash, then started again),
Chromium at 390×844 in English and 1280×800 in Chinese.

8. "Connection lost since" showed the agent's last heartbeat as if it were when the connection was lost: now the
   line says when the hub noticed (the time of its `agent.status_changed`), with the last sign of life beside it; the
   agent's diagnostics say "Offline since". Also after a reload (read from the log, GET /api/events).
9. Approved while the agent is down, the card said only "Approved" and the progress line kept "Waiting for your
   approval": now "Approved — delivered when Demo agent reconnects", and the progress line says the answer waits.
10. The timeline showed neither the agent leaving nor coming back, named the steps by their ids ("scan") and spoke
    the hub's language ("Queued → Running · accepted"): now it shows both, the child tasks by their titles, words.
"""

from __future__ import annotations

import re
from typing import cast

from playwright.sync_api import Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import connect_demo_agent, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess


def clock(page: Page, iso: str, locale: str = "en") -> str:
    """An instant as the app writes a time of today (lib/i18n.js formatTime), in its locale ('en' or 'zh-CN')."""
    return str(page.evaluate("""([iso, locale]) => new Intl.DateTimeFormat(locale,
        { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(iso))""", [iso, locale]))


def date_time(page: Page, iso: str) -> str:
    """An instant as the app writes it with its date (lib/i18n.js formatDateTime)."""
    return str(page.evaluate("""(iso) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' })
        .format(new Date(iso))""", iso))


def went_offline(hub: HubProcess, token: str, agent_id: str) -> str:
    """When the hub noticed the agent gone: its last agent.status_changed to offline, from the log."""
    found, after = None, 0
    while True:
        page = api(hub, token, "GET", f"/api/events?after={after}")
        for event in page["events"]:
            if event["type"] == "agent.status_changed" and event["payload"]["agentId"] == agent_id \
                    and event["payload"]["status"] == "offline":
                found = event["occurredAt"]
        if page["nextAfter"] is None:
            break
        after = page["nextAfter"]
    assert found, "no agent.status_changed to offline in the log"
    return cast(str, found)


def test_the_agent_goes_away_the_person_approves_it_comes_back(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    agent = connect_demo_agent(hub, owner, demo_agents, step_s=0.5)
    agent_id = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["id"]
    page = open_page(hub, viewport=PHONE, token=owner.token)
    open_agent_conversation(page, phone=True)
    send_task(page, "Migrate the database").click()
    detail = page.locator("aside.detail")
    card = pending_card(detail)
    expect(card).to_be_visible(timeout=15_000)
    task_id = detail.locator(".detail-inner").get_attribute("data-task-id")

    # 8. The agent dies: "lost at <when the hub noticed> · last sign of life <its last heartbeat>".
    agent.kill()
    lost = detail.locator(".restart-verdict .lost-line")
    expect(lost).to_be_visible(timeout=15_000)
    noticed = went_offline(hub, owner.token, agent_id)
    heartbeat = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["lastHeartbeatAt"]
    expect(lost).to_contain_text(f"Agent connection lost at {clock(page, noticed)}")
    expect(lost).to_contain_text(f"last sign of life {clock(page, heartbeat)}")

    # 9. Approved while the agent is down: the card and every progress line say the answer waits for the agent.
    card.get_by_role("button", name="Approve").click()
    card.get_by_role("button", name="Yes, approve").click()
    answered = detail.locator(".interaction-card[data-status='answered']")
    expect(answered).to_be_visible()
    note = detail.locator(".card-delivery")
    expect(note).to_have_text("Approved — delivered when Demo agent reconnects")
    expect(detail.locator(".detail-summary")).to_have_text("Your answer is delivered when Demo agent reconnects")
    expect(detail.locator(".detail-status")).not_to_contain_text("Waiting for your approval")
    shots(page, "01-approved-while-the-agent-is-down")
    page.locator("aside.detail .detail-close").click()
    chip = page.locator(".task-chip")
    expect(chip).to_contain_text("Your answer is delivered when Demo agent reconnects")
    expect(chip).not_to_contain_text("Waiting for your approval")
    expect(chip.locator(".lost-line")).to_contain_text(f"lost at {clock(page, noticed)}")
    expect(page.locator("lineup-conversation .card-delivery")).to_have_text(
        "Approved — delivered when Demo agent reconnects")
    page.goto(f"{hub.base}/#/tasks")
    expect(page.locator(".task-row-summary")).to_have_text("Your answer is delivered when Demo agent reconnects")

    # After a reload the times come from the log (GET /api/events), and the agent's diagnostics say them too.
    page.reload()
    page.goto(f"{hub.base}/#/tasks?task={task_id}")
    expect(lost).to_contain_text(f"Agent connection lost at {clock(page, noticed)}")
    expect(note).to_be_visible()
    chinese = open_page(hub, viewport=DESKTOP, token=owner.token, locale="zh-CN", path=f"/#/tasks?task={task_id}")
    expect(chinese.locator("aside.detail .lost-line")).to_contain_text(f"智能体连接于 {clock(chinese, noticed, 'zh-CN')} 断开")
    expect(chinese.locator("aside.detail .card-delivery")).to_have_text("已批准——将在 Demo agent 重新连接后送达")
    page.goto(f"{hub.base}/#/agents")
    diagnostics = page.locator(".agent-card details.diagnostics")
    expect(diagnostics).to_have_attribute("open", "")
    expect(diagnostics.locator(".offline-since")).to_have_text(date_time(page, noticed))
    expect(diagnostics.locator(".last-sign-of-life")).to_have_text(date_time(page, heartbeat))
    expect(diagnostics).to_contain_text("Offline (connection closed)")

    # The agent comes back: the answer is delivered, the note goes, the task finishes.
    agent.start()
    page.goto(f"{hub.base}/#/tasks?task={task_id}")
    expect(detail.locator(".detail-inner")).to_have_attribute("data-status", "succeeded", timeout=30_000)
    expect(note).to_have_count(0)

    # 10. The timeline: the agent leaving and coming back in their place, the steps by their titles, in words.
    timeline = detail.locator("details.timeline")
    timeline.locator("summary").click()
    rows = timeline.locator(".timeline-list li")
    text = [row.inner_text().split("\n", 1)[-1].strip() for row in rows.all()]
    assert "Demo agent went offline (connection closed)" in text, text
    assert "Demo agent is back online" in text, text
    order = [text.index(line) for line in ("Asked you: Run the database migration?",
                                           "Demo agent went offline (connection closed)", "Approved by You",
                                           "Demo agent is back online", "Started “Apply the migrations”")]
    assert order == sorted(order), text
    assert "Succeeded: “Scan the repository” · 3 services, 41 dependencies" in text, text
    joined = "\n".join(text)
    for internal in ("→", "“scan”", "“plan”", "“apply”", "accepted", "asked you", "you answered"):
        assert internal not in joined, (internal, text)
    shots(page, "02-timeline")
    chinese.reload()
    zh = chinese.locator("aside.detail .timeline-list")
    expect(zh).to_contain_text("Demo agent 已离线（连接已关闭）")
    expect(zh).to_contain_text("Demo agent 已重新上线")
    expect(zh).to_contain_text("开始“Scan the repository”")
    assert not re.search(r"→|accepted", zh.inner_text())
