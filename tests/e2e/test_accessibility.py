"""The accessibility floor (docs/design.md#accessibility-floor) and the layout (docs/design.md#layout): contrast
≥ 4.5:1 computed from the page's own CSS custom properties and rendered text, status never by colour alone, the
900/640 px breakpoints."""

from __future__ import annotations

import re
from typing import Literal, cast

import pytest
from playwright.sync_api import FloatRect, Page, expect

from tests.e2e.conftest import DESKTOP, PHONE, create_owner
from tests.e2e.flows import connect_demo_agent, open_agent_conversation, pending_card, send_task
from tests.support.fixtures import DemoAgents, OpenPage, Shots
from tests.support.hubs import HubProcess

SEED_TOKENS = {  # docs/design.md#design-tokens, verbatim
    "--surface-canvas": "#f7f8fa", "--surface-default": "#ffffff", "--surface-subtle": "#f1f3f5",
    "--text-primary": "#1b1f24", "--text-secondary": "#59636e", "--border-subtle": "#d8dee4", "--brand": "#356ae6",
    "--status-running": "#356ae6", "--status-waiting": "#b7791f", "--status-success": "#168a5b",
    "--status-danger": "#c93c37", "--radius-card": "12px", "--radius-control": "8px", "--space-1": "4px",
    "--space-2": "8px", "--space-3": "12px", "--space-4": "16px", "--space-6": "24px",
}


