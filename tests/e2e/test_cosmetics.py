"""Issue "When something goes wrong, the person sees it", item 15 (the small things a new user trips on) and a
revoked agent's empty conversation: no word left alone on a last line ("…within 24" / "h."); commands on a phone
break at spaces, not inside a word; no "Version —" for an agent that gave none; no bare "Text" under an input; an
interaction card's details named in words, not by the agent's keys ("claudeSession"); a review's diff above "What you
can do", not under it; "Write to <agent> below…" in the conversation of a revoked agent. A real hub, an agent on the
SDK in the test (tests/e2e/test_rich_content.py `Agent`), Chromium at 390×844 and 1280×800, English and Chinese."""

from __future__ import annotations

import httpx
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import pending_card
from tests.e2e.world import DIFF, World, world  # noqa: F401 - the fixture, used by name
from tests.support.fixtures import OpenPage, Shots
from tests.support.hubproc import pair_agent
from tests.support.hubs import HubProcess

IMPACT = "Production data is changed; the migrations can be rolled back within 24 h."

# Whether "24" and "h." of the impact text are on one line (Range rects of the two words).
TOGETHER = """(root) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf('24 h.');
    if (at < 0) continue;
    const top = (from, to) => { const r = document.createRange(); r.setStart(node, from); r.setEnd(node, to);
      return [...r.getClientRects()].filter((x) => x.width)[0].top; };
    return Math.abs(top(at, at + 2) - top(at + 3, at + 5)) < 2;
  }
  return null;
}"""

# Words of a command split across two lines (a word shorter than the line is never cut). With `hyphens`, a word may
# break right after one of its hyphens (the browser's own break: the pairing dialog's command is one text).
CUT_WORDS = """(box, hyphens) => {
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const width = box.clientWidth;
  const cut = [];
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    let start = 0;
    for (const word of text.data.split(' ')) {
      const r = document.createRange(); r.setStart(text, start); r.setEnd(text, start + word.length);
      start += word.length + 1;
      const rects = [...r.getClientRects()].filter((x) => x.width);
      const wide = rects.reduce((sum, x) => sum + x.width, 0); // the word's own width, on however many lines
      if (new Set(rects.map((x) => Math.round(x.top))).size < 2 || wide >= width - 40) continue;
      // where the first line ends in the word: the last character whose rect is on the first line
      let end = 0;
      for (let i = 1; i <= word.length; i += 1) {
        const c = document.createRange(); c.setStart(text, start - word.length - 1); c.setEnd(text, start - word.length - 1 + i);
        const tops = new Set([...c.getClientRects()].filter((x) => x.width).map((x) => Math.round(x.top)));
        if (tops.size > 1) break;
        end = i;
      }
      if (!(hyphens && word[end - 1] === '-')) cut.push(word);
    }
  }
  return cut;
}"""


def open_question(page: Page, title: str) -> None:
    expect(pending_card(page).filter(has_text=title)).to_be_visible()


