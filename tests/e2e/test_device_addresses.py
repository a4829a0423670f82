"""Addresses for the other device: with the app opened on 127.0.0.1, the phone's sign-in
QR code and link and the agent's command carry the hub's LAN address, and they work from another machine; a hub
listening on loopback only says so instead of showing a link no phone can open.

The LAN is real and private to the test: the hub and a "phone" sit in two network namespaces joined by a veth
pair (tests/support/netns.py); each Chromium runs inside its namespace, so the desk's browser opens the hub on
that machine's 127.0.0.1 while the phone's browser and the demo agent reach it over the veth link.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.support import browsers, netns
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import run_cli
from tests.support.hubs import HubProcess

ROOT = Path(__file__).resolve().parents[2]
HUB_ADDRESS, PHONE_ADDRESS = "10.233.0.1", "10.233.0.2"
PORT = 9527
LAN_BASE = f"http://{HUB_ADDRESS}:{PORT}"


class Lan:
    def __init__(self, suffix: str, folder: Path) -> None:
        self.hub_ns, self.phone_ns = f"luaddr-hub-{suffix}", f"luaddr-phone-{suffix}"
        self.folder = folder
        self.processes: list[subprocess.Popen[str]] = []
        self.browsers: list[Browser] = []

    def popen(self, ns: str, args: list[str], log: Path) -> subprocess.Popen[str]:
        with open(log, "a") as out:
            proc = subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=out, stderr=subprocess.STDOUT,
                                    text=True, cwd=ROOT, env={**os.environ, "LINEUP_LOG_LEVEL": "warning"})
        self.processes.append(proc)
        return proc

    def browser_in(self, browser: Browser, ns: str) -> Browser:
        """A Chromium whose network is the namespace's: Playwright drives it over pipes, not the network."""
        wrapper = self.folder / f"chromium-{ns}"
        wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {ns} {browsers.executable()} "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
        instance = browser.browser_type.launch(executable_path=str(wrapper), headless=True, args=browsers.ARGS)
        self.browsers.append(instance)
        return instance


@pytest.fixture
def lan(tmp_path: Path) -> Iterator[Lan]:
    netns.require_namespaces()
    suffix = f"{os.getpid() % 100000}"
    net = Lan(suffix, tmp_path)
    netns.join_two(((net.hub_ns, f"lah{suffix}", HUB_ADDRESS), (net.phone_ns, f"lap{suffix}", PHONE_ADDRESS)))
    try:
        yield net
    finally:
        for instance in net.browsers:
            instance.close()
        netns.stop(net.processes)
        netns.remove(net.hub_ns, net.phone_ns)


def wait_for(path: Path, pattern: str, proc: subprocess.Popen[str], timeout_s: float = 30) -> re.Match[str]:
    deadline = time.monotonic() + timeout_s
    while not (match := re.search(pattern, path.read_text() if path.exists() else "")):
        assert proc.poll() is None and time.monotonic() < deadline, path.read_text() if path.exists() else ""
        time.sleep(0.05)
    return match


