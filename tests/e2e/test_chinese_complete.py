"""The Chinese UI says everything in Chinese (docs/design.md#chinese-and-english): every place of the app, opened in a
`zh-CN` browser with an agent that speaks Chinese, shows no English words but names (LineUp, Claude Code, …) and what
is code (commands, paths, addresses). What the hub makes (hints, states, reasons, session notices, agent
diagnostics) counts as the app's: a newcomer in the usability test read "这个 Hub 没有开启会话" followed by English as
"conversations are off". Also: Conversations and Sessions are different words."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.world import Agent
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import HubProcess

# Names and terms a Chinese UI keeps as they are: products, protocols, file kinds, units.
NAMES = {
    "lineup", "hub", "claude", "code", "codex", "gemini", "hermes", "openclaw", "acp", "mcp", "sdk", "cli", "api",
    "http", "https", "websocket", "wukongim", "ntfy", "webhook", "smtp", "url", "json", "toml", "pdf", "png", "svg",
    "git", "diff", "npm", "pip", "python", "node", "ssh", "tls", "qr", "iphone", "android", "ios", "chrome", "safari",
    "mdns", "lan", "vpn", "ip", "id", "ok", "ipad", "sha", "ca", "dns", "wi", "fi", "utc", "gmt", "am", "pm", "sus", "ui", "app", "pwa", "ms", "kb", "mb", "gb",
    "enter", "shift", "ctrl", "esc", "tab", "cmd",  # keys
    "gateway", "path",  # Hermes's and OpenClaw's Gateway; the PATH variable
}
# Text that is code or an address, not words: inline code marks, URLs, paths, commands, host names.
CODE_LIKE = re.compile(r"\blineup(?: [a-z][\w-]*)+|https?://\S+|wss?://\S+|\[[\w.]+\]|\b[\w.-]+(?:/[\w.-]+)+|(?:~|\.{0,2})/[\w./~-]*|\b[\w.-]+\.(?:local|toml|json|md|py|js|txt|crt|pem|der|mobileconfig)\b"
                       r"|--?[\w-]+|\b\w+[_:]\w+\b|\b[\w-]+@[\w.-]+")
WORD = re.compile(r"[A-Za-z][A-Za-z'’]{2,}")

COLLECT = """() => {
  const skip = 'code, pre, kbd, samp, input, textarea, select, script, style, .approves-text, .md-code, [translate="no"]';
  const out = [];
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest(skip) || !visible(el)) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (el.closest(skip.replace(', input, textarea, select', '')) || !visible(el)) continue;
    for (const name of ['aria-label', 'title', 'placeholder']) if (el.getAttribute(name)) out.push(el.getAttribute(name));
  }
  return out;
}"""


def english_in(texts: list[str]) -> list[str]:
    """The texts that hold an English word that is not a name or code."""
    found = []
    for text in texts:
        words = [w for w in WORD.findall(CODE_LIKE.sub(" ", text)) if w.lower().strip("'’") not in NAMES]
        if words:
            found.append(text)
    return found


@pytest.fixture
def chinese_world(hub: HubProcess) -> Iterator[tuple[Any, Agent, str]]:
    owner = create_owner(hub, display_name="李华", workspace="家里")
    agent = Agent(hub, owner.token, name="构建助手")  # an agent that speaks Chinese: what is English is the app's
    conversation = f"c-{uuid.uuid4().hex[:10]}"
    agent.send("conversation.create", {"title": "依赖升级"}, conversationId=conversation)
    agent.send("message.create", {"content": "我先读一下需求，然后列出要升级的依赖。"}, conversationId=conversation)
    agent.send("interaction.requested", {"interaction": {
        "id": f"q-{uuid.uuid4().hex[:10]}", "type": "approval", "title": "运行测试吗？",
        "description": "升级之后跑一遍单元测试。",
        "approves": {"kind": "command", "command": "git push --force origin main && rm -rf ~/.cache/pip ~"}}},
        conversationId=conversation)
    # A second agent paired and never connected: its diagnostics are the hub's words too.
    api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "备用助手"})
    yield owner, agent, conversation
    agent.close()


PLACES = ["#/inbox", "#/conversations", "#/conversations/{conversation}", "#/tasks", "#/agents", "#/sessions",
          "#/sessions/new", "#/settings"]


@pytest.mark.parametrize("viewport", [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")])
def test_every_place_of_the_chinese_ui_is_chinese(hub: HubProcess, open_page: OpenPage, chinese_world: tuple[Any, Agent, str], viewport: ViewportSize, shots: Shots) -> None:
    owner, _, conversation = chinese_world
    page: Page = open_page(hub, viewport=viewport, locale="zh-CN", token=owner.token)
    expect(page.locator(".topbar")).to_be_visible()
    english: dict[str, list[str]] = {}
    for place in PLACES:
        page.evaluate("(hash) => { window.location.hash = hash; }", place.format(conversation=conversation))
        page.wait_for_load_state("networkidle")
        expect(page.locator("main")).not_to_be_empty()
        expect(page.locator("main [aria-busy='true'], main [data-loading]")).to_have_count(0)
        found = english_in(page.evaluate(COLLECT))
        if found:
            english[place] = sorted(set(found))
        shots(page, place.strip("#/").replace("/", "-").replace("{conversation}", "c"))
    # The connect dialog (its list of agents and the command it gives are the hub's words and names).
    page.evaluate("(hash) => { window.location.hash = hash; }", "#/agents")
    page.get_by_role("button", name="连接我的智能体").first.click()
    dialog = page.locator("lineup-connect-agent")
    expect(dialog.locator(".choice").first).to_be_visible()
    found = english_in(dialog.evaluate(COLLECT.replace("document.body", "root").replace("() =>", "(root) =>")))
    if found:
        english["connect dialog"] = sorted(set(found))
    shots(page, "connect")
    assert not english, "English in the Chinese UI:\n" + "\n".join(f"{place}: {texts}" for place, texts in english.items())


def test_conversations_and_sessions_are_different_words() -> None:
    from pathlib import Path

    zh = (Path(__file__).parents[2] / "ui" / "lib" / "strings-zh.js").read_text()
    words = dict(re.findall(r"^\s*'([a-zA-Z.]+)': '([^']*)'", zh, flags=re.MULTILINE))
    conversations, sessions = words["nav.conversations"], words["session.listTitle"]  # the sidebar's two places
    assert conversations not in sessions and sessions not in conversations, (conversations, sessions)
