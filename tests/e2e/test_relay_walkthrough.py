"""Away from home as a new person on a phone (390×844): set up on the LAN, then a session, a diff, a file, an approval.

A hub with the fake WuKongIM and `[sessions]` over a scratch git repository (the scripted ACP agent), the page behind
a doorway the test closes (tests/e2e/test_relay_mode.py). On the LAN the person opens Settings → "Use this phone
away from home", sees the server checked (`lineup relay check`'s lines in its words, English or Chinese) and takes
the access; the app's service worker keeps its files. Then the hub's address goes away and, through the relay only
(the banner says it is sealed): a session is started (New session → agent → project → a new worktree → Start), its
edit is approved from its card, Files changed shows the file and its diff takes a line comment sent as a review, and
a file an agent sent is opened in its conversation. The fake WuKongIM records every byte it carries: none of the words
typed, read or sent is among them.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import PHONE, wait_for_js
from tests.e2e.flows import pending_card
from tests.e2e.test_relay_mode import APP, MANAGER, Background, Doorway, background, close_all, relay_hub  # noqa: F401
from tests.integration.test_sessions import AGENT_SCRIPT, make_repo
from tests.support.fake_wukong import FakeWuKong
from tests.support.fixtures import HubFactory, OpenPage, Shots
from tests.support.hubproc import pair_agent
from tests.support.lap import LapClient

SECRETS = {
    "first message's words": "tangerine alpaca",
    "edited file's name": "walrus-notes.md",
    "branch": "feature/marmot",
    "review comment": "Say it like a heron",
    "sent file's name": "blueprint-quokka.md",
    "sent file's text": "The zebra crossing opens at nine",
    "conversation title": "Nightingale plans",
}


def sessions_toml(tmp_path: Path) -> str:
    env = {"ACP_TEST_LOG": str(tmp_path / "acp-agent.jsonl")}
    return "\n".join([
        "[sessions]", f"roots = [{json.dumps(str(tmp_path / 'code'))}]",
        "[sessions.agents.scripted]", 'name = "Scripted"',
        f"command = [{json.dumps(sys.executable)}, {json.dumps(str(AGENT_SCRIPT))}]",
        "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }", "init_timeout_s = 30", ""])


def relayed(page: Page) -> None:
    """The page still talks through the relay (nothing reached the hub's closed address meanwhile)."""
    assert page.evaluate(f"{APP}.live.mode") == "relay"


def test_away_from_home_a_session_a_diff_a_file_and_an_approval(
        hub_factory: HubFactory, browser: Browser, open_page: OpenPage, background: Background, shots: Shots, tmp_path: Path) -> None:
    fake = background.run(FakeWuKong("v2", manager_token=MANAGER).start())
    doorway: Doorway | None = None
    context = None
    agent: LapClient | None = None
    try:
        repo = make_repo(tmp_path / "code" / "proj")
        hub, token, doorway = relay_hub(hub_factory, background, fake, sessions_toml(tmp_path))

        # ---- on the LAN: Settings → "Use this phone away from home" -----------------------------------------------
        context = browser.new_context(viewport=PHONE, locale="en-US", base_url=doorway.base, service_workers="allow",
                                      is_mobile=True, has_touch=True)
        context.set_default_timeout(20_000)
        context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
        page: Page = open_page(hub, context=context, path="/#/settings")
        setup = page.locator("lineup-away-setup")
        expect(setup.locator(".away-verdict")).to_contain_text("answers")
        # `lineup relay check`'s lines in the app's words: each has a code (hub/web/relay_check.py)
        expect(setup.locator(".away-lines li[data-code='token_auth_on']")).to_contain_text(
            "The server refuses a wrong sign-in token")
        expect(setup.locator(".away-lines li[data-code='']")).to_have_count(0)
        page.locator("lineup-relay-settings").get_by_role("button", name="Use this device away from home").click()
        expect(setup.locator("[data-step=device]")).to_have_attribute("data-done", "yes")
        setup.scroll_into_view_if_needed()
        shots(page, "01-set-up-at-home")
        # The installed app: its service worker keeps the app's files, so the screens not opened yet still load
        # away from home (the hub's address serves nothing then).
        wait_for_js(page, "navigator.serviceWorker.controller !== null", 30_000)

        chinese = browser.new_context(viewport=PHONE, locale="zh-CN", base_url=doorway.base, service_workers="block")
        try:  # the check's lines in the person's language, the command's English kept as the title
            zh = chinese.new_page()
            zh.add_init_script(f"localStorage.setItem('lineup.token', {token!r});")
            zh.goto("/#/settings")
            line = zh.locator("lineup-away-setup .away-lines li[data-code='token_auth_on'] span")
            expect(line).to_have_text("服务器会拒绝错误的登录令牌，这是应有的。", timeout=20_000)
            assert (line.get_attribute("title") or "").startswith("WuKongIM refuses a wrong token")
        finally:
            chinese.close()

        # ---- the hub's address goes away ---------------------------------------------------------------------------
        page.goto("/#/inbox")
        expect(page.locator("lineup-inbox a.new-session")).to_be_visible()
        background.run(doorway.close())
        wait_for_js(page, f"{APP}.live.mode === 'relay' && {APP}.live.status === 'live'", timeout_ms=30_000)
        banner = page.locator(".relay-banner")
        expect(banner).to_contain_text("connected through the relay")
        expect(banner.locator(".relay-sealed")).to_have_text("Sealed end to end.")  # on a phone, not only the top bar
        expect(banner).to_contain_text("Every screen works")
        expect(page.locator(".connection-indicator")).to_have_attribute("data-sealed", "true")
        shots(page, "02-away-inbox")
        carried_before = len(fake.carried)

        # ---- a session started through the relay ------------------------------------------------------------------
        page.locator("lineup-inbox a.new-session").click()
        steps = page.locator("lineup-new-session section.new-session")
        expect(steps).to_have_attribute("data-step", "agent")
        steps.locator(".agent-pick[data-agent='scripted']").click()
        expect(steps).to_have_attribute("data-step", "project")
        steps.locator(f".project-pick[data-project='{repo}']").click()
        expect(steps).to_have_attribute("data-step", "where")
        steps.locator(".where-choice[data-where='new_worktree'] input").check()
        steps.locator(".branch-input").fill(SECRETS["branch"])
        steps.locator(".step-next").click()
        if steps.get_attribute("data-step") == "settings":
            steps.locator(".step-next").click()
        expect(steps).to_have_attribute("data-step", "message")
        name, words = SECRETS["edited file's name"], SECRETS["first message's words"]
        steps.locator(".first-message").fill(f"edit {name} {words}\\nsecond line")
        shots(page, "03-new-session-away")
        steps.locator(".start-session").click()
        expect(page.locator("lineup-session-bar .session-bar")).to_be_visible()

        # ---- an approval answered: the agent's edit, from its card ---------------------------------------------------
        card = pending_card(page.locator(".stream"))
        expect(card.locator(".approves-diff .diff-add")).to_have_count(2)
        shots(page, "04-approval-away")
        card.locator(".approves-end").scroll_into_view_if_needed()  # taller than a phone's view: read to its end first
        card.locator("button[data-option]").first.click()
        expect(page.locator(".stream .message.theirs").filter(has_text=f"edited {name}")).to_be_visible()
        worktree = tmp_path / "code" / "proj.worktrees" / "feature-marmot"
        assert (worktree / name).read_text() == f"{words}\nsecond line\n"
        relayed(page)

        # ---- a diff reviewed: Files changed → the file → a line comment → Send review ------------------------------
        files = page.locator("lineup-session-bar .files-changed")
        expect(files).to_have_attribute("data-files", "1")
        files.click()
        changes = page.locator("lineup-session-changes")
        expect(changes.locator(f".changed-file[data-path='{name}']")).to_be_visible()
        shots(page, "05-files-changed-away")
        changes.locator(f".changed-file[data-path='{name}'] a").click()
        viewer = page.locator("lineup-diff-viewer .diff-viewer")
        expect(viewer).to_have_attribute("data-painted", "true")
        expect(viewer).to_contain_text(words)
        row = viewer.locator(".diff-line[data-side='new'][data-line='2']")
        expect(row).to_have_attribute("data-kind", "add")
        row.locator(".line-comment").click()
        viewer.locator(".comment-text").fill(SECRETS["review comment"])
        viewer.locator(".comment-save").click()
        expect(viewer.locator(".line-note")).to_contain_text(SECRETS["review comment"])
        shots(page, "06-diff-away")
        viewer.locator(".review-form .send-review").click()
        expect(viewer.locator(".review-sent")).to_be_visible()
        viewer.locator(".review-sent a").click()
        expect(page.locator(".stream .message.mine").filter(has_text=f"{name}:2")).to_be_visible()
        relayed(page)

        # ---- a file opened: one an agent sent, read through the relay in its conversation --------------------------
        credential = pair_agent(hub, token, name="Builder")["credential"]
        agent = background.run(LapClient.connect(hub.ws_base, "agent", credential))
        conversation = f"conv-{uuid.uuid4().hex[:8]}"
        background.run(agent.ok("conversation.create", {"title": SECRETS["conversation title"], "agentIds": []},
                                conversationId=conversation))
        text = SECRETS["sent file's text"]
        stored = httpx.post(hub.base + "/api/files", content=f"# Plan\n\n{text}.\n".encode(),
                            timeout=30, headers={"Authorization": f"Bearer {credential}",
                                                 "X-File-Name": SECRETS["sent file's name"],
                                                 "Content-Type": "text/markdown"}).json()
        background.run(agent.ok("message.create", {"content": "Here is the plan.",
                                                   "attachments": [{"fileId": stored["fileId"]}]},
                                conversationId=conversation))
        page.goto(f"/#/conversations/{conversation}")
        shown = page.locator(f"lineup-file .file[data-file-id='{stored['fileId']}'][data-state='ready']")
        expect(shown).to_contain_text(text)
        expect(page.locator(".conversation-head")).to_contain_text(SECRETS["conversation title"])
        shots(page, "07-file-away")
        relayed(page)

        # ---- what WuKongIM carried: ciphertext and routing, none of the contents ----------------------------------
        assert len(fake.carried) - carried_before > 20  # everything above went through it
        carried = fake.carried_text()
        for what, secret in SECRETS.items():
            assert secret not in carried, f"WuKongIM could read the {what}: {secret!r}"
        assert "Scripted" not in carried and "second line" not in carried
    finally:
        close_all(background, fake, agent, context, doorway)
