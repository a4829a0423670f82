"""The Agents screen lists the agents the hub can run itself (docs/agents.md): Claude Code, Codex and Gemini CLI,
each with the one `lineup agents add` command to run, copyable; the list is the hub's (/-/agent-presets.json)."""

from __future__ import annotations

import re
import shlex
import sys

from playwright.sync_api import expect

from hub.presets import PRESETS
from tests.e2e.conftest import create_owner
from tests.e2e.flows import go
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess


def test_agents_screen_lists_presets_with_their_command(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    page = open_page(hub, token=owner.token)
    go(page, "Agents")
    section = page.locator(".agent-presets")
    expect(section.get_by_role("heading")).to_have_text(re.compile("Let the hub run your agent"))
    # Written with the program this hub was started by and its folder: `lineup` is not on PATH here.
    prefix = f"{shlex.quote(sys.executable)} -m hub agents add"
    suffix = f"--dir ~/code/my-project --data-dir {shlex.quote(str(hub.data_dir))}"
    rows = section.locator(".agent-preset")
    expect(rows).to_have_count(len(PRESETS))
    for key, preset in PRESETS.items():
        row = section.locator(f'[data-preset="{key}"]')
        expect(row).to_contain_text(preset.name)
        expect(row.locator("pre.command")).to_have_text(f"{prefix} {key} {suffix}")
    shots(page, "01-presets")

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    section.locator('[data-preset="codex"]').get_by_role("button", name=re.compile("Copy")).click()
    assert page.evaluate("navigator.clipboard.readText()") == f"{prefix} codex {suffix}"
