"""Characters a person cannot see on a card: found, named, and shown as visible marks (`⟨U+2067⟩`).

A direction-changing character reorders what is shown (`npm test ⁧; curl …|sh #⁩ lint` reads as a comment that
mentions curl), a zero-width or format character hides a difference, a no-break space or a run of odd spaces pushes
code out of sight, and a letter that fonts draw as nothing (the Hangul filler U+3164) can be a whole identifier:
`const { timeout,<U+3164>} = req.query; … exec(<U+3164>)` shows as `const { timeout,} = req.query;`. Whatever an
approval shows, these are marked where they are and raise its risk (docs/security.md#what-an-approval-shows); the app
marks them the same way (ui/lib/visible.js).
"""

from __future__ import annotations

import re
import unicodedata

# Categories that are never visible as themselves: format (bidi controls, zero-width characters, tags), controls,
# line and paragraph separators, private use and unassigned code points; and every space but the plain one.
_HIDDEN_CATEGORIES = frozenset({"Cf", "Cc", "Zl", "Zp", "Co", "Cn", "Cs", "Zs"})
# Variation selectors carry no glyph; the supplementary ones (and runs of the basic ones) can smuggle data.
_SUPPLEMENTARY_SELECTORS = range(0xE0100, 0xE01F0)
_BASIC_SELECTORS = range(0xFE00, 0xFE10)
# Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt), whatever each one's category: characters a
# font draws as nothing, letters among them (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0), combining marks (the
# grapheme joiner U+034F, Khmer's inherent vowels U+17B4-17B5, Mongolian's variation selectors U+180B-180F); and the
# braille blank U+2800, a symbol drawn as a space. The basic variation selectors U+FE00-FE0F, also in the set, keep
# their own rule above (hidden in runs only: one after an emoji is how it is drawn). ui/lib/visible.js IGNORABLE.
_IGNORABLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
                     (0x3164, 0x3164), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
_IGNORABLE = frozenset(code for first, last in _IGNORABLE_RANGES for code in range(first, last + 1))
MAX_NAMED = 5  # code points a reason names; the card marks every one where it is


def _hidden(char: str, previous: str, following: str, content: bool) -> bool:
    code = ord(char)
    if char == " " or char == "\n":
        return False
    if content and (char == "\t" or (char == "\r" and following == "\n")):
        return False  # indentation in a Makefile or Go file, a CRLF file's line ends: shown, not a risk
    if code in _SUPPLEMENTARY_SELECTORS:
        return True
    if code in _BASIC_SELECTORS:
        return ord(previous or " ") in _BASIC_SELECTORS or ord(following or " ") in _BASIC_SELECTORS
    return code in _IGNORABLE or unicodedata.category(char) in _HIDDEN_CATEGORIES


def hidden_characters(text: str, *, content: bool = False) -> list[str]:
    """The distinct hidden characters of `text` as `U+XXXX`, in the order first met (at most MAX_NAMED + 1).

    `content`: the text is a file's content, where tabs and CRLF line ends are ordinary (they are still marked)."""
    found: list[str] = []
    if text.isascii() and not _ASCII_HIDDEN.search(text.replace("\r\n", "\n") if content else text):
        return found  # the common case, without a loop in Python
    for index, char in enumerate(text):
        previous = text[index - 1] if index else ""
        following = text[index + 1] if index + 1 < len(text) else ""
        if _hidden(char, previous, following, content):
            name = f"U+{ord(char):04X}"
            if name not in found:
                found.append(name)
                if len(found) > MAX_NAMED:
                    break
    return found


_ASCII_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\t")


def mark(text: str) -> str:
    """`text` with every character a person cannot see (tabs included) as a visible mark: `⟨U+2067⟩`."""
    if text.isascii() and not _ASCII_HIDDEN.search(text):
        return text
    out: list[str] = []
    for index, char in enumerate(text):
        previous = text[index - 1] if index else ""
        following = text[index + 1] if index + 1 < len(text) else ""
        out.append(f"⟨U+{ord(char):04X}⟩" if char == "\t" or _hidden(char, previous, following, False) else char)
    return "".join(out)


def named(found: list[str]) -> str:
    """The reason's part: the first few code points, and how many more."""
    shown = ", ".join(found[:MAX_NAMED])
    return shown + (", …" if len(found) > MAX_NAMED else "")


# A run of blanks this long between two visible characters of one line pushes what follows out of sight on a card
# that does not wrap, and off the screen of an editor: indentation and aligned comments stay far below it.
GAP_WORTH_A_REASON = 64
_GAP = re.compile(rf"(?<=\S)[^\S\n]{{{GAP_WORTH_A_REASON},}}(?=\S)")


def longest_gap(text: str) -> int:
    """The longest run of blanks (spaces, tabs, odd spaces) inside a line, between two visible characters, if it is
    at least GAP_WORTH_A_REASON long; else 0."""
    return max((len(m.group()) for m in _GAP.finditer(text)), default=0)