def test_card_wording_details_and_review_order(hub: HubProcess, open_page: OpenPage, world: World, shots: Shots) -> None:
    owner, agent = world
    conversation = agent.conversation("Release")
    agent.ask(conversation, {"type": "approval", "title": "Run the migration?", "impact": IMPACT,
                             "details": {"claudeSession": "5f2c", "toolCallId": "call_7", "migrationCount": 3,
                                         "rate_limit": 5}})
    agent.ask(conversation, {"type": "input", "title": "Which branch?"})
    agent.ask(conversation, {"type": "review", "title": "Check the model change", "content": DIFF})

    for viewport, locale in ((PHONE, "en-US"), (DESKTOP, "zh-CN")):
        page = open_page(hub, viewport=viewport, locale=locale, token=owner.token, path=f"/#/conversations/{conversation}")
        english = locale == "en-US"
        approval = pending_card(page).filter(has_text="Run the migration?")
        expect(approval).to_be_visible()
        # The details: labels in words, in the page's language; the type in words too.
        approval.locator(".card-details > summary").click()
        def label(key: str) -> Locator:
            return approval.locator(f".card-details dt[data-key='{key}']")
        expect(label("claudeSession")).to_have_text("Claude Code session" if english else "Claude Code 会话")
        expect(label("toolCallId")).to_have_text("Tool call" if english else "工具调用")
        expect(label("migrationCount")).to_have_text("Migration count")  # an agent's own key, in words
        expect(label("rate_limit")).to_have_text("Rate limit")
        expect(approval.locator(".card-details dt:not([data-key]) + dd").first).to_have_text("Approval" if english else "审批")
        # No bare "Text" under the input's box.
        question = pending_card(page).filter(has_text="Which branch?")
        hint = question.locator(".input-form p.muted")
        expect(hint).to_have_text("Any text" if english else "任意文字")
        # The review's diff comes before "What you can do", not inside it.
        review = pending_card(page).filter(has_text="Check the model change")
        expect(review.locator(".review-diff")).to_be_visible()
        assert review.locator(".actions-section .review-diff").count() == 0
        assert review.evaluate("""(card) => {
          const diff = card.querySelector('.review-diff'), actions = card.querySelector('.actions-section');
          return Boolean(diff.compareDocumentPosition(actions) & Node.DOCUMENT_POSITION_FOLLOWING);
        }""")
        shots(page, f"cards-{locale}")

    # "24 h." never splits into a last line of its own, at any phone width.
    page = open_page(hub, viewport=PHONE, token=owner.token, path=f"/#/conversations/{conversation}")
    impact = pending_card(page).filter(has_text="Run the migration?").locator(".card-section.impact")
    expect(impact).to_contain_text("24 h.")
    split = []
    for width in range(320, 431, 3):
        page.set_viewport_size({"width": width, "height": 844})
        page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        if impact.evaluate(TOGETHER) is False:
            split.append(width)
    assert not split, f"'24' and 'h.' on two lines at {split} px"


def test_commands_versions_and_a_revoked_agents_conversation(hub: HubProcess, open_page: OpenPage, shots: Shots) -> None:
    owner = create_owner(hub)
    # An agent that gave no version when it paired (the hub calls its runtime "generic").
    code = api(hub, owner.token, "POST", "/api/pairing-codes", {"name": "Bare agent"})["code"]
    httpx.post(hub.base + "/api/pair", json={"code": code, "name": "Bare agent"}, timeout=10).raise_for_status()
    helper = pair_agent(hub, owner.token, name="Old helper")

    page = open_page(hub, viewport=PHONE, token=owner.token, path="/#/agents")
    bare = page.locator(".agent-card").filter(has_text="Bare agent")
    expect(bare.locator(".agent-facts")).to_have_text("generic · never connected")
    expect(bare).not_to_contain_text("—")
    expect(bare).not_to_contain_text("Version")
    expect(page.locator(".agent-card").filter(has_text="Old helper").locator(".agent-facts")).to_contain_text("version 1.0")

    # Commands wrap at their spaces on a phone: no word of a command is cut in two.
    commands = page.locator(".agent-preset .command")
    expect(commands.first).to_be_visible()
    for n in range(commands.count()):
        assert commands.nth(n).evaluate(CUT_WORDS, False) == [], commands.nth(n).inner_text()
    page.get_by_role("button", name="Connect my agent").first.click()
    page.get_by_role("radio", name="Demo agent (lineup demo-agent)").check()  # nothing is chosen for the person
    page.get_by_role("button", name="Create a pairing code").click()
    command = page.locator("lineup-connect-agent .command")
    expect(command).to_be_visible()
    assert command.evaluate(CUT_WORDS, True) == [], command.inner_text()
    shots(page, "commands-phone")
    page.get_by_role("button", name="Close").click()

    # A conversation with an agent that was revoked since: it says so, not "Write to Old helper below".
    page.locator(".agent-card").filter(has_text="Old helper").get_by_role("button", name="Message").click()
    expect(page.locator("lineup-conversation .stream .empty")).to_contain_text("Write to Old helper below")
    api(hub, owner.token, "POST", f"/api/agents/{helper['agentId']}/revoke", {})
    empty = page.locator("lineup-conversation .stream .empty")
    expect(empty).to_have_text("Old helper was revoked: it can no longer be written to here.")
    chinese = open_page(hub, viewport=DESKTOP, locale="zh-CN", token=owner.token, path=page.url.split(hub.base, 1)[1])
    expect(chinese.locator("lineup-conversation .stream .empty")).to_have_text("Old helper 已被撤销：无法再在这里给它写消息。")
