"""Sessions are turned on from the app: the owner chooses the project folders in Settings → Sessions (at the hub's own
machine without more, from elsewhere after typing the password again) and New session is there at once, without a
restart. With sessions off the Sessions page says what to do in one sentence, and the welcome card offers New session
beside Connect my agent.

Before, the only way was to edit lineup.toml and restart the hub, which the app's own hint said. A real hub, Chromium
at 390x844 and 1280x800.
"""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PASSWORD, PHONE, api, create_owner
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess

OFF_SENTENCE = "Sessions are off: choose your project folders in Settings → Sessions to start one."


def project_folder(tmp_path: Path) -> Path:
    root = tmp_path / "code"
    repo = root / "shop"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return root


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_owner_turns_sessions_on_in_settings(hub: HubProcess, open_page: OpenPage, shots: Shots, tmp_path: Path, viewport: ViewportSize) -> None:
    owner = create_owner(hub)
    root = project_folder(tmp_path)
    page = open_page(hub, viewport=viewport, token=owner.token)

    # No agent yet: the welcome card offers both ways; sessions are off, so New session leads to where they are
    # turned on, and one sentence says so.
    welcome = page.locator(".welcome")
    expect(welcome.get_by_role("link", name="Connect my agent")).to_be_visible()
    new_session = welcome.get_by_role("link", name="New session")
    expect(new_session).to_have_attribute("href", "#/settings", timeout=15_000)
    expect(welcome.locator(".sessions-off")).to_have_text(OFF_SENTENCE)
    shots(page, "01-welcome")

    # The Sessions page, empty: the one sentence, whose link opens Settings.
    page.goto("/#/sessions")
    off = page.locator("lineup-sessions .sessions-off")
    expect(off).to_have_text(OFF_SENTENCE)
    expect(page.locator("lineup-sessions .empty")).to_have_count(0)
    shots(page, "02-sessions-off")
    off.get_by_role("link", name="Settings → Sessions").click()

    # Settings → Sessions: at the hub's own machine no password is asked.
    section = page.locator("section.session-roots")
    expect(section).to_have_attribute("data-enabled", "false")
    expect(section.get_by_label("Your password")).to_have_count(0)
    section.get_by_label("Project folders, one per line").fill(f"{root}\n")
    section.get_by_role("button", name="Save folders").click()
    expect(section.locator(".roots-saved")).to_contain_text("Saved: sessions are on, no restart needed.")
    expect(section).to_have_attribute("data-enabled", "true")
    assert tomllib.loads((hub.data_dir / "lineup.toml").read_text())["sessions"]["roots"] == [str(root)]
    shots(page, "03-saved")

    # Taken at once: New session starts from here (its first step, the agent), and the hub lists the project.
    section.get_by_role("link", name="New session").click()
    expect(page.get_by_role("heading", name="Step 1 of 5: Agent")).to_be_visible(timeout=15_000)
    projects = api(hub, owner.token, "GET", "/api/sessions/projects")
    assert projects["enabled"] is True and [p["name"] for p in projects["projects"]] == ["shop"], projects
    page.goto("/#/sessions")
    expect(page.locator("lineup-sessions .new-session")).to_be_visible()
    expect(page.locator("lineup-sessions .sessions-off")).to_have_count(0)

    # A folder that cannot be one is refused, saying why, and nothing changes.
    page.goto("/#/settings")
    section.get_by_label("Project folders, one per line").fill(str(Path.home()))
    section.get_by_role("button", name="Save folders").click()
    expect(section.locator(".roots-error")).to_contain_text("whole home folder")
    assert tomllib.loads((hub.data_dir / "lineup.toml").read_text())["sessions"]["roots"] == [str(root)]


def test_away_from_the_hub_the_password_is_asked(hub: HubProcess, browser: Browser, open_page: OpenPage, tmp_path: Path) -> None:
    owner = create_owner(hub)
    root = project_folder(tmp_path)
    # Through a proxy, as from another machine: the hub does not take the request as the person at its machine.
    context = browser.new_context(viewport=PHONE, base_url=hub.base, service_workers="block",
                                  extra_http_headers={"X-Forwarded-For": "192.0.2.7"})
    context.add_init_script(f"localStorage.setItem('lineup.token', {owner.token!r});")
    try:
        page = open_page(hub, context=context, path="/#/settings")
        section = page.locator("section.session-roots")
        section.get_by_label("Project folders, one per line").fill(str(root))
        password = section.get_by_label("Your password")
        password.fill("not my password")
        section.get_by_role("button", name="Save folders").click()
        expect(section.locator(".roots-error")).to_contain_text("That password is not right.")
        expect(section).to_have_attribute("data-enabled", "false")
        password.fill(PASSWORD)
        section.get_by_role("button", name="Save folders").click()
        expect(section).to_have_attribute("data-enabled", "true")
    finally:
        context.close()


def test_a_member_sees_no_folders(hub: HubProcess, open_page: OpenPage) -> None:
    create_owner(hub)
    page = open_page(hub, viewport=PHONE, token=hub.token("Other team"), path="/#/settings")
    expect(page.locator("lineup-settings h1")).to_be_visible()
    expect(page.locator("#settings-devices")).to_be_visible()
    expect(page.locator("section.session-roots")).to_have_count(0)
    page.goto("/#/inbox")
    expect(page.locator(".welcome").get_by_role("link", name="Connect my agent")).to_be_visible()
    expect(page.locator(".welcome .welcome-new-session")).to_have_count(0)
