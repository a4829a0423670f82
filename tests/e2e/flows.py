"""Steps several browser tests share: signing in, a paired demo agent, a tracked task sent from a conversation."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import DemoAgent, Owner, api
from tests.support.hubproc import HubProcess


def sign_in(page: Page, owner: Owner) -> None:
    page.get_by_label("Username").fill(owner.username)
    page.get_by_label("Password").fill(owner.password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".topbar")).to_be_visible()


def go(page: Page, name: str, phone: bool = False) -> None:
    """Open a place from the sidebar; on a phone the sidebar sits behind the menu button."""
    if phone:
        page.get_by_role("button", name="Menu").click()
    page.locator("#sidebar").get_by_role("link", name=re.compile(f"^{name}")).click()


def connect_demo_agent(hub: HubProcess, owner: Owner, demo_agents: Callable[..., DemoAgent],
                       step_s: float = 0.3) -> DemoAgent:
    """Pair the demo agent with a code made over the API and wait until the hub has it online."""
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {})["code"]
    agent = demo_agents(hub, code, step_s=step_s)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        agents = api(hub, owner.token, "GET", "/api/agents")["agents"]
        if agents and agents[0]["status"] == "online":
            return agent
        time.sleep(0.1)
    raise AssertionError(f"the demo agent did not come online:\n{agent.log()}")


def open_agent_conversation(page: Page, phone: bool = False) -> None:
    go(page, "Agents", phone)
    # The agents list is read after the page opens: on a loaded run (a full suite beside real agents) that took over
    # the 10 s a click waits, once.
    message = page.locator(".agent-card").first.get_by_role("button", name="Message")
    expect(message).to_be_visible(timeout=30_000)
    message.click()
    expect(page.locator("lineup-composer textarea")).to_be_visible()


def send_task(page: Page, text: str) -> Locator:
    """Send `text` as a tracked task from the open conversation; returns the task's chip in the stream."""
    composer = page.locator("lineup-composer")
    composer.locator("textarea").fill(text)
    composer.get_by_label("Track as task").check()
    composer.get_by_role("button", name="Send").click()
    chip = page.locator(".task-chip").filter(has_text=text)
    expect(chip).to_be_visible()
    return chip


def pending_card(scope: Page | Locator) -> Locator:
    return scope.locator(".interaction-card[data-status='pending']")
