"""The conversation shows what happened (docs/protocol.md#tool-activity), at 390×844 and 1280×800, in real Chromium
against a real hub whose session runs tests/support/tool_acp_agent.py: each text segment its own message in the order
things happened with the tool calls and the card, the final answer last; each tool call a compact line (read X, edited
X +5 −1 with the diff one tap away, ran `cmd` → exit 0 with the output's last lines and the rest one tap away, a secret
file's counts only); Stop marks the message it cut "Stopped".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import DESKTOP, PHONE, api, create_owner
from tests.e2e.flows import pending_card
from tests.e2e.test_axe import assert_no_violations, axe_source
from tests.e2e.test_sessions_flow import open_app, sessions_hub
from tests.integration.test_sessions import make_repo
from tests.support.fixtures import HubFactory, OpenPage

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

TOOL_AGENT = Path(__file__).resolve().parents[1] / "support" / "tool_acp_agent.py"


def tool_toml(tmp_path: Path) -> list[str]:
    return ["[sessions.agents.tooly]", 'name = "Tooly"',
            f"command = [{json.dumps(sys.executable)}, {json.dumps(str(TOOL_AGENT))}]",
            f"env = {{ ACP_TEST_LOG = {json.dumps(str(tmp_path / 'acp-agent.jsonl'))} }}", "init_timeout_s = 30"]


def kinds_in_stream(page: Page) -> list[str]:
    """What the stream shows, top to bottom: text, tool, card (and the person's own messages as mine)."""
    return list(page.eval_on_selector_all(".stream > *", """els => els.map(el => el.matches('.stream-card') ? 'card'
        : el.matches('.message.mine') ? 'mine' : el.matches('.tool-message') ? 'tool'
        : el.matches('.message') ? 'text' : el.className)"""))


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_text_tools_and_cards_in_the_order_they_happened(hub_factory: HubFactory, open_page: OpenPage, tmp_path: Path,
                                                         viewport: ViewportSize) -> None:
    repo = make_repo(tmp_path / "code" / "proj")
    hub = sessions_hub(hub_factory, tmp_path, tool_toml(tmp_path))
    owner = create_owner(hub)
    started = api(hub, owner.token, "POST", "/api/sessions", {"agent": "tooly", "project": str(repo),
                                                              "message": "work"})
    page = open_app(open_page, hub, owner.token, viewport)
    page.goto(hub.base + f"/#/conversations/{started['conversationId']}")
    stream = page.locator(".stream")
    card = pending_card(stream)
    expect(card).to_have_count(1, timeout=20_000)
    card.locator("button[data-option]").first.click()

    last = stream.locator(":scope > *").last
    expect(last).to_contain_text("All 3 tests pass.", timeout=20_000)  # the final answer is the last thing
    expect(last.locator(".message-body")).to_have_text("All 3 tests pass.")
    assert kinds_in_stream(page) == ["mine", "text", "tool", "text", "tool", "card", "tool", "tool", "text"]
    bodies = stream.locator(".message.theirs:not(.tool-message) .message-body")
    expect(bodies).to_have_text(["I'll read the tests first.", "I'll add a test.", "All 3 tests pass."])

    tools = stream.locator(".tool-use")
    expect(tools).to_have_count(4)
    read, edit, run, secret = (tools.nth(i) for i in range(4))
    expect(read.locator(".tool-use-line")).to_have_text("Read src/app.py")
    assert "what the agent read" not in stream.inner_text()  # a read shows the file's name only
    expect(edit.locator(".tool-use-line")).to_contain_text("Edited tests/test_app.py +5 −1")
    diff = edit.locator("details.tool-use-diff")
    expect(diff.locator(".diff")).not_to_be_visible()
    diff.locator("summary").click()  # the diff one tap away
    expect(diff.locator(".diff-line[data-kind='add']").filter(has_text="assert app.add(1, 2) == 3")).to_be_visible()
    expect(run.locator(".tool-use-line")).to_contain_text("Ran python -m pytest -q")
    expect(run.locator(".tool-use-exit")).to_have_text("exit 0")
    expect(run.locator(".tool-use-tail")).to_have_text("collecting line 78\ncollecting line 79\n3 passed in 0.12s")
    output = run.locator("details.tool-use-output")
    expect(output.locator("summary")).to_have_text("The last 60 lines of the output (80 in all)")
    expect(output.locator(".tool-use-full")).not_to_be_visible()
    output.locator("summary").click()  # the rest one tap away
    expect(output.locator(".tool-use-full")).to_contain_text("collecting line 21\ncollecting line 22")
    expect(secret).to_contain_text(".env may hold secrets")
    assert "hunter2" not in stream.inner_text()
    assert secret.locator("details").count() == 0
    # Nothing runs off the side of a phone.
    assert page.evaluate("() => document.querySelector('.stream').scrollWidth <= document.querySelector('.stream').clientWidth + 1")
    assert_no_violations(page, axe_source(), f"{viewport['width']}: tool calls in a conversation")

    # Stop while the agent talks: the message it cut is marked.
    composer = page.locator("lineup-composer")
    composer.locator("textarea").fill("talk_then_wait")
    composer.get_by_role("button", name="Send").click()
    talking = stream.locator(".message.theirs").filter(has_text="Let me look at this slowly.")
    expect(talking).to_be_visible(timeout=20_000)
    bar = page.locator("lineup-session-bar .session-bar")
    expect(bar).to_have_attribute("data-status", "running")
    bar.locator(".session-stop").click()
    expect(talking).to_have_attribute("data-stopped", "cut", timeout=20_000)
    expect(talking.locator(".message-stopped")).to_have_text("Stopped")
    expect(stream.locator(":scope > *").last).to_contain_text("Let me look at this slowly.")
