"""The app in relay mode, sealed (docs/relay.md "The trust model"), in Chromium against the fake WuKongIM.

The page sets up its relay access on the LAN (its keys agreed with the hub there), the hub's address goes away, and
a conversation runs through the relay: an agent's title, message, file and approval of a command reach the page, the
person approves and writes back. The fake WuKongIM records every byte it carries; none of that text is in it. Then
WuKongIM's side replays a sealed message and changes one: the page drops both and says so.
"""

from __future__ import annotations

import json

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import PHONE
from tests.e2e.flows import pending_card
from tests.e2e.test_relay_mode import (  # noqa: F401 - `background` is a fixture
    APP,
    HUB_UID,
    MANAGER,
    Background,
    Doorway,
    background,
    close_all,
    relay_hub,
)
from tests.support.fake_wukong import FakeWuKong
from tests.support.fixtures import HubFactory, Shots
from tests.support.hubproc import pair_agent
from tests.support.lap import LapClient
from tests.support.polling import eventually_sync as until

SECRETS = {
    "title": "Nightingale quarterly plan",
    "agent message": "The launch phrase is tangerine-alpaca",
    "question": "Ship the walrus release?",
    "command": "deploy --target=penguin-prod",
    "file name": "blueprint-heron.pdf",
    "person's message": "Bring the zebra crossing forward",
}


def test_wukongim_sees_none_of_the_conversation_the_page_carries(
        hub_factory: HubFactory, browser: Browser, background: Background, shots: Shots) -> None:
    fake = background.run(FakeWuKong("v2", manager_token=MANAGER).start())
    doorway: Doorway | None = None
    context = None
    agent: LapClient | None = None
    try:
        hub, token, doorway = relay_hub(hub_factory, background, fake)
        auth = {"Authorization": f"Bearer {token}"}

        # ---- at home: the page gets its relay access, and its keys, from the hub --------------------------------
        context = browser.new_context(viewport=PHONE, locale="en-US", base_url=doorway.base, service_workers="block")
        context.set_default_timeout(10_000)
        context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
        page: Page = context.new_page()
        page.goto("/#/settings")
        section = page.locator("lineup-relay-settings")
        section.get_by_role("button", name="Use this device away from home").click()
        # The page makes its keys and the hub provisions the relay access (WuKongIM's API): more than the context's
        # 10 s once under a full run's load, so this step has a deadline of its own.
        expect(section.locator(".relay-sealed")).to_contain_text("Sealed end to end", timeout=30_000)
        expect(section.locator(".relay-text-off")).to_contain_text("IM text is off for you")
        saved = json.loads(page.evaluate("localStorage.getItem('lineup.relay')"))
        assert saved["seal"]["kid"] and "hubPublicKey" not in saved["seal"]
        shots(page, "01-sealed-set-up")

        agent = background.run(LapClient.connect(hub.ws_base, "agent", pair_agent(hub, token, name="Builder")[
            "credential"]))
        background.run(agent.ok("conversation.create", {"title": SECRETS["title"], "agentIds": []},
                                conversationId="conv-s"))

        # A device set up for away fetches every screen's code in the background (ui/lib/lazy.js warmUp): under a
        # full run's load that took longer than this test took to leave home, and the conversation screen, never
        # opened at home, then could not load (what the app says on such a device, rightly). Left once it has.
        until(lambda: page.evaluate("Boolean(customElements.get('lineup-conversation'))"),
              what="the conversation screen's code, fetched once the relay was set up")

        # ---- away: everything below goes through WuKongIM ---------------------------------------------------------
        background.run(doorway.close())
        expect(page.locator(".relay-banner")).to_contain_text("connected through the relay", timeout=15_000)
        until(lambda: fake.online("alice"), what="the page's relay session")
        page.goto("/#/conversations/conv-s")
        background.run(agent.ok("message.create", {"content": SECRETS["agent message"]}, conversationId="conv-s"))
        background.run(agent.ok("artifact.created", {"name": SECRETS["file name"], "url": "https://example.com/f"},
                                conversationId="conv-s"))
        background.run(agent.ok("interaction.requested", {"interaction": {
            "id": "int-ship", "type": "approval", "title": SECRETS["question"], "risk": "low",
            "description": f"Runs `{SECRETS['command']}`"}}, conversationId="conv-s"))
        expect(page.locator(".stream")).to_contain_text(SECRETS["agent message"])
        expect(page.locator(".conversation-head")).to_contain_text(SECRETS["title"])
        card = pending_card(page.locator(".stream"))
        expect(card).to_contain_text(SECRETS["question"])
        card.get_by_role("button", name="Approve").click()
        resolved = background.run(agent.event("interaction.resolved"))
        assert resolved["payload"]["response"]["optionId"] == "approve"
        composer = page.locator("lineup-composer")
        composer.locator("textarea").fill(SECRETS["person's message"])
        composer.get_by_role("button", name="Send").click()
        def stored() -> list[str]:
            messages = httpx.get(hub.base + "/api/conversations/conv-s/messages", headers=auth).json()["messages"]
            return [m["content"] for m in messages]
        until(lambda: SECRETS["person's message"] in stored(), what="the person's message stored by the hub")
        shots(page, "02-sealed-conversation")

        carried = fake.carried_text()
        for what, secret in SECRETS.items():
            assert secret not in carried, f"WuKongIM could read the {what}: {secret!r}"
        kinds = {json.loads(m.payload)["type"] for m in fake.history("alice", HUB_UID) if m.from_uid == "alice"}
        assert kinds == {5203}, kinds

        # ---- WuKongIM's side replays a sealed message, then changes one: the page drops both and says so --------
        last = next(m for m in reversed(fake.history(HUB_UID, "alice")) if m.from_uid == HUB_UID)

        async def inject(payload: bytes) -> None:
            await fake.deliver(fake.store(HUB_UID, "alice", payload, "", {}))
        background.run(inject(last.payload))
        expect(page.locator(".relay-banner")).to_contain_text("did not open")
        assert page.evaluate(f"{APP}.live.current.lastSealRefusal.reason") == "replayed"
        changed = json.loads(last.payload)
        changed["n"] += 10 ** 6  # a later counter, as if new: its tag no longer holds
        background.run(inject(json.dumps(changed).encode()))
        until(lambda: page.evaluate(f"{APP}.live.current.sealRefusals") == 2, what="the changed message refused")
        assert page.evaluate(f"{APP}.live.current.lastSealRefusal.reason") == "tampered"
        background.run(inject(json.dumps({"type": 5201, "envelope": {
            "type": "message.created", "sequence": 10 ** 6, "conversationId": "conv-s", "payload": {
                "id": "m-forged", "content": "forged by the relay", "author": {"kind": "agent", "id": "x"}}}}).encode()))
        until(lambda: page.evaluate(f"{APP}.live.current.sealRefusals") == 3, what="the message in clear refused")
        expect(page.locator(".stream")).not_to_contain_text("forged by the relay")
        shots(page, "03-refused")
    finally:
        close_all(background, fake, agent, context, doorway)
