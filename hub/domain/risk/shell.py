"""The walk over a command parsed with tree-sitter's Bash grammar: every command, redirection, assignment and
heredoc in it judged, in the order bash meets them, `cd` followed.

What the grammar reads differently from bash is not trusted: a heredoc whose end tree-sitter finds elsewhere than
bash does (`<<E"O"F` ends at `EOF` for bash) and text that does not parse make the command "high: LineUp cannot tell
what this runs". The walk is iterative (a tree cursor) and bounded in nodes, commands and nesting, so a 64 KiB
command or `$(`×3000 is judged in well under a second.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from hub.domain.risk.catalog import judge
from hub.domain.risk.paths import Folders
from hub.domain.risk.plumbing import Plumbing, same
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import NOTHING, Call, Scope, Stream
from hub.domain.risk.variables import arithmetic_sets, assignment, code_in_text, sets
from hub.domain.risk.words import PLAIN_NAME, Reader, Word, text_of

MAX_DEPTH = 12         # sh -c "sh -c '…'" and wrappers followed this deep; deeper is "cannot tell"
MAX_NODES = 200_000    # a 64 KiB command has far fewer; past this the rest is "cannot tell"
MAX_COMMANDS = 2_000   # distinct commands judged one by one (~50 µs each); more is "cannot tell"
_SUBSHELLS = frozenset({"subshell", "command_substitution", "process_substitution", "pipeline"})
_ARITHMETIC = frozenset({"test_command", "arithmetic_expansion"})


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


class Shell:
    """Judges scripts and commands for one assessment; counts what it judged across every nested script."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, object, int | None]] = set()
        self.budget = MAX_NODES
        self.walks: list[Walk] = []  # the scripts being walked, innermost last (process substitutions are theirs)

    def script(self, text: str, scope: Scope, stdin: Stream = NOTHING) -> None:
        if scope.depth > MAX_DEPTH:
            scope.raise_to("high", "nested_too_deep")
            return
        source = text.encode("utf-8", "surrogatepass")
        tree = _parser().parse(source)
        if tree.root_node.has_error:
            scope.raise_to("high", "unparsed", _first_error(tree.root_node, source))
        self.walks.append(Walk(self, scope, Reader(source), stdin))
        try:
            self.walks[-1].walk(tree.root_node)
        finally:
            self.walks.pop()

    def output(self, node: Any) -> Stream:
        return self.walks[-1].plumbing.output_of(node, []) if self.walks else Stream(True)

    def run(self, words: list[Word], scope: Scope, stdin: Stream = NOTHING, text: str | None = None) -> None:
        if not words:
            return
        shown = text if text is not None else " ".join(w.text for w in words)
        self.call(words[0], words[1:], scope, stdin, shown)

    def call(self, name: Word, words: list[Word], scope: Scope, stdin: Stream | Callable[[], Stream],
             text: str) -> None:
        if scope.depth > MAX_DEPTH:
            scope.raise_to("high", "nested_too_deep")
            return
        if not name.plain:
            scope.cannot_tell(clip(name.text, 40))
            if name.value is not None and PLAIN_NAME.fullmatch(name.value) and name.value != name.text:
                self.call(Word.literal(name.value), words, scope.nested(), stdin, text)  # to say what it would do
            return
        if name.value in scope.functions:
            return  # its body is judged where it is defined
        if len(self.seen) > MAX_COMMANDS:
            scope.raise_to("high", "too_many_commands", str(MAX_COMMANDS))
            return
        judge(Call(name.value or "", words, text, stdin), scope)


