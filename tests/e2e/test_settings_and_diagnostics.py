"""Issue "When something goes wrong, the person sees it", item 13: Settings listed every revoked device among the
signed-in ones; the plugins' UI modules (a developer's detail) sat in the middle of it; the agents' capability
chips said "approval", "streaming", "artifacts" in both languages; the Chinese diagnostics said "Agent", "Adapter"
and "(disconnected)". A real hub, the real demo agent, Chromium at 390×844 and 1280×800."""

from __future__ import annotations

import re
from typing import cast

import httpx
from playwright.sync_api import expect

from tests.e2e.conftest import DESKTOP, PASSWORD, PHONE, Owner, api, create_owner
from tests.e2e.flows import connect_demo_agent
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess


def sign_in_device(hub: HubProcess, owner: Owner, name: str) -> str:
    answer = httpx.post(hub.base + "/api/login", json={"username": owner.username, "password": PASSWORD,
                                                       "deviceName": name}, timeout=10)
    answer.raise_for_status()
    return str(answer.json()["token"])


def test_settings_hide_revoked_devices_and_fold_developer_details(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    sign_in_device(hub, owner, "Old tablet")
    sign_in_device(hub, owner, "Work laptop")
    devices = api(hub, owner.token, "GET", "/api/devices")["devices"]
    old = next(d for d in devices if d["name"] == "Old tablet")
    api(hub, owner.token, "POST", f"/api/devices/{old['id']}/revoke", {})

    for viewport, locale, show, hide in ((PHONE, "en-US", "Show revoked devices (1)", "Hide revoked devices"),
                                         (DESKTOP, "zh-CN", "显示已撤销的设备（1）", "隐藏已撤销的设备")):
        page = open_page(hub, viewport=viewport, locale=locale, token=owner.token, path="/#/settings")
        listed = page.locator("lineup-settings .device")
        expect(listed.filter(has_text="Work laptop")).to_have_count(1)
        expect(listed.filter(has_text="Old tablet")).to_have_count(0)
        toggle = page.locator("lineup-settings .show-revoked")
        expect(toggle).to_have_text(show)
        expect(toggle).to_have_attribute("aria-expanded", "false")
        toggle.click()
        expect(listed.filter(has_text="Old tablet")).to_have_count(1)
        expect(listed.filter(has_text="Old tablet")).to_have_class(re.compile(r"\brevoked\b"))
        expect(toggle).to_have_text(hide)
        # The plugins' UI modules (the built-in canvas has one) are under "Advanced", folded.
        advanced = page.locator("lineup-settings details.advanced")
        expect(advanced).to_be_visible()
        expect(advanced).not_to_have_attribute("open", "")
        expect(advanced.locator(".plugin-module").first).to_be_hidden()
        advanced.locator("summary").click()
        expect(advanced.locator(".plugin-module").first).to_be_visible()
        shots(page, f"settings-{locale}")


def test_capabilities_in_words_and_chinese_diagnostics_in_chinese(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    agent = connect_demo_agent(hub, owner, demo_agents)
    english = open_page(hub, viewport=PHONE, token=owner.token, path="/#/agents")
    chips = english.locator(".agent-card .chips .chip")
    expect(chips).to_have_text(["Tasks", "Approvals", "Live replies", "Results"])
    chinese = open_page(hub, viewport=DESKTOP, token=owner.token, locale="zh-CN", path="/#/agents")
    expect(chinese.locator(".agent-card .chips .chip")).to_have_text(["任务", "审批", "实时回复", "成果"])

    agent.kill()
    diagnostics = chinese.locator(".agent-card details.diagnostics")
    expect(diagnostics).to_have_attribute("open", "", timeout=15_000)
    expect(diagnostics.locator(".diagnosis")).to_contain_text("重新连接后，它会从中断处继续")
    expect(diagnostics).to_contain_text("离线 (连接已关闭)")
    shots(chinese, "diagnostics-zh")
    # Nothing English but names: the agent's, its runtime, the diagnostic code, ids, "Hub" and addresses.
    text = diagnostics.inner_text()
    agent_id = api(hub, owner.token, "GET", "/api/agents")["agents"][0]["id"]
    for allowed in ("Demo agent", "demo", agent_id, hub.base, "Hub", cast(re.Match[str], re.search(r"LUA-[A-Z]\d+", text)).group(0)):
        text = text.replace(allowed, "")
    assert not re.search(r"[A-Za-z]{2,}", text), text


def test_a_gateway_agents_next_step_is_to_start_its_gateway(hub: HubProcess, open_page: OpenPage) -> None:
    """An agent paired by `lineup connect hermes|openclaw` lives in the person's gateway: offline, its next step is to
    (re)start that gateway, not "start the adapter with the credential file" (there is no adapter to start)."""
    from tests.support.hubproc import pair_agent

    owner = create_owner(hub)
    pair_agent(hub, owner.token, name="Hermes", runtime="hermes")
    pair_agent(hub, owner.token, name="OpenClaw", runtime="openclaw")
    page = open_page(hub, viewport=DESKTOP, token=owner.token, path="/#/agents")
    hermes = page.locator(".agent-card", has_text="Hermes").locator("details.diagnostics")
    openclaw = page.locator(".agent-card", has_text="OpenClaw").locator("details.diagnostics")
    expect(hermes).to_contain_text("Start hermes gateway")
    expect(openclaw).to_contain_text("Start the OpenClaw Gateway")
    for card in (hermes, openclaw):
        assert "credential file" not in card.inner_text()
    chinese = open_page(hub, viewport=DESKTOP, token=owner.token, locale="zh-CN", path="/#/agents")
    expect(chinese.locator(".agent-card", has_text="Hermes").locator("details.diagnostics")).to_contain_text(
        "启动 hermes gateway")
