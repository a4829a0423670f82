"""One read model, whatever the way in: the same screens read on the LAN and through the relay show the same things.

A hub with the fake WuKongIM, a page behind a doorway the test can close (tests/e2e/test_relay_mode.py). On the LAN
the page takes relay access and its screens are read: a conversation with its messages, a task's timeline with a
2 MB image artifact, the agents. Then the doorway closes with a draft in the composer: the page goes through the
relay (the top bar says so, and that it is not sealed), keeps the open screen and the draft, and every screen shows
what it showed at home, the image included (read through the relay in parts). Home again: direct, the draft still
there. Before, those reads failed with "Not available through the relay" and the task's timeline never came.
"""

from __future__ import annotations

import re
import uuid

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import DESKTOP, wait_for_js
from tests.e2e.test_relay_mode import APP, MANAGER, Background, Doorway, background, close_all, relay_hub  # noqa: F401
from tests.e2e.world import loaded_width
from tests.support.fake_wukong import FakeWuKong
from tests.support.files import png_of_size
from tests.support.fixtures import HubFactory, OpenPage, Shots
from tests.support.hubproc import pair_agent
from tests.support.lap import LapClient

WIDTH = int(((2 * 1024 * 1024) / 3) ** 0.5)


def screens(page: Page, conversation: str, task: str) -> dict[str, str]:
    """What the person reads on each screen (the connection's own words left out)."""
    seen: dict[str, str] = {}
    page.goto(f"/#/tasks?task={task}")
    detail = page.locator("lineup-task-detail")
    expect(detail.locator(".timeline-list li").first).to_be_visible(timeout=20_000)
    expect(detail).to_contain_text("chart.png")
    seen["timeline"] = detail.locator(".timeline-list").inner_text()
    shown = detail.locator("lineup-file .file[data-state='ready'] img.file-image")
    expect(shown).to_be_visible(timeout=30_000)
    seen["image"] = str(loaded_width(shown))
    page.goto(f"/#/conversations/{conversation}")  # after the task: its card shows the artifact both times
    stream = page.locator(".stream")
    expect(stream).to_contain_text("Message 12 of 12", timeout=20_000)
    # A read the switch cut short is read again (the way the page talks now): its notice goes.
    expect(page.get_by_text("The messages could not be loaded")).to_have_count(0, timeout=20_000)
    seen["conversation"] = stream.inner_text()
    page.goto("/#/agents")
    # The agents, and the presets beside them (GET /-/agent-presets.json, carried by the relay too).
    agents = page.locator("lineup-agent-list .agent-card")
    expect(agents).to_contain_text("Builder", timeout=20_000)
    seen["agents"] = re.sub(r"\d+ ?(s|sec|seconds|min|minutes?) ago", "", agents.inner_text())
    presets = page.locator("lineup-agent-list .agent-preset")
    expect(presets.first).to_be_visible(timeout=20_000)
    seen["presets"] = " | ".join(presets.all_inner_texts())
    return seen


def test_the_same_screens_at_home_and_through_the_relay(
        hub_factory: HubFactory, browser: Browser, open_page: OpenPage, background: Background, shots: Shots) -> None:
    fake = background.run(FakeWuKong("v2", manager_token=MANAGER).start())
    doorway: Doorway | None = None
    context = None
    agent: LapClient | None = None
    try:
        hub, token, doorway = relay_hub(hub_factory, background, fake)

        credential = pair_agent(hub, token, name="Builder")["credential"]
        agent = background.run(LapClient.connect(hub.ws_base, "agent", credential))
        conversation, task = "conv-reads", f"task-{uuid.uuid4().hex[:8]}"
        background.run(agent.ok("conversation.create", {"title": "Reports", "agentIds": []},
                                conversationId=conversation))
        for n in range(1, 13):
            background.run(agent.ok("message.create", {"content": f"Message {n} of 12"}, conversationId=conversation))
        background.run(agent.ok("task.create", {"title": "Draw the chart"}, conversationId=conversation, taskId=task))
        stored = httpx.post(hub.base + "/api/files", content=png_of_size(2 * 1024 * 1024), timeout=30, headers={
            "Authorization": f"Bearer {credential}", "X-File-Name": "chart.png", "Content-Type": "image/png"}).json()
        background.run(agent.ok("artifact.created", {"name": "chart.png", "fileId": stored["fileId"]},
                                conversationId=conversation, taskId=task))

        context = browser.new_context(viewport=DESKTOP, locale="en-US", base_url=doorway.base, service_workers="block")
        context.set_default_timeout(15_000)
        context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
        page: Page = open_page(hub, context=context, path="/#/settings")
        setup = page.locator("lineup-away-setup")
        expect(setup.locator(".away-verdict")).to_contain_text("answers", timeout=20_000)  # lineup relay check, in words
        page.locator("lineup-relay-settings").get_by_role("button", name="Use this device away from home").click()
        expect(setup.locator("[data-step=device]")).to_have_attribute("data-done", "yes")
        indicator = page.locator(".connection-indicator")
        expect(indicator).to_have_text("Direct")

        at_home = screens(page, conversation, task)
        assert at_home["image"] == str(WIDTH)

        # ---- a draft in the composer, then the hub's address goes away -------------------------------------------
        page.goto(f"/#/conversations/{conversation}")
        composer = page.locator("lineup-composer textarea")
        composer.fill("Half a thought, not sent")
        background.run(doorway.close())
        expect(indicator).to_have_attribute("data-mode", "relay", timeout=20_000)
        expect(indicator).to_have_text("Through the relay · sealed")  # keys agreed at home (localhost: WebCrypto)
        expect(indicator).to_have_attribute("data-sealed", "true")
        assert page.url.endswith(f"#/conversations/{conversation}")  # the open screen stays
        expect(composer).to_have_value("Half a thought, not sent")
        wait_for_js(page, f"{APP}.live.mode === 'relay' && {APP}.live.status === 'live'")
        shots(page, "01-relay-draft-kept")

        # ---- home again: direct, the draft still there ----------------------------------------------------------
        background.run(doorway.open())
        wait_for_js(page, f"{APP}.live.mode === 'direct' && {APP}.live.status === 'live'", timeout_ms=30_000)
        expect(indicator).to_have_text("Direct")
        expect(composer).to_have_value("Half a thought, not sent")

        # ---- away again: every screen reads what it read at home ------------------------------------------------
        background.run(doorway.close())
        wait_for_js(page, f"{APP}.live.mode === 'relay' && {APP}.live.status === 'live'", timeout_ms=30_000)
        away = screens(page, conversation, task)
        assert away == at_home  # timeline, messages, the 2 MB image, agents: the same through the relay
        # The page fetched nothing from the hub's address meanwhile (it is closed): what changed came through the relay.
        assert page.evaluate(f"{APP}.live.mode") == "relay"
        shots(page, "02-relay-screens")
    finally:
        close_all(background, fake, agent, context, doorway)
