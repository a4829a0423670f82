"""What an approval card shows, read back from the page: the text of a box with its folds expanded, where a piece of
text lies on screen, whether anything scrolls inside the card. Shared by the browser tests of approval cards."""

from __future__ import annotations

from typing import cast

from playwright.sync_api import FloatRect, Locator

# The text a box stands for: every fold (`⟨"&& true " × 700⟩`, `⟨300 spaces⟩`, `⟨U+00A0 × 2500⟩`, empty lines) expanded
# to what it counts, line numbers left out, rows of one line joined and lines joined with a line break
# (ui/lib/text-shape.js textRowView).
EXPANDED = """(box) => {
  const one = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return node.data;
    if (node.nodeType !== Node.ELEMENT_NODE || node.classList.contains('text-num')) return '';
    const d = node.dataset;
    if (d.spaces) return ' '.repeat(Number(d.spaces));
    if (d.unit !== undefined && d.count) return d.unit.repeat(Number(d.count));
    if (d.code && d.count) return String.fromCodePoint(parseInt(d.code.slice(2), 16)).repeat(Number(d.count));
    return [...node.childNodes].map(one).join('');
  };
  const many = Number(box.dataset.lines) > 1;
  let text = '';
  let first = true;
  for (const row of box.querySelectorAll('.text-row')) {
    const blank = row.querySelector('[data-blank]');
    if (blank) { text += '\\n'.repeat(Number(blank.dataset.blank)); continue; }
    if (many && row.dataset.line && !first) text += '\\n';
    first = false;
    text += one(row.querySelector('.text-body'));
  }
  return text;
}"""

# Where a piece of text is on screen: the rectangle of its first occurrence in the element's text nodes.
RECT_OF = """([el, needle]) => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at === -1) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    const r = range.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
  }
  return null;
}"""

# Elements inside that scroll by themselves or cut what they hold (content larger than the box, overflow not visible).
INNER_SCROLLERS = """(el) => [...el.querySelectorAll('*')].filter((child) => {
  if (child.classList.contains('visually-hidden')) return false; // 1 px, for screen readers
  const style = getComputedStyle(child);
  const clips = (o) => o === 'auto' || o === 'scroll' || o === 'hidden';
  return (clips(style.overflowX) && child.scrollWidth > child.clientWidth + 1)
    || (clips(style.overflowY) && child.scrollHeight > child.clientHeight + 1);
}).map((child) => child.className || child.localName)"""


def expanded(box: Locator) -> str:
    return str(box.evaluate(EXPANDED))


def rect_of(scope: Locator, needle: str) -> dict[str, float]:
    found = scope.evaluate(f"(el, needle) => ({RECT_OF})([el, needle])", needle)
    assert found, f"{needle!r} is not in the page"
    return cast(dict[str, float], found)


def box_of(scope: Locator) -> FloatRect:
    found = scope.bounding_box()
    assert found is not None
    return found


def inner_scrollers(scope: Locator) -> list[str]:
    return list(scope.evaluate(INNER_SCROLLERS))
