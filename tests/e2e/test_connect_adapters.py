""""Connect my agent" and "Pair again" offer the command of the agent's own kind (a phone walkthrough's findings).

Before: "Pair again" on an agent paired with the Python SDK kept the default adapter, "Demo agent", and told the person
to run `lineup demo-agent --code …` on the agent's machine, which would have made it a demo agent. The real hub, agents
paired over its real /api/pair with the runtime each adapter reports, Chromium at phone size.
"""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.conftest import PHONE, api, create_owner
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import HubProcess


def paired_agent(hub: HubProcess, token: str, name: str, runtime: str | None) -> str:
    """An agent paired with a code, as the adapter of `runtime` would pair it (None: the protocol's default)."""
    code = api(hub, token, "POST", "/api/pairing-codes", {})["code"]
    body = {"code": code, "name": name, **({"runtime": runtime} if runtime else {})}
    answer = httpx.post(hub.base + "/api/pair", json=body, timeout=10)
    answer.raise_for_status()
    return str(answer.json())


def pair_again(page: Page, name: str) -> None:
    if page.locator("lineup-connect-agent").count():
        page.locator("lineup-connect-agent").get_by_role("button", name="Close").click()
    card = page.locator(".agent-card").filter(has_text=name)
    button = card.get_by_role("button", name="Pair again")
    if not button.is_visible():  # an agent that was online once, or runs in a terminal: Pair again is in its details
        card.locator("details.diagnostics > summary").click()
    button.click()


def test_pair_again_offers_the_adapter_of_the_agents_runtime(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    paired_agent(hub, owner.token, "SDK walker", "python-sdk")
    paired_agent(hub, owner.token, "Claude helper", "claude-code")
    paired_agent(hub, owner.token, "Mystery", None)  # "generic": no adapter reports it
    paired_agent(hub, owner.token, "Codex or Gemini", "mcp")  # both report "mcp"
    page = open_page(hub, viewport=PHONE, token=owner.token, path="/#/agents")
    expect(page.locator(".agent-card")).to_have_count(4)
    dialog = page.locator("lineup-connect-agent")

    pair_again(page, "SDK walker")
    expect(dialog.get_by_role("radio", name="Python SDK (generic)")).to_be_checked()
    dialog.get_by_role("button", name="Create a pairing code").click()
    # One line to copy: the keeper with the hub's address and the code in it, the program's part alone the person's
    # own (the keeper hands the address and the code on as LINEUP_HUB and LINEUP_CODE, hub/keep.py).
    code = dialog.locator(".pairing-code").inner_text()
    line = dialog.locator(".keep-command").inner_text()
    assert re.fullmatch(rf".+ keep --hub https?://\S+ --code {code}( --fingerprint \S+)? -- python my_agent\.py", line), line
    # Giving the address and the code in the agent's own code instead is one tap away.
    expect(dialog.locator(".sdk-snippet .command")).to_be_hidden()
    dialog.locator(".sdk-snippet summary").click()
    expect(dialog.locator(".hub-address")).to_have_text(re.compile(r"^https?://"))
    expect(dialog.locator(".sdk-snippet .command")).to_contain_text("pair_or_load(")
    expect(dialog.locator(".sdk-snippet .command")).not_to_contain_text("demo-agent")
    shots(page, "01-sdk-snippet")

    pair_again(page, "Claude helper")
    expect(dialog.get_by_role("radio", name="Claude Code, in your terminal")).to_be_checked()
    dialog.get_by_role("button", name="Create a pairing code").click()
    expect(dialog.locator(".command")).to_contain_text("connect claude-code --dir")

    for unknown in ("Mystery", "Codex or Gemini"):
        pair_again(page, unknown)
        expect(dialog.get_by_label("Which agent is this?")).to_have_value(
            next(a["id"] for a in api(hub, owner.token, "GET", "/api/agents")["agents"] if a["name"] == unknown))
        expect(dialog.locator('input[name="adapter"]:checked')).to_have_count(0)  # the person chooses
        dialog.get_by_role("button", name="Create a pairing code").click()
        # No code until an adapter is chosen: the form asks for one.
        assert dialog.locator('input[name="adapter"]').first.evaluate("(radio) => radio.validity.valueMissing")
        expect(dialog.locator(".pairing-code")).to_have_count(0)
    dialog.get_by_role("radio", name="Codex CLI, in your terminal").check()
    dialog.get_by_role("button", name="Create a pairing code").click()
    expect(dialog.locator(".command")).to_contain_text("connect codex --user")
    shots(page, "02-codex-chosen")


def test_the_new_code_is_in_view_on_a_phone(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    for n in range(3):  # agents below the panel make the page long, as a person's Agents page is
        paired_agent(hub, owner.token, f"Agent {n}", "demo")
    page = open_page(hub, viewport=PHONE, token=owner.token, path="/#/agents")
    expect(page.locator(".agent-card")).to_have_count(3)
    pair_again(page, "Agent 2")
    dialog = page.locator("lineup-connect-agent")
    dialog.get_by_role("button", name="Create a pairing code").click()
    expect(dialog.locator(".pairing-code")).to_be_visible()
    expect(dialog.locator(".pairing-code")).to_be_in_viewport(ratio=1)
    shots(page, "01-code-in-view")


def test_hermes_and_openclaw_are_adapters_with_their_commands(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    page = open_page(hub, viewport=PHONE, token=owner.token, path="/#/agents")
    expect(page.locator("#agent-presets-heading")).to_have_text("Let the hub run your agent")  # it lists five
    page.get_by_role("button", name="Connect my agent").click()
    dialog = page.locator("lineup-connect-agent")
    for label, words, afterwards in (
            ("Hermes, your always-on gateway", "connect hermes", "Then restart hermes gateway."),
            ("OpenClaw, your always-on Gateway", "connect openclaw",
             "It needs Node 24 or newer; then restart the OpenClaw Gateway.")):
        dialog.get_by_role("radio", name=label).check()
        dialog.get_by_role("button", name="Create a pairing code").click()
        code = dialog.locator(".pairing-code").inner_text().strip()
        command = dialog.locator(".command").inner_text()
        assert re.fullmatch(rf"\S+( -m hub)? {words} --hub https?://\S+ --code {code}( --fingerprint \S+)?",
                            command.replace("\n", "")), command
        expect(dialog.locator(".connect-afterwards")).to_have_text(afterwards)
        shots(page, words.replace(" ", "-"))
        dialog.get_by_role("button", name="Close").click()
        page.get_by_role("button", name="Connect my agent").click()
    # An agent the Hermes adapter paired is paired again with its command.
    paired_agent(hub, owner.token, "Hermes", "hermes")
    pair_again(page, "Hermes")
    expect(dialog.get_by_role("radio", name="Hermes, your always-on gateway")).to_be_checked()


def test_every_adapter_has_a_command_from_the_hub(hub: HubProcess) -> None:
    owner = create_owner(hub)
    pairing = api(hub, owner.token, "POST", "/api/pairing-codes", {})
    for kind in ("hermes", "openclaw"):
        assert pairing["commands"][kind].endswith(f" connect {kind} --hub {pairing['hubUrl']} --code {pairing['code']}"
                                                  + (f" --fingerprint {pairing['fingerprint']}" if pairing["fingerprint"] else ""))
