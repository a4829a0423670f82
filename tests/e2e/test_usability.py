"""The usability test script (docs/design.md#no-approval-by-accident), played in a real browser at desktop and phone
sizes:

1. connect a simulated agent and tell whether it is online;
2. create "整理项目依赖并产出计划" as a task and find its current progress;
3. handle a high-risk approval without opening any log;
4. let the agent drop and come back, and tell whether the task must be restarted;
5. answered while the agent is down, the restarted agent asks nothing twice: one card, each step once,
   no child left running, and the task finishes.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.e2e.flows import sign_in
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess

TASK_TEXT = "整理项目依赖并产出计划"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_usability_script(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots, viewport: ViewportSize) -> None:
    phone = viewport is PHONE
    owner = create_owner(hub)
    page = open_page(hub, viewport=viewport)
    sign_in(page, owner)
    topbar = page.locator(".topbar")
    expect(topbar.locator(".agent-indicator")).to_have_text(re.compile("No agent"))
    shots(page, "01-signed-in")

    # ---- 1. connect a simulated agent; is it online? ------------------------------------------------
    page.locator(".welcome").get_by_role("link", name="Connect my agent").click()  # opens the pairing dialog
    page.get_by_role("radio", name="Demo agent (lineup demo-agent)").check()  # the task: a simulated agent
    page.get_by_role("button", name="Create a pairing code").click()
    code = page.locator(".pairing-code").inner_text()
    assert re.fullmatch(r"[A-Z0-9-]{6,}", code), code
    expect(page.locator(".countdown")).to_contain_text(re.compile(r"Valid for (10:00|9:\d\d) more"))
    expect(page.locator("lineup-connect-agent .command")).to_contain_text(f"--code {code}")
    expect(page.locator(".waiting-line")).to_contain_text("Waiting for the agent")
    shots(page, "02-pairing-code")
    agent = demo_agents(hub, code, step_s=0.4)
    paired = page.locator(".paired")
    expect(paired).to_have_attribute("data-online", "true", timeout=15_000)
    expect(paired.locator(".agent-name")).to_have_text("Demo agent")
    expect(paired.locator(".agent-runtime")).to_have_text("demo")
    expect(paired.locator(".agent-version")).to_have_text("1.0")
    expect(paired.locator(".agent-capabilities")).to_contain_text("approval")
    expect(paired.locator("[data-agent-status]")).to_have_text("Online")  # a word, not only a green dot
    expect(topbar.locator(".agent-indicator")).to_have_text(re.compile("Agent online"))
    shots(page, "03-agent-online")

    # ---- 2. create the task and find its progress ---------------------------------------------------
    paired.get_by_role("button", name="Message").click()
    composer = page.locator("lineup-composer")
    expect(composer.locator("textarea")).to_be_visible()
    composer.locator("textarea").fill(TASK_TEXT)
    composer.get_by_label("Track as task").check()
    composer.get_by_role("button", name="Send").click()
    chip = page.locator(".task-chip").filter(has_text=TASK_TEXT)
    expect(chip).to_be_visible()
    # The demo agent answers every message with streamed text (message.delta), then stores it whole.
    expect(page.locator(".message.theirs").filter(has_text=f"I received: {TASK_TEXT}")).to_be_visible(timeout=10_000)
    expect(chip.locator("[data-status]").first).to_have_text(re.compile("Running|Waiting for you"), timeout=10_000)
    chip.click()
    detail = page.locator("lineup-task-detail article.detail-inner")
    expect(detail).to_be_visible()
    expect(detail.locator(".progress-number")).to_have_text(re.compile(r"\d+%"))
    expect(detail.locator(".child-task").first).to_be_visible()
    shots(page, "04-task-progress")

    # ---- 3. the high-risk approval, answered in the conversation, no log opened ---------------------
    card = detail.locator(".interaction-card[data-status='pending']")
    expect(card).to_be_visible(timeout=15_000)
    expect(detail.locator(".detail-status [data-status]").first).to_have_text("Waiting for you")
    expect(card.locator("[data-risk]")).to_have_text("High risk")
    expect(card.locator(".card-title")).to_have_text("Run the database migration?")
    expect(card.locator(".why")).to_contain_text("production database")
    expect(card.locator(".impact")).to_contain_text("rolled back")
    expect(card.locator("details.card-details")).not_to_have_attribute("open", "")
    shots(page, "05-approval")
    card.get_by_role("button", name="Approve").click()
    # High risk asks a second, explicit time (docs/design.md#no-approval-by-accident).
    card.get_by_role("button", name="Yes, approve").click()
    resolved = detail.locator(".interaction-card").first
    expect(resolved).to_have_attribute("data-status", "answered")
    expect(resolved.locator(".decision")).to_have_text("Approved")
    expect(resolved.locator(".card-outcome")).to_contain_text("Decided by Ada Lovelace (you)")
    expect(resolved.get_by_role("button", name="Approve")).to_have_count(0)
    expect(detail).to_have_attribute("data-status", "succeeded", timeout=15_000)
    expect(detail.locator(".progress-number")).to_have_text("100%")
    link = detail.locator(".artifact").filter(has_text="migration-report.md").get_by_role("link", name=re.compile("Download"))
    expect(link).to_have_attribute("href", re.compile(r"^data:text/markdown;base64,"))
    expect(detail.locator(".timeline-list li")).not_to_have_count(0)
    shots(page, "06-succeeded")

    # ---- 4. the agent drops and comes back: does the task need restarting? --------------------------
    detail.locator(".detail-close").click()
    composer.locator("textarea").fill("Apply the same plan to the staging database")
    composer.get_by_label("Track as task").check()
    composer.get_by_role("button", name="Send").click()
    second = page.locator(".task-chip").filter(has_text="staging database")
    expect(second.locator("[data-status]").first).to_have_text("Waiting for you", timeout=15_000)
    agent.kill()
    expect(topbar.locator(".agent-indicator")).to_have_text(re.compile("Agent offline"), timeout=10_000)
    expect(second).to_contain_text("Agent connection lost at")
    second.click()
    verdict = page.locator("lineup-task-detail .restart-verdict")
    expect(verdict).to_have_attribute("data-connection-lost", "true")
    expect(verdict).to_contain_text("Agent connection lost at")
    expect(verdict).to_contain_text("Needs restarting? No.")
    expect(verdict).to_contain_text("your answer is kept")
    shots(page, "07-agent-lost")
    # ---- 5. answered while the agent is down, then it restarts: nothing asked or done twice ---------
    pending = page.locator("lineup-task-detail .interaction-card[data-status='pending']")
    pending.get_by_role("button", name="Approve").click()
    pending.get_by_role("button", name="Yes, approve").click()  # high risk: the second, explicit step
    cards = page.locator("lineup-task-detail .interaction-card")
    expect(cards.first).to_have_attribute("data-status", "answered")
    agent.start()
    expect(topbar.locator(".agent-indicator")).to_have_text(re.compile("Agent online"), timeout=15_000)
    # Back, the detail stops saying the connection is lost: the verdict clears its line, or (when the restarted
    # agent finished before this check, as on a loaded machine) the finished task shows no verdict at all.
    expect(page.locator("lineup-task-detail")).not_to_contain_text("Agent connection lost")
    expect(verdict.and_(page.locator("[data-connection-lost='true']"))).to_have_count(0)
    expect(second).not_to_contain_text("Agent connection lost")
    task_detail = page.locator("lineup-task-detail article.detail-inner")
    expect(task_detail).to_have_attribute("data-status", "succeeded", timeout=20_000)
    expect(cards).to_have_count(1)  # the restarted agent found the answer: no second card
    expect(cards.first.locator(".decision")).to_have_text("Approved")
    children = task_detail.locator(".child-task")
    expect(children).to_have_count(3)  # scan, plan, apply: each once, none created again
    expect(task_detail.locator(".child-task[data-child-status='succeeded']")).to_have_count(3)  # none left running
    expect(task_detail.locator(".progress-number")).to_have_text("100%")
    shots(page, "08-agent-back")
    if phone:
        # Narrow screens: the sidebar is collapsed, the top bar keeps the inbox count and the agent indicator.
        expect(page.locator("#sidebar")).not_to_be_visible()
        expect(topbar.locator(".inbox-indicator .count")).to_be_visible()
        expect(topbar.locator(".agent-indicator")).to_be_visible()
