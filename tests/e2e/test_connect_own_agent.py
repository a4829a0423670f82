"""Connect my agent opens on the person's own case: it asks which agent they use, with nothing chosen for them (three
of five kept the preselected demo agent and ran it instead of their own), the demo set apart after their agents; once
they choose, the code comes with the one command of their agent and no other. The real hub, Chromium at 390x844 and
1280x800.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_connect_my_agent_asks_which_agent_and_shows_its_command(hub: HubProcess, open_page: OpenPage, shots: Shots, viewport: ViewportSize) -> None:
    owner = create_owner(hub)
    page = open_page(hub, viewport=viewport, token=owner.token)
    # The welcome card's button opens the dialog itself (newcomers went through the Agents page to find it again).
    page.locator(".welcome").get_by_role("link", name="Connect my agent").click()
    expect(page.locator(".agents .connect-button")).to_have_count(0)
    dialog = page.locator("lineup-connect-agent")
    choices = dialog.get_by_role("group", name="Which agent do you use?")
    expect(choices).to_be_visible()
    expect(dialog.locator('input[name="adapter"]:checked')).to_have_count(0)
    labels = [text.split("\n")[0].strip() for text in dialog.locator(".choice").all_inner_texts()]
    assert labels[-1] == "Demo agent (lineup demo-agent)" and labels[0] == "Claude Code, in your terminal", labels
    expect(dialog.locator(".choice").last).to_contain_text("Not your agent")
    shots(page, "01-which-agent")

    # No code before a choice: the form asks for one.
    dialog.get_by_role("button", name="Create a pairing code").click()
    assert dialog.locator('input[name="adapter"]').first.evaluate("(radio) => radio.validity.valueMissing")
    expect(dialog.locator(".pairing-code")).to_have_count(0)

    dialog.get_by_role("radio", name="Codex CLI, in your terminal").check()
    dialog.get_by_role("button", name="Create a pairing code").click()
    command = dialog.locator(".command")
    expect(command).to_have_count(1)
    expect(command).to_contain_text("connect codex --user")
    expect(dialog).not_to_contain_text("demo-agent")
    expect(dialog).not_to_contain_text("claude-code")
    shots(page, "02-codex-command")
