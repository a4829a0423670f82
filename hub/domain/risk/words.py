"""A shell word as bash would see it: its value after quote removal, or None when it is chosen at run time.

A command's name must be a plain literal word to be looked up; quoting, escapes, ANSI-C strings, globs, braces and
expansions in a name are what `$'\\x72\\x6d' -rf ~` and `/usr/bin/c?rl` hide behind, so a name holding any of them
is not read as a name (hub/domain/risk/shell.py says "LineUp cannot tell what this runs").
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

# A name the hub reads as a program: letters, digits and the punctuation of paths and versioned names, nothing a
# shell would expand or unquote, nothing invisible.
PLAIN_NAME = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_.+:@%,/-]*")
_GLOB = re.compile(r"[*?\[]|\{[^{}]*(?:,|\.\.)[^{}]*\}")
_EXPANSIONS = frozenset({"simple_expansion", "expansion", "command_substitution", "process_substitution",
                         "arithmetic_expansion"})
# Variables whose value the hub knows well enough to judge a path by: `"$HOME/.bashrc"` is the start-up file.
KNOWN_VARIABLES = {"HOME": "~", "PWD": ".", "TMPDIR": "/tmp"}  # noqa: S108 - a name for temporary files, never opened


@dataclass(frozen=True)
class Word:
    """One word of a command: `text` as written, `value` after quote removal (None: chosen at run time)."""

    text: str
    value: str | None
    plain: bool = True    # a literal word without quotes, escapes, globs, braces or expansions
    globby: bool = False  # unquoted glob or brace characters: the value names several paths
    node: Any = None      # the syntax node, when the word came from one

    @staticmethod
    def literal(value: str) -> Word:
        """A word made from text the hub already holds (`env -S`'s string split, a Python list of arguments)."""
        return Word(value, value, PLAIN_NAME.fullmatch(value) is not None, _GLOB.search(value) is not None)

    @property
    def is_option(self) -> bool:
        return self.value is not None and self.value.startswith("-") and self.value != "-"

    @property
    def substitution(self) -> Any:
        """The process substitution `<(…)` this word is, if it is one."""
        return self.node if self.node is not None and self.node.type == "process_substitution" else None


def names(text: str) -> frozenset[str]:
    """A set of names written as words separated by white space (the catalog's long lists)."""
    return frozenset(text.split())


def text_of(node: Any, source: bytes) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


class Reader:
    """Reads words from one parsed script; knows whether `$HOME` may be taken as the home folder in it."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        text = source.decode("utf-8", "replace")
        stripped = re.sub(r"\$\{?(?:HOME|PWD|TMPDIR)\}?", "", text)
        # A script that assigns, reads or exports one of them could have changed it: then it is run-time text.
        self.known = {name: value for name, value in KNOWN_VARIABLES.items()
                      if not re.search(rf"\b{name}\b", stripped)}

    def word(self, node: Any) -> Word:
        text = text_of(node, self.source)
        if node.type == "command_name" and node.named_child_count == 1:
            node = node.named_children[0]
        if node.type == "word" and not re.search(r"[\\'\"$`*?\[{~]", text):
            return Word(text, text, PLAIN_NAME.fullmatch(text) is not None, False, node)
        value = self._value(node, 0)
        globby = value is not None and node.type in ("word", "concatenation") and _unquoted_glob(node, self.source)
        return Word(text, value, False, globby, node)

    def _value(self, node: Any, depth: int) -> str | None:
        kind = node.type
        if depth > 64:
            return None
        if kind == "word":
            return unescape_unquoted(text_of(node, self.source))
        if kind in ("number", "variable_name", "test_operator", "regex", "extglob_pattern", "brace_expression"):
            return text_of(node, self.source)
        if kind == "raw_string":
            return text_of(node, self.source)[1:-1]
        if kind == "ansi_c_string":
            return ansi_c(text_of(node, self.source)[2:-1])
        if kind in ("simple_expansion", "expansion"):
            names = [c for c in node.named_children]
            if len(names) == 1 and names[0].type == "variable_name" and node.child_count <= 4:
                return self.known.get(text_of(names[0], self.source))
            return None
        if kind in _EXPANSIONS:
            return None
        if kind in ("string", "translated_string"):
            parts: list[str] = []
            for child in node.children:
                if child.type == "string_content":
                    parts.append(unescape_double(text_of(child, self.source)))
                elif child.is_named:
                    value = self._value(child, depth + 1)
                    if value is None:
                        return None
                    parts.append(value)
            return "".join(parts)
        if kind == "concatenation" or kind == "command_name":
            pieces = [self._value(child, depth + 1) for child in node.children]
            if any(piece is None for piece in pieces):
                return None
            return "".join(piece or "" for piece in pieces)
        return None  # a construct the hub does not read as a word (an array, a subscript): chosen at run time


def _unquoted_glob(node: Any, source: bytes) -> bool:
    if node.type == "word":
        return _GLOB.search(text_of(node, source).replace("\\*", "").replace("\\?", "")) is not None
    if node.type == "concatenation":
        text = "".join(text_of(c, source) for c in node.children if c.type == "word")
        return "*" in text or "?" in text or "[" in text or "{" in text
    return False


def unescape_unquoted(text: str) -> str:
    """An unquoted word's value: a backslash keeps the next character, a backslash-newline disappears."""
    if "\\" not in text:
        return text
    return re.sub(r"\\(\n|.)", lambda m: "" if m.group(1) == "\n" else m.group(1), text, flags=re.DOTALL)


def unescape_double(text: str) -> str:
    """Text inside double quotes: only \\ " $ ` and newline are escaped there."""
    if "\\" not in text:
        return text
    return re.sub(r"\\([\\\"$`\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                   "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c(body: str) -> str:
    """The value of `$'…'` as bash decodes it (escapes, octal, hex, Unicode, control characters)."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 >= len(body):
            out.append(char)
            index += 1
            continue
        kind = body[index + 1]
        if kind in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[kind])
            index += 2
        elif kind in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[index + 1:])
            assert digits is not None
            out.append(chr(int(digits.group(0), 8) & 0xFF))
            index += 1 + len(digits.group(0))
        elif kind in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[kind]
            digits = re.match(rf"[0-9a-fA-F]{{1,{size}}}", body[index + 2:])
            if digits is None:
                out.append("\\" + kind)
                index += 2
                continue
            code = int(digits.group(0), 16)
            out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
            index += 2 + len(digits.group(0))
        elif kind == "c" and index + 2 < len(body):
            out.append(chr(ord(body[index + 2].upper()) ^ 0x40))
            index += 3
        else:
            out.append("\\" + kind)
            index += 2
    return "".join(out)


def split(text: str) -> list[Word] | None:
    """Text split into words as a shell would without expanding anything (env -S, an alias, a git alias); None
    when it does not split (an open quote) or holds an expansion."""
    if re.search(r"[$`]", text):
        return None
    try:
        return [Word.literal(part) for part in shlex.split(text, posix=True)]
    except ValueError:
        return None


def expand_braces(text: str, limit: int = 64) -> list[str]:
    """`{a,b}` and `{1..3}` expanded (at most `limit` results; the rest are not needed to judge a path)."""
    match = re.search(r"\{([^{}]*)\}", text)
    if match is None:
        return [text]
    inner = match.group(1)
    if "," in inner:
        options = inner.split(",")
    elif (sequence := re.fullmatch(r"(-?\d+)\.\.(-?\d+)", inner)) is not None:
        low, high = int(sequence.group(1)), int(sequence.group(2))
        step = 1 if high >= low else -1
        options = [str(n) for n in range(low, high + step, step)][:limit]
    else:
        return [text]
    results: list[str] = []
    for option in options:
        for expanded in expand_braces(text[:match.start()] + option + text[match.end():], limit):
            results.append(expanded)
            if len(results) >= limit:
                return results
    return results
