"""First run through the app (docs/design.md#first-run): setup, sign out, sign in; Chinese from the browser,
switchable."""

from __future__ import annotations

import json
import re

import httpx
from playwright.sync_api import Route, expect

from tests.e2e.conftest import PHONE
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubs import HubProcess


def test_setup_sign_out_and_sign_in(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    assert httpx.get(hub.base + "/api/setup").json() == {"needsSetup": True, "setupCodeRequired": False}
    page = open_page(hub)
    expect(page.get_by_role("heading", name="Set up LineUp")).to_be_visible()
    expect(page.get_by_label("Setup code")).to_have_count(0)  # loopback: no setup code asked
    page.get_by_label("Your name").fill("Grace Hopper")
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password", exact=True).fill("cobol-1959")
    page.get_by_label("Password again").fill("cobol-1960")
    page.get_by_label("Workspace name").fill("   ")  # only spaces: said in the person's words, nothing sent
    page.get_by_role("button", name="Create workspace").click()
    expect(page.get_by_role("alert")).to_have_text("Fill in “Workspace name”.")
    assert httpx.get(hub.base + "/api/setup").json()["needsSetup"] is True
    page.get_by_label("Workspace name").fill("Navy")
    page.get_by_role("button", name="Create workspace").click()
    expect(page.get_by_role("alert")).to_have_text(re.compile("The two passwords differ"))  # checked before sending
    page.get_by_label("Password again").fill("cobol-1959")
    shots(page, "01-setup")
    page.get_by_role("button", name="Create workspace").click()

    expect(page.locator(".workspace-name")).to_have_text("Navy")
    expect(page.get_by_role("heading", name="Welcome to LineUp")).to_be_visible()
    expect(page.locator(".connection-indicator")).to_have_attribute("data-connection", "live")
    assert httpx.get(hub.base + "/api/setup").json()["needsSetup"] is False
    token = page.evaluate("localStorage.getItem('lineup.token')")
    assert token and token not in page.url
    shots(page, "02-welcome")

    page.locator("#sidebar").get_by_role("link", name="Settings").click()
    expect(page.locator("lineup-settings")).to_contain_text("Grace Hopper")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in to LineUp")).to_be_visible()
    assert page.evaluate("localStorage.getItem('lineup.token')") is None
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong username or password")
    page.get_by_label("Password").fill("cobol-1959")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".workspace-name")).to_have_text("Navy")


def test_setup_code_asked_when_not_on_the_hub_machine(hub: HubProcess, open_page: OpenPage) -> None:
    page = open_page(hub, path="/-/health")

    def not_loopback(route: Route) -> None:  # what a phone on the LAN is told
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"needsSetup": True, "setupCodeRequired": True}))

    page.route("**/api/setup", lambda route: not_loopback(route) if route.request.method == "GET" else route.continue_())
    page.goto("/")
    expect(page.get_by_label("Setup code")).to_be_visible()
    expect(page.locator("lineup-setup")).to_contain_text("The hub printed it when it started")


def test_chinese_from_the_browser_and_switchable(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    page = open_page(hub, viewport=PHONE, locale="zh-CN")
    expect(page.get_by_role("heading", name="设置 LineUp")).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    page.get_by_label("你的名字").fill("图灵")
    page.get_by_label("用户名").fill("turing")
    page.get_by_label("密码", exact=True).fill("enigma-1936")
    page.get_by_label("再次输入密码").fill("enigma-1936")
    page.get_by_label("工作区名称").fill("布莱切利园")
    shots(page, "01-setup-zh")
    page.get_by_role("button", name="创建工作区").click()
    expect(page.get_by_role("heading", name="欢迎使用 LineUp")).to_be_visible()
    expect(page.locator(".agent-indicator")).to_have_text(re.compile("尚无智能体"))
    shots(page, "02-inbox-zh")

    page.get_by_role("button", name="菜单").click()
    page.locator("#sidebar").get_by_role("link", name="设置").click()
    page.locator("lineup-settings").get_by_label("语言").select_option("en")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()
    expect(page.locator(".agent-indicator")).to_have_text(re.compile("No agent"))
    assert page.evaluate("document.documentElement.lang") == "en"
    page.reload()  # the choice is remembered
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()
