"""Pairing an agent again leaves no dead twin, and a revoked agent's conversation says why nothing can be sent
(issue "When something goes wrong, the person sees it", item 3). The real demo agent, the real hub, Chromium.

Before: `lineup demo-agent --code NEW` with its credential file paired a NEW agent; the app then said "1/2 agents
online", kept the old one "Offline" with advice that no longer applied, and the old conversation's composer promised
a delivery that would never come. A revoked agent's composer said the same ("kept and delivered when it reconnects").
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.conftest import PHONE, DemoAgent, api, create_owner
from tests.e2e.flows import connect_demo_agent, go, open_agent_conversation
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubproc import HubProcess


def run_demo_agent(hub: HubProcess, credential: Path, code: str, log: Path) -> subprocess.Popen[str]:
    """`lineup demo-agent --code CODE` on this credential file (the command "Connect my agent" shows)."""
    with open(log, "a") as out:
        return subprocess.Popen([sys.executable, "-m", "hub", "demo-agent", "--hub", hub.base, "--credential-file",
                                 str(credential), "--code", code, "--step-seconds", "0.3"],
                                stdout=out, stderr=subprocess.STDOUT, text=True)


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def only_agent_online(hub: HubProcess, token: str, agent_id: str, log: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        agents = [(a["id"], a["status"]) for a in api(hub, token, "GET", "/api/agents")["agents"]]
        if agents == [(agent_id, "online")]:
            return
        time.sleep(0.1)
    raise AssertionError(f"expected one agent online, got {agents}:\n{log.read_text()}")


def expect_one_agent_online(page: Page) -> None:
    indicator = page.locator(".agent-indicator")
    expect(indicator).to_have_text("Agent online")  # one agent, online: the "1/1" of the issue
    expect(indicator).to_have_attribute("data-online", "1")


def test_pairing_again_with_the_same_credential_file_leaves_no_twin(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    first = connect_demo_agent(hub, owner, demo_agents)
    agent_id = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["id"]
    page = open_page(hub, token=owner.token)
    open_agent_conversation(page)
    expect_one_agent_online(page)
    first.stop()  # the terminal closed; later the person runs the command "Connect my agent" shows, with a new code
    expect(page.locator(".agent-indicator")).to_have_text("Agent offline")
    again = run_demo_agent(hub, first.credential, api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"],
                           first.log_path)
    try:
        only_agent_online(hub, owner.token, agent_id, first.log_path)
        expect_one_agent_online(page)
        # The conversation is the same agent's: its composer offers delivery again, not "offline".
        composer = page.locator("lineup-composer")
        expect(composer.locator(".composer-hint")).to_have_text(re.compile("Enter to send"))
        expect(composer.locator("textarea")).to_be_enabled()
        go(page, "Agents")
        expect(page.locator(".agent-card")).to_have_count(1)
        expect(page.locator(".agent-card [data-agent-status]")).to_have_text("Online")
        expect(page.locator(".revoked-agents")).to_have_count(0)
        shots(page, "01-one-agent")
        assert f"paired again as the same agent {agent_id}" in first.log_path.read_text()
    finally:
        stop(again)


def test_a_code_made_for_an_agent_whose_file_is_lost_pairs_it_again(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots,
                                                                    tmp_path: Path) -> None:
    owner = create_owner(hub)
    first: DemoAgent = connect_demo_agent(hub, owner, demo_agents)
    agent_id = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["id"]
    first.stop()
    first.credential.unlink()  # a wiped folder, another machine: the agent's credential file is gone
    page = open_page(hub, token=owner.token, path="/#/agents")
    card = page.locator(".agent-card")
    expect(card.locator("[data-agent-status]")).to_have_text("Offline")
    # For an agent that went away, Pair again is among its details, folded: it resumes when started again, which
    # the card says first; a lost credential file is the rare case.
    card.locator("details.agent-more summary").click()
    card.get_by_role("button", name="Pair again").click()
    dialog = page.locator("lineup-connect-agent")
    chosen = dialog.get_by_label("Which agent is this?")
    expect(chosen).to_be_focused()
    expect(chosen).to_have_value(agent_id)
    expect(dialog.get_by_label("Name for the agent (optional)")).to_have_count(0)  # it keeps its name
    shots(page, "00-pair-again")
    dialog.get_by_role("button", name="Create a pairing code").click()
    expect(dialog.locator(".replacing-line")).to_have_text(re.compile(
        "This code pairs Demo agent again: it keeps its conversations and tasks"))
    shots(page, "01-code-for-the-agent")
    code = dialog.locator(".pairing-code").inner_text().strip()
    log = tmp_path / "elsewhere.log"
    elsewhere = run_demo_agent(hub, tmp_path / "elsewhere" / "demo-agent.json", code, log)
    try:
        expect(dialog.locator(".paired")).to_have_attribute("data-agent-id", agent_id, timeout=20_000)
        expect(dialog.locator(".paired-line")).to_have_text(re.compile("Demo agent is connected"), timeout=20_000)
        only_agent_online(hub, owner.token, agent_id, log)
        expect(page.locator(".agent-card")).to_have_count(1)
        expect_one_agent_online(page)
        shots(page, "02-paired-again")
    finally:
        stop(elsewhere)


def test_a_revoked_agents_composer_is_closed_and_says_why(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    agent_id = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["id"]
    page = open_page(hub, viewport=PHONE, token=owner.token)
    open_agent_conversation(page, phone=True)
    composer = page.locator("lineup-composer")
    composer.locator("textarea").fill("A draft for the agent")
    api(hub, owner.token, "POST", f"/api/agents/{agent_id}/revoke", {})
    note = composer.locator(".composer-closed")
    expect(note).to_be_visible()
    expect(note).to_contain_text(re.compile(r"Demo agent was revoked on .+\d"))
    expect(note).to_contain_text("Pair it again from Agents → Connect my agent; its conversations stay here.")
    expect(composer.locator("textarea")).to_be_disabled()
    expect(composer.locator("textarea")).to_have_value("A draft for the agent")  # the draft is kept, not sent
    expect(composer.get_by_role("button", name="Send")).to_be_disabled()
    expect(composer.locator(".composer-hint")).not_to_contain_text("delivered")
    expect(page.locator(".agent-indicator")).to_have_text("No agent")
    box = note.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    shots(page, "01-revoked-composer")
    note.get_by_role("link", name="Go to Agents").click()
    expect(page.locator(".revoked-agents")).to_be_visible()