def luminance(hex_colour: str) -> float:
    value = hex_colour.strip().lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    channels = [int(value[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def token(page: Page, name: str) -> str:
    return str(page.evaluate(f"getComputedStyle(document.documentElement).getPropertyValue('--{name}')")).strip()


# Every visible piece of text against the colour actually behind it (the first opaque background up the tree).
RENDERED_CONTRAST = """() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = (el) => { for (let n = el; n; n = n.parentElement) { const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c.a >= 0.99) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
  const failures = []; let checked = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest('.visually-hidden, .offscreen, noscript, option, [hidden]')) continue;
    if (el.closest('[disabled], :disabled')) continue;  // WCAG 1.4.3 exempts inactive controls
    const box = el.getBoundingClientRect(); const style = getComputedStyle(el);
    if (!box.width || !box.height || style.visibility !== 'visible' || Number(style.opacity) === 0) continue;
    const fg = parse(style.color); const bg = background(el);
    const ratio = (Math.max(lum(fg), lum(bg)) + 0.05) / (Math.min(lum(fg), lum(bg)) + 0.05);
    checked += 1;
    if (ratio < 4.5) failures.push(`${ratio.toFixed(2)} ${el.tagName.toLowerCase()}.${el.className} "${node.textContent.trim().slice(0, 40)}" ${style.color} on rgb(${bg.r},${bg.g},${bg.b})`);
  }
  return { checked, failures };
}"""


def assert_rendered_contrast(page: Page, where: str) -> None:
    result = page.evaluate(RENDERED_CONTRAST)
    assert result["checked"] >= 8, where
    assert not result["failures"], f"{where}:\n" + "\n".join(result["failures"])


def assert_status_has_words(page: Page) -> None:
    """Status is never colour alone: every badge carries a word next to its icon."""
    empty = page.evaluate("""() => [...document.querySelectorAll('.badge')]
        .filter((b) => b.getBoundingClientRect().width && !b.textContent.trim()).map((b) => b.outerHTML)""")
    assert not empty, empty


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_token_colour_pairs_meet_4_5(hub: HubProcess, open_page: OpenPage, scheme: Literal["light", "dark"]) -> None:
    page = open_page(hub)
    page.emulate_media(color_scheme=scheme)  # the system setting the app follows (prefers-color-scheme)
    expect(page.locator("lineup-setup")).to_be_visible()
    if scheme == "light":
        for name, value in SEED_TOKENS.items():
            assert token(page, name[2:]).lower() == value, name
    else:  # a dark set of the same tokens, and the browser told so (scrollbars, form controls)
        assert luminance(token(page, "surface-default")) < 0.05 < luminance(token(page, "text-primary"))
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "dark"
    pairs = re.sub(r"\s*/\s*", "/", token(page, "contrast-pairs")).split()
    assert len(pairs) >= 20
    names = {half for pair in pairs for half in pair.split("/")}
    assert {"text-primary", "text-secondary", "surface-default", "surface-canvas", "surface-subtle"} <= names
    failures = []
    for pair in pairs:
        text, background = pair.split("/")
        ratio = contrast(token(page, text), token(page, background))
        if ratio < 4.5:
            failures.append(f"{pair}: {ratio:.2f}")
    assert not failures, failures
    # The base waiting and success colours are too light for text; the app must use its darker text tokens.
    assert contrast(SEED_TOKENS["--status-waiting"], "#ffffff") < 4.5
    assert_rendered_contrast(page, f"setup screen ({scheme})")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_rendered_contrast_status_words_and_three_columns(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots, scheme: Literal["light", "dark"]) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport=DESKTOP, token=owner.token)
    page.emulate_media(color_scheme=scheme)
    open_agent_conversation(page)
    chip = send_task(page, "Check every colour")
    expect(pending_card(page.locator(".stream"))).to_be_visible(timeout=15_000)
    chip.click()
    expect(page.locator("lineup-task-detail .detail-inner")).to_be_visible()
    # Desktop: sidebar | conversation | task detail, side by side.
    boxes = cast(list[FloatRect], [page.locator(sel).bounding_box() for sel in ("#sidebar", "#main", "aside.detail")])
    assert all(boxes) and boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"], boxes
    assert abs(boxes[2]["x"] + boxes[2]["width"] - DESKTOP["width"]) < 2
    assert_rendered_contrast(page, f"conversation with a pending approval and the task detail ({scheme})")
    assert_status_has_words(page)
    for place in ("Inbox", "Tasks", "Agents", "Settings"):
        page.locator("#sidebar").get_by_role("link", name=re.compile(f"^{place}")).click()
        expect(page.locator("#main h1")).to_have_text(place)
        assert_rendered_contrast(page, f"{place} ({scheme})")
        assert_status_has_words(page)
        shots(page, f"{place.lower()}-{scheme}")


def test_breakpoints_900_and_640(hub: HubProcess, open_page: OpenPage, demo_agents: DemoAgents, shots: Shots) -> None:
    owner = create_owner(hub)
    connect_demo_agent(hub, owner, demo_agents)
    page = open_page(hub, viewport={"width": 800, "height": 800}, token=owner.token)
    # 640–899 px: the sidebar stays, the task detail is a drawer that opens over the conversation.
    open_agent_conversation(page)
    chip = send_task(page, "Mind the drawer")
    expect(page.locator("aside.detail")).not_to_be_visible()
    chip.click()
    drawer = page.locator("aside.detail")
    expect(drawer).to_be_visible()
    expect(page.locator("#task-detail-heading")).to_be_focused()
    assert page.evaluate("getComputedStyle(document.querySelector('aside.detail')).position") == "fixed"
    expect(page.locator("#sidebar")).to_be_visible()
    page.keyboard.press("Escape")
    expect(drawer).not_to_be_visible()
    expect(pending_card(page.locator(".stream"))).to_be_visible(timeout=15_000)

    # Below 640 px: the sidebar collapses; the top bar keeps the inbox count and the agent indicator.
    page.set_viewport_size(PHONE)
    topbar = page.locator(".topbar")
    expect(page.locator("#sidebar")).not_to_be_visible()
    expect(topbar.locator(".inbox-indicator .count")).to_have_text("1")
    expect(topbar.locator(".inbox-indicator")).to_have_attribute("aria-label", re.compile("Inbox: 1 waiting for you, 0 failed"))
    expect(topbar.locator(".agent-indicator")).to_have_text(re.compile("Agent online"))
    menu = page.get_by_role("button", name="Menu")
    expect(menu).to_have_attribute("aria-expanded", "false")
    shots(page, "phone-top-bar")
    menu.click()
    expect(page.locator("#sidebar")).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "true")
    shots(page, "phone-menu-open")
    page.keyboard.press("Escape")
    expect(page.locator("#sidebar")).not_to_be_visible()
    expect(menu).to_be_focused()
    topbar.locator(".inbox-indicator").click()
    card = pending_card(page.locator("lineup-inbox"))
    expect(card).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways at 390 px ({width} px wide)"
    assert_rendered_contrast(page, "phone inbox")
    shots(page, "phone-inbox")