def test_phone_and_agent_get_the_lan_address_when_the_app_runs_on_loopback(
        lan: Lan, browser: Browser, tmp_path: Path, shots: Shots) -> None:
    data = tmp_path / "data"
    # README's demo command first (`lineup pair` before anybody set the hub up): the browser still gets setup.
    early = run_cli(data, "pair")
    assert "no account yet" in early.stderr, early.stderr
    hub_log = tmp_path / "hub.log"
    hub = lan.popen(lan.hub_ns, [sys.executable, "-m", "hub", "serve", "--host", "0.0.0.0", "--port", str(PORT),
                                 "--data-dir", str(data), "--no-mdns"], hub_log)
    wait_for(hub_log, "Press Ctrl\\+C", hub)
    banner = hub_log.read_text()
    assert f"open {LAN_BASE}/" in banner and "on your phone" in banner, banner

    desk = lan.browser_in(browser, lan.hub_ns).new_context(viewport=DESKTOP, locale="en-US",
                                                           base_url=f"http://127.0.0.1:{PORT}",
                                                           service_workers="block").new_page()
    desk.set_default_timeout(15_000)
    desk.goto("/")
    expect(desk.get_by_role("heading", name="Set up LineUp")).to_be_visible()
    desk.get_by_label("Your name").fill("Ada Lovelace")
    desk.get_by_label("Username").fill("ada")
    desk.get_by_label("Password", exact=True).fill("analytical-engine")
    desk.get_by_label("Password again").fill("analytical-engine")
    desk.get_by_label("Workspace name").fill("Engines")
    desk.get_by_role("button", name="Create workspace").click()
    expect(desk.locator(".workspace-name")).to_have_text("Engines")
    assert desk.url.startswith(f"http://127.0.0.1:{PORT}/")  # the app really runs on loopback

    # Sign in on your phone: the QR code and the link carry the LAN address, and the phone gets in with them.
    desk.goto("/#/settings")
    desk.get_by_role("button", name="Show the sign-in code").click()
    # Settings shows other QR codes too ("Trust this hub": the hub's CA for the phone); this is the sign-in one.
    sign_in_qr = desk.locator(".phone-sign-in").get_by_role("figure", name="QR code of a one-time sign-in link")
    expect(sign_in_qr.locator("svg")).to_be_visible()
    expect(desk.locator(".phone-sign-in figure.qr")).to_have_count(1)
    url = desk.locator(".sign-in-url").inner_text()
    assert re.fullmatch(re.escape(LAN_BASE) + r"/#signin=\S+", url), url
    expect(desk.locator(".no-lan-address")).to_have_count(0)
    shots(desk, "01-qr-lan-address")
    phone = lan.browser_in(browser, lan.phone_ns).new_context(viewport=PHONE, locale="en-US",
                                                              service_workers="block").new_page()
    phone.set_default_timeout(15_000)
    phone.goto(url)
    expect(phone.locator(".topbar")).to_be_visible()
    expect(phone.locator(".workspace-name").first).to_have_text("Engines")
    assert phone.evaluate("localStorage.getItem('lineup.token')")

    # Connect my agent: the command names the LAN address, and run on the other machine it connects.
    desk.goto("/#/agents")
    desk.get_by_role("button", name="Connect my agent").click()
    desk.get_by_role("radio", name="Demo agent (lineup demo-agent)").check()  # nothing is chosen for the person
    desk.get_by_role("button", name="Create a pairing code").click()
    command = desk.locator("lineup-connect-agent .command").inner_text()
    # beyond loopback, agents get the hub's TLS listener (port + 1) and its certificate's pin
    # (docs/security.md#agents-transport); the program is the one the hub was started by (`python -m hub` here)
    match = re.fullmatch(r"(?:lineup|\S+ -m hub) demo-agent --hub (\S+) --code (\S+) --fingerprint (\S+)", command.strip())
    assert match is not None and match.group(1) == f"https://{HUB_ADDRESS}:{PORT + 1}", command
    expect(desk.locator(".this-machine-only")).to_have_count(0)
    shots(desk, "02-command-lan-address")
    lan.popen(lan.phone_ns, [sys.executable, "-m", "hub", "demo-agent", "--hub", match.group(1), "--code",
                             match.group(2), "--fingerprint", match.group(3),
                             "--credential-file", str(tmp_path / "agent.json")],
              tmp_path / "agent.log")
    expect(desk.locator(".paired")).to_have_attribute("data-online", "true", timeout=30_000)


def test_a_hub_on_loopback_only_says_it_has_no_lan_address(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    """`lineup serve --host 127.0.0.1`: no phone can reach it, so no QR code; the agent command is for this
    machine and says so."""
    owner = create_owner(hub)
    page = open_page(hub, token=owner.token, path="/#/settings")
    page.get_by_role("button", name="Show the sign-in code").click()
    notice = page.locator(".no-lan-address")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("it listens on this machine only")
    expect(notice).to_contain_text(f"serve --host 0.0.0.0 --port {hub.port} --data-dir ")  # back on the same port
    expect(page.locator(".phone-sign-in figure.qr")).to_have_count(0)
    expect(page.locator(".sign-in-url")).to_have_count(0)
    shots(page, "01-no-lan-address")

    page.goto("/#/agents")
    page.get_by_role("button", name="Connect my agent").click()
    page.get_by_role("radio", name="Demo agent (lineup demo-agent)").check()  # nothing is chosen for the person
    page.get_by_role("button", name="Create a pairing code").click()
    expect(page.locator("lineup-connect-agent .command")).to_contain_text(f"--hub {hub.base} --code")
    expect(page.locator(".this-machine-only")).to_contain_text("run the command here")
    expect(page.locator(".this-machine-only")).to_contain_text(f"serve --host 0.0.0.0 --port {hub.port} --data-dir ")
    shots(page, "02-this-machine-only")

