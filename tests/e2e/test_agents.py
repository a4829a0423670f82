"""Agents that stay away (docs/design.md#an-agent-that-goes-away): the task fails and says it must be started again;
diagnostics with a copyable code and the next step (§7.1); rename and revoke; request cancel shown as requested until
confirmed."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import expect

from hub.sdk import AgentClient, pair
from tests.e2e.conftest import api, create_owner
from tests.e2e.flows import connect_demo_agent, go, open_agent_conversation, send_task
from tests.support.fixtures import DemoAgents, HubFactory, OpenPage, Shots
from tests.support.hubs import HubProcess


def test_an_agent_that_signed_off_shows_no_problem(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    """Claude Code's hooks connect only while Claude works and then close their socket normally: seen walking issue
    16, every finished session left a red "The agent's connection closed" problem and an amber "1/2 agents online".
    A normal close is `signed_off`: offline, said calmly, no problem to fix; a crash still is one (the test below)."""
    owner = create_owner(hub)
    demo = connect_demo_agent(hub, owner, demo_agents)
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "Claude Code"})["code"]

    async def one_session() -> None:
        client = AgentClient(await pair(hub.base, code, name="Claude Code", runtime="claude-code"), runtime="claude-code")
        await client.start(timeout_s=10)
        await client.close()  # the session ended: the socket closes normally (1000)
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API holds this thread's event loop
        thread.submit(asyncio.run, one_session()).result(30)

    page = open_page(hub, token=owner.token, path="/#/agents")
    card = page.locator(".agent-card").filter(has_text="Claude Code")
    expect(card.locator("[data-agent-status]")).to_have_text("Offline")
    card.locator("details.diagnostics > summary").click()
    expect(card.locator(".signed-off")).to_contain_text("It runs in your terminal")
    expect(card.locator("[data-diagnostic-code]")).to_have_count(0)
    expect(card).to_contain_text("Offline (signed off)")
    indicator = page.locator(".agent-indicator")
    expect(indicator).to_have_text("Agent online")  # Claude Code between runs is left out of the count: no alarm
    expect(indicator).to_have_class(re.compile(r"\btone-success\b"))
    shots(page, "01-signed-off")
    demo.kill()  # a crash next to it: that one is a problem again
    expect(indicator).to_have_class(re.compile(r"\btone-danger\b"))


def test_unreachable_agent_means_restart_and_diagnostics(hub_factory: HubFactory, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    hub = hub_factory(env={"LINEUP_GRACE_PERIOD_S": "2"})
    owner = create_owner(hub)
    agent = connect_demo_agent(hub, owner, demo_agents, step_s=30)  # slow steps: the task stays running
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    chip = send_task(page, "Long migration")
    expect(chip.locator("[data-status]").first).to_have_text("Running", timeout=10_000)
    chip.click()
    verdict = page.locator("lineup-task-detail .restart-verdict")
    expect(verdict).to_contain_text("Needs restarting? No.")

    agent.kill()
    expect(verdict).to_contain_text("Needs restarting? Not now.")
    expect(verdict).to_contain_text("Agent connection lost at")
    expect(verdict).to_contain_text("grace period")
    # The grace period passes: the hub fails the task with agent_unreachable, and the app says to start again.
    expect(verdict).to_contain_text("Needs restarting? Yes.", timeout=10_000)
    expect(verdict).to_contain_text("stayed unreachable")
    expect(page.locator("lineup-task-detail .detail-status [data-status]").first).to_have_text("Failed")
    expect(page.locator(".inbox-indicator .count")).to_have_text("1")  # the failed task needs attention
    shots(page, "01-needs-restart")
    verdict.get_by_role("button", name="Start again").click()
    again = page.locator(".task-chip").filter(has_text="Long migration")
    expect(again).to_have_count(2)
    expect(page.locator("lineup-task-detail .detail-status [data-status]").first).to_have_text("Queued")

    go(page, "Agents")
    card = page.locator(".agent-card").first
    expect(card.locator("[data-agent-status]")).to_have_text("Offline")
    diagnosis = card.locator("[data-diagnostic-code]")
    expect(diagnosis).to_have_attribute("data-diagnostic-code", "LUA-A101")
    expect(diagnosis).to_contain_text("it resumes where it left off")
    expect(diagnosis).to_contain_text("Next step:")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    diagnosis.get_by_role("button", name=re.compile("Copy")).click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("LUA-A101 agent=") and "reason=disconnected" in copied, copied
    shots(page, "02-diagnostics")

    card.get_by_role("button", name="Rename").click()
    card.get_by_label("New name").fill("Migrator")
    card.get_by_role("button", name="Save name").click()
    expect(card.locator("h2")).to_have_text("Migrator")
    assert api(hub, owner.token, "GET", "/api/agents")["agents"][0]["name"] == "Migrator"
    card.get_by_role("button", name="Revoke").click()
    card.get_by_role("group").get_by_role("button", name="Revoke").click()  # the confirmation
    expect(page.locator(".agent-card")).to_have_count(0)
    expect(page.locator(".revoked-agents")).to_contain_text("Revoked agents (1)")


def test_cancel_is_requested_until_the_agent_confirms(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents, step_s=3)
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    chip = send_task(page, "Stop me")
    expect(chip.locator("[data-status]").first).to_have_text("Running", timeout=10_000)
    chip.click()
    detail = page.locator("lineup-task-detail .detail-inner")
    detail.get_by_role("button", name="Request cancel").click()
    detail.get_by_role("button", name="Request cancel").click()  # the confirmation
    # Shown as requested (not cancelled) until the agent confirms, then cancelled (docs/design.md#cancel-is-a-request).
    expect(detail.locator("[data-cancel]")).to_have_attribute("data-cancel", re.compile("requested|sending"))
    expect(detail.locator(".detail-status [data-status]").first).to_have_text(re.compile("Running|Cancelled"))
    expect(detail).to_have_attribute("data-status", "cancelled", timeout=15_000)
    expect(detail.locator(".detail-status [data-status]").first).to_have_text("Cancelled")
    expect(detail.locator(".restart-verdict")).to_contain_text("It was cancelled.")
