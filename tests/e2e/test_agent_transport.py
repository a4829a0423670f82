""""Connect my agent" says whether the agent will talk TLS (security issue, item 8).

The command is the hub's (POST /api/pairing-codes, hub/web/addresses.py::for_agents) and the dialog shows with it
whether the agent's credential and messages are encrypted on the way: a plain http address (here an `http://`
public_url on a hub that offers agents no TLS) is said to carry them in clear, with what to change; an `https://`
public_url (a TLS proxy) is said to be encrypted, and its command carries no fingerprint of the hub's own
certificate (the proxy shows its own). Before, the dialog said nothing either way, and the https command carried
a fingerprint the proxy's certificate could never match.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import create_owner
from tests.support.fixtures import HubFactory, OpenPage, Shots


def connect_dialog(hub_factory: HubFactory, open_page: OpenPage, name: str, public_url: str) -> Page:
    hub = hub_factory(name, start=False)
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    (hub.data_dir / "lineup.toml").write_text(f'[notify]\npublic_url = "{public_url}"\n')
    hub.start()
    owner = create_owner(hub)
    page: Page = open_page(hub, token=owner.token, path="/#/agents")
    page.get_by_role("button", name="Connect my agent").click()
    page.get_by_role("radio", name="Demo agent (lineup demo-agent)").check()  # nothing is chosen for the person
    page.get_by_role("button", name="Create a pairing code").click()
    return page


def test_the_command_says_whether_the_agent_talks_tls(hub_factory: HubFactory, open_page: OpenPage, shots: Shots) -> None:
    page = connect_dialog(hub_factory, open_page, "plain", "http://hub.example.test:8080")
    command = page.locator("lineup-connect-agent .command")
    expect(command).to_contain_text("--hub http://hub.example.test:8080 --code")
    notice = page.locator("lineup-connect-agent .agent-transport")
    expect(notice).to_have_attribute("data-transport", "plain")
    expect(notice).to_contain_text("in clear")
    expect(notice).to_contain_text("https:// public_url")
    shots(page, "01-plain-http")

    page = connect_dialog(hub_factory, open_page, "tls", "https://hub.example.test")
    command = page.locator("lineup-connect-agent .command")
    expect(command).to_contain_text("--hub https://hub.example.test --code")
    expect(command).not_to_contain_text("--fingerprint")
    notice = page.locator("lineup-connect-agent .agent-transport")
    expect(notice).to_have_attribute("data-transport", "tls")
    expect(notice).to_contain_text("encrypted")
    shots(page, "02-tls-proxy")