class Walk:
    """One parsed script walked in order; `scope.folders` follows `cd`, undone when a subshell ends."""

    def __init__(self, shell: Shell, scope: Scope, reader: Reader, stdin: Stream) -> None:
        self.shell = shell
        self.scope = scope
        self.reader = reader
        self.plumbing = Plumbing(reader, stdin)
        self.restores: list[tuple[int, Folders]] = []

    def walk(self, root: Any) -> None:
        cursor = root.walk()
        ancestors: list[Any] = []  # the nodes above the cursor's, kept here: node.parent costs a walk from the root
        while True:
            node = cursor.node
            self.shell.budget -= 1
            if self.shell.budget < 0:
                self.scope.raise_to("high", "too_long")
                return
            while self.restores and node.start_byte >= self.restores[-1][0]:
                self.scope.folders = self.restores.pop()[1]
            if self.visit(node, ancestors) and cursor.goto_first_child():
                ancestors.append(node)
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return
                ancestors.pop()

    def visit(self, node: Any, ancestors: list[Any]) -> bool:
        """Judge one node; False to skip what is inside it."""
        kind = node.type
        if kind == "command":
            self.command(node, ancestors)
        elif kind == "variable_assignment":
            self.assignment(node)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "for_statement":
            variable = node.child_by_field_name("variable")
            if variable is not None:
                sets([text_of(variable, self.reader.source)], "for", self.scope)
        elif kind == "expansion":
            self.expansion(node)
        elif kind == "file_redirect":
            self.redirect(node, ancestors)
        elif kind == "heredoc_redirect":
            self.heredoc(node)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                self.scope.functions.add(text_of(name, self.reader.source))
        elif kind in _ARITHMETIC or (kind == "compound_statement" and text_of(node, self.reader.source)
                                     .startswith("((")):
            self.arithmetic(node)
        elif kind in ("comment", "heredoc_start", "heredoc_end"):
            return False
        return True

    def command(self, node: Any, ancestors: list[Any]) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        text = text_of(node, self.reader.source)
        parent = ancestors[-1] if ancestors else None
        redirects, holder = self.plumbing.redirects_of(node, parent)
        outer = ancestors[:-1] if holder is not node else ancestors
        key = (text_of(holder, self.reader.source), self.scope.folders.here, _piped_from(holder, outer))
        if key in self.shell.seen:  # `&& true` seven hundred times is judged once
            return
        self.shell.seen.add(key)
        name = self.reader.word(name_node)
        words = [self.reader.word(c) for c in node.children_by_field_name("argument")]
        for redirect in redirects:  # `rm 2>/dev/null -rf ~`: the grammar reads `-rf ~` as more destinations
            if redirect.type == "file_redirect":
                words += [self.reader.word(d) for d in redirect.children_by_field_name("destination")[1:]]
        before = self.scope.folders
        plumbing = self.plumbing
        self.shell.call(name, words, self.scope, lambda: plumbing.stdin_of(node, ancestors), text)
        if self.scope.folders is not before:  # `cd` in a subshell or a pipeline ends with it
            end = _subshell_end(ancestors)
            if end is not None:
                self.restores.append((end, before))
                self.restores.sort(key=lambda r: -r[0])

    def assignment(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None:
            return
        word = self.reader.word(value) if value is not None else Word("", "")
        assignment(text_of(name, self.reader.source), word, self.scope)

    def declaration(self, node: Any) -> None:
        """declare/typeset/local/export/readonly: `-n` makes a name refer to another variable (`declare -n r=BASH_ENV;
        export r=…` sets BASH_ENV), which the hub does not follow; a quoted `"NAME=value"` is an assignment too."""
        source = self.reader.source
        keyword = node.children[0].type if node.children else ""
        for child in node.named_children:
            if child.type in ("variable_assignment", "variable_name"):
                continue
            word = self.reader.word(child)
            value = word.value
            if value is None:
                self.scope.cannot_tell(clip(text_of(node, source), 50))
            elif value.startswith(("-", "+")) and not value.startswith(("--", "++")):
                if "n" in value[1:] and keyword in ("declare", "typeset", "local"):
                    self.scope.cannot_tell(clip(text_of(node, source), 50))  # a name reference
            elif "=" in value:
                name, _, assigned = value.partition("=")
                assignment(name.rstrip("+"), Word(assigned, assigned, False, False), self.scope)

    def expansion(self, node: Any) -> None:
        """`${NAME:=value}` and `${NAME=value}` set NAME when it is unset or empty."""
        text = text_of(node, self.reader.source)
        match = re.match(r"\$\{([A-Za-z_]\w*):?=(.*)\}$", text, re.DOTALL)
        if match is not None:
            default = match.group(2)
            literal = None if re.search(r"[$`\\'\"]", default) else default
            assignment(match.group(1), Word(default, literal, False, False), self.scope)

    def redirect(self, node: Any, ancestors: list[Any]) -> None:
        destinations = node.children_by_field_name("destination")
        operator = next((c.type for c in node.children if not c.is_named), "")
        if not destinations:
            return
        target = self.reader.word(destinations[0])
        value = target.value
        if value is not None and (tcp := re.match(r"/dev/(?:tcp|udp)/([^/]+)/(\d+)", value)):
            self.scope.raise_to("high", "connects", f"{tcp.group(1)}:{tcp.group(2)}")
        elif operator in (">&", "<&", ">&-", "<&-") and (value is None or re.fullmatch(r"\d*-?", value)):
            if value is None:
                self.scope.cannot_tell(text_of(node, self.reader.source))
        elif operator in ("<",):
            self.scope.read(target)
        elif operator in (">", ">>", ">|", "&>", "&>>", ">&"):
            self.scope.write(target)
            descriptor = node.child_by_field_name("descriptor")
            if descriptor is None or text_of(descriptor, self.reader.source) == "1":
                self._remember(target, ancestors, append=operator in (">>", "&>>"))

    def _remember(self, target: Word, ancestors: list[Any], append: bool) -> None:
        """What a command writes into the file its output goes to (`cat > x.sh <<EOF`, `curl … > x.sh`)."""
        parent = ancestors[-1] if ancestors else None
        command = parent.child_by_field_name("body") if parent is not None and parent.type == "redirected_statement" \
            else parent
        if command is None or command.type != "command":
            return
        above = ancestors if command is not parent else ancestors[:-1]
        self.scope.remember(target, self.plumbing.command_output(command, above), append)

    def heredoc(self, node: Any) -> None:
        """bash ends a heredoc at the line equal to its delimiter after quote removal (`E"O"F` → `EOF`); when
        tree-sitter ends it elsewhere, what bash runs is not what was read."""
        source = self.reader.source
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        end = next((c for c in node.children if c.type == "heredoc_end"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        if start is None:
            return
        raw = text_of(start, source)
        delimiter = re.sub(r"\\(.)", r"\1", re.sub(r"'([^']*)'|\"([^\"]*)\"", lambda m: m.group(1) or m.group(2)
                                                   or "", raw))
        tabs = any(c.type == "<<-" for c in node.children)
        lines = text_of(body, source).split("\n") if body is not None else []
        ends_early = any((line.lstrip("\t") if tabs else line) == delimiter for line in lines)
        ended = text_of(end, source) if end is not None else None
        if ends_early or (ended is not None and (ended.lstrip("\t") if tabs else ended) != delimiter):
            self.scope.cannot_tell(f"a heredoc bash ends at {delimiter}, not where it seems to")

    def arithmetic(self, node: Any) -> None:
        """Text holding `$(…)` inside `[[ ]]`, `$(( ))` or `(( ))` is run when bash evaluates a subscript; an
        arithmetic assignment sets a variable (`(( BASH_ENV = 1 ))`)."""
        if node.type != "test_command":
            sets(arithmetic_sets(text_of(node, self.reader.source)), "arithmetic", self.scope)
        cursor = node.walk()
        for _ in range(2_000):
            current = cursor.node
            if current.type in ("raw_string", "string", "ansi_c_string", "word") and code_in_text(
                    self.reader.word(current).value):
                self.scope.cannot_tell(clip(text_of(node, self.reader.source), 50))
                return
            if cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent() or same(cursor.node, node):
                    return
        return


def _piped_from(holder: Any, ancestors: list[Any]) -> int | None:
    """Where a command in a pipeline is: `bash` alone and `curl … | bash` are judged apart (only commands outside
    pipelines are judged once per text)."""
    for parent in reversed(ancestors[-5:]):
        if parent.type == "pipeline":
            return int(holder.start_byte)
        if parent.type != "list":
            return None
    return None


def _subshell_end(ancestors: list[Any]) -> int | None:
    """Where the subshell (or pipeline element, or substitution) around a command ends; None: it is the script's."""
    for parent in reversed(ancestors[-64:]):
        if parent.type in _SUBSHELLS:
            return int(parent.end_byte)
    return None


def _first_error(root: Any, source: bytes) -> str:
    cursor = root.walk()
    for _ in range(100_000):
        node = cursor.node
        if node.type == "ERROR" or node.is_missing:
            start = max(node.start_byte - 10, 0)
            return clip(source[start:node.end_byte + 10].decode("utf-8", "replace"), 40)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return ""
    return ""
