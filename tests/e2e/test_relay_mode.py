"""The app in relay mode (docs/relay.md "The app in relay mode"), in Chromium against the fake WuKongIM.

The page reaches its hub through a doorway (a loopback TCP relay to the hub's port) that the test can close, like a
phone leaving the home network, while the agent and the hub's uplink keep their own connections. On the LAN the
page obtains relay credentials in Settings; then the doorway closes, the app switches to its relay client, an
agent asks an approval, the page shows the card and answers it, and the agent receives the outcome:
agent → hub → WuKongIM → the app's relay client → WuKongIM → hub → agent. When the doorway opens again the app
goes back to the hub's own address by itself; revoking from Settings makes the relay token useless.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from hub.relay import seal
from tests.e2e.conftest import PHONE, wait_for_js
from tests.e2e.flows import pending_card
from tests.support.fake_wukong import FakeWuKong
from tests.support.fixtures import HubFactory, OpenPage, Shots
from tests.support.hubproc import HubProcess, pair_agent, run_cli
from tests.support.lap import LapClient
from tests.support.polling import eventually_sync as until

T = TypeVar("T")
HUB_UID = "lineup-hub"
MANAGER = "manager-secret"
APP = "document.querySelector('lineup-app').workspace"


class Background:
    """An asyncio loop in a thread for the fake WuKongIM, the doorway and the agent (Playwright's sync API owns the
    main thread's loop)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="relay-e2e-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 20.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def cancel_rest() -> None:
            rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in rest:
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)
            # A transport closes its socket in a callback of the loop's next turns: let those run before the loop
            # stops, or the sockets are left to the garbage collector and warn in a later test.
            for _ in range(3):
                await asyncio.sleep(0)
        self.run(cancel_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class Doorway:
    """The hub's address as the page knows it: a loopback TCP relay to the hub that can be closed and reopened on
    the same port (the same origin, so the page keeps its storage)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.server: asyncio.Server | None = None
        self.links: set[asyncio.StreamWriter] = set()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def open(self) -> None:
        self.server = await asyncio.start_server(self._link, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.links):
            writer.transport.abort()  # a network that is gone: no FIN, no close frame
        await self.server.wait_closed()

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        except asyncio.CancelledError:  # the test is ending while this link was still connecting upstream
            writer.transport.abort()
            raise
        self.links.update((writer, up_writer))

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self.links.difference_update((writer, up_writer))


def device_keys(hub: HubProcess) -> seal.DeviceKeys:
    """The keys the hub keeps for alice's device (relay_devices), to open what the page sent."""
    conn = sqlite3.connect(f"file:{hub.data_dir / 'lineup.db'}?mode=ro", uri=True)
    try:
        kid, to_device, to_hub = conn.execute("SELECT kid, to_device, to_hub FROM relay_devices WHERE uid = 'alice'"
                                              ).fetchone()
    finally:
        conn.close()
    return seal.DeviceKeys(kid, "alice", to_device, to_hub)


def relay_toml(fake: FakeWuKong) -> str:
    values: dict[str, Any] = {"ws_url": fake.ws_url, "api_url": fake.api_url, "uid": HUB_UID,
                              "manager_token": MANAGER, "ping_interval_s": 0.5, "reconnect_min_s": 0.1,
                              "reconnect_max_s": 0.4, "blocked_retry_s": 0.3}
    lines = ["[relay]", *(f"{k} = {json.dumps(v)}" for k, v in values.items())]
    return "\n".join([*lines, 'people = [{uid = "alice", user = "owner"}]']) + "\n"


def relay_hub(hub_factory: HubFactory, background: Background, fake: FakeWuKong,
              toml: str = "") -> tuple[HubProcess, str, Doorway]:
    """A hub whose uplink to `fake` is connected (lineup.toml: `toml`, then the relay), its owner's device token, and
    the doorway the page reaches it through at home (closed to send the page through the relay)."""
    hub: HubProcess = hub_factory(start=False)
    hub.data_dir.mkdir(parents=True)
    token = run_cli(hub.data_dir, "token").stdout.strip()
    (hub.data_dir / "lineup.toml").write_text(toml + relay_toml(fake))
    hub.start()
    auth = {"Authorization": f"Bearer {token}"}
    until(lambda: httpx.get(hub.base + "/api/relay", headers=auth).json()["status"]["state"] == "connected",
          what="the hub's uplink to connect")
    doorway = Doorway(hub.port)
    background.run(doorway.open())
    return hub, token, doorway


def close_all(background: Background, fake: FakeWuKong, agent: LapClient | None, context: Any,
              doorway: Doorway | None) -> None:
    """What a relay browser test started, closed whatever happened: the agent, the page's context, the doorway, the
    fake WuKongIM."""
    if agent is not None:
        background.run(agent.close())
    if context is not None:
        context.close()
    if doorway is not None and doorway.server is not None:
        background.run(doorway.close())
    background.run(fake.stop())


@pytest.fixture
def background() -> Iterator[Background]:
    loop = Background()
    yield loop
    loop.close()


@pytest.mark.parametrize("line", ["v2", "compat"])
def test_an_approval_answered_through_the_relay(
        hub_factory: HubFactory, browser: Browser, open_page: OpenPage, background: Background, shots: Shots, line: str) -> None:
    fake = background.run(FakeWuKong(line, manager_token=MANAGER).start())
    doorway: Doorway | None = None
    context = None
    agent: LapClient | None = None
    try:
        hub, token, doorway = relay_hub(hub_factory, background, fake)

        # ---- at home: the page gets relay credentials from the hub --------------------------------------------
        context = browser.new_context(viewport=PHONE, locale="en-US", base_url=doorway.base, service_workers="block")
        context.set_default_timeout(10_000)
        context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
        page: Page = open_page(hub, context=context, path="/#/settings")
        section = page.locator("lineup-relay-settings")
        expect(section.get_by_role("heading", name="Use this phone away from home")).to_be_visible()
        section.get_by_role("button", name="Use this device away from home").click()
        expect(section.locator(".relay-held")).to_contain_text("This device reaches the hub through the relay")
        expect(section.locator(".relay-mode")).to_contain_text("directly to the hub")
        saved = json.loads(page.evaluate("localStorage.getItem('lineup.relay')"))
        assert (saved["uid"], saved["hubUid"], saved["ws"], saved["deviceFlag"]) == ("alice", HUB_UID, fake.ws_url, 1)
        assert saved["hubId"] and saved["workspaceId"] and fake.tokens[("alice", 1)] == saved["token"]
        shots(page, "01-relay-set-up")

        credential = pair_agent(hub, token, name="Builder")["credential"]
        agent = background.run(LapClient.connect(hub.ws_base, "agent", credential))
        background.run(agent.ok("conversation.create", {"title": "Deploys", "agentIds": []},
                                conversationId="conv-deploys"))
        page.goto("/#/inbox")
        expect(page.locator("lineup-inbox")).to_be_visible()

        # ---- away: the hub's address is gone for the page; the app carries on through the relay ---------------
        background.run(doorway.close())
        banner = page.locator(".relay-banner")
        expect(banner).to_contain_text("Away from home: connected through the relay.", timeout=15_000)
        assert page.evaluate(f"{APP}.live.mode") == "relay"
        expect(page.locator(".connection-indicator")).to_have_attribute("data-mode", "relay")  # desktop's indicator
        until(lambda: fake.online("alice"), what="the page's relay session")

        background.run(agent.ok("interaction.requested", {"interaction": {
            "id": "int-deploy", "type": "approval", "title": "Deploy to production?", "risk": "high",
            "description": "Version 2.3 goes to every customer."}}, conversationId="conv-deploys"))
        card = pending_card(page.locator("lineup-inbox"))
        expect(card).to_contain_text("Deploy to production?")
        expect(page.locator(".inbox-indicator .count")).to_have_text("1")
        shots(page, "02-relay-card")
        card.get_by_role("button", name="Approve").click()
        card.get_by_role("button", name="Yes, approve").click()

        resolved = background.run(agent.event("interaction.resolved"))
        assert resolved["payload"]["outcome"] == "answered"
        assert resolved["payload"]["response"]["optionId"] == "approve"
        sent = [json.loads(m.payload) for m in fake.history("alice", HUB_UID) if m.from_uid == "alice"]
        assert sent and {p["type"] for p in sent} == {5203}  # sealed: WuKongIM carries none of it in clear
        opened = [seal.open_sealed(device_keys(hub), seal.TO_HUB, p, 0)[0] for p in sent]  # the hub's keys open it
        responds = [p["envelope"] for p in opened if p.get("type") == 5201
                    and p["envelope"]["type"] == "interaction.respond"]
        assert len(responds) == 1 and responds[0]["payload"]["interactionId"] == "int-deploy"  # through WuKongIM
        expect(page.locator("lineup-inbox .interaction-card")).to_have_count(0)
        expect(page.locator(".inbox-indicator .count")).to_have_text("0")
        page.goto("/#/conversations/conv-deploys")
        answered = page.locator(".stream .interaction-card")
        expect(answered).to_have_attribute("data-status", "answered")
        expect(answered.locator(".decision")).to_have_text("Approved")
        shots(page, "03-relay-answered")
        page.goto("/#/settings")
        expect(section.locator(".relay-mode")).to_contain_text("through the relay")
        expect(section.get_by_role("button", name="Forget on this device")).to_be_visible()

        # ---- home again: the app goes back to the hub's own address by itself ---------------------------------
        background.run(doorway.open())
        expect(banner).to_have_count(0, timeout=20_000)
        wait_for_js(page, f"{APP}.live.mode === 'direct' && {APP}.live.status === 'live'")
        expect(section.locator(".relay-mode")).to_contain_text("directly to the hub")

        # ---- a tab opened while the hub does not answer starts from what the relay replays ---------------------
        # Another tab of the same browser: the sealing keys are this browser's (IndexedDB), as on the phone.
        cold = context.new_page()
        try:
            for pattern in ("**/api/**", "**/-/health"):
                cold.route(pattern, lambda route: route.abort("connectionrefused"))
            cold.goto("/#/conversations/conv-deploys")
            expect(cold.locator(".relay-banner")).to_contain_text("connected through the relay")
            replayed = cold.locator(".stream .interaction-card")
            expect(replayed).to_have_attribute("data-status", "answered")
            expect(replayed.locator(".decision")).to_have_text("Approved")
            expect(cold.locator(".conversation-head")).to_contain_text("Builder")
            shots(cold, "04-cold-start-away")
        finally:
            cold.close()

        # ---- revoking at home makes the relay token useless --------------------------------------------------------
        section.get_by_role("button", name="Revoke relay access").click()
        section.get_by_role("button", name="Yes, revoke it").click()
        expect(section.get_by_role("button", name="Use this device away from home")).to_be_visible()
        assert page.evaluate("localStorage.getItem('lineup.relay')") is None
        assert fake.tokens[("alice", 1)] != saved["token"]
        shots(page, "05-back-home-revoked")
    finally:
        close_all(background, fake, agent, context, doorway)
