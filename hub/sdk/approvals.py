"""What an approval approves, built whole for the card (docs/protocol.md#what-an-approval-approves).

An approval carries one item or a list of them: a command (its text, or its argv), a file written whole or edited,
a tool's whole input. A file change comes with a unified diff made from the file on disk where the file may be read
for it (hub/sdk/oldfile.py: inside the working folder, not a secret, small text), so the person sees exactly what
changes. Nothing is cut: what does not fit in a question (`fits`) is not offered as a card at all.
"""

from __future__ import annotations

import copy
import difflib
import json
import shlex
from pathlib import Path
from typing import Any

from hub.sdk.oldfile import MAX_DIFF_SOURCE_BYTES, OldFile, is_secret, read_old

__all__ = ["MAX_QUESTION_BYTES", "CARD_BUDGET_BYTES", "MAX_ITEMS", "MAX_DIFF_SOURCE_BYTES", "command_approval",
           "argv_approval", "write_approval", "edit_approval", "tool_approval", "fits", "fit_question", "size_of",
           "approves_bytes", "items_of", "is_secret", "read_old"]

MAX_QUESTION_BYTES = 64 * 1024   # the hub's limit for one question (docs/security.md)
CARD_BUDGET_BYTES = 60 * 1024    # what `approves` may take of it, as the hub counts it (MAX_APPROVES_BYTES)
MAX_ITEMS = 50                   # items in one approval


def command_approval(command: str, cwd: str | None = None) -> dict[str, Any]:
    """A command a shell runs, its whole text."""
    subject: dict[str, Any] = {"kind": "command", "command": command}
    if cwd:
        subject["cwd"] = cwd
    return subject


def argv_approval(argv: list[str], cwd: str | None = None) -> dict[str, Any]:
    """A program and its arguments, run without a shell; the hub shows it shell-quoted (`sh -c 'eval "$0"'`)."""
    subject: dict[str, Any] = {"kind": "command", "argv": [str(part) for part in argv]}
    if cwd:
        subject["cwd"] = cwd
    return subject


def tool_approval(tool: str, tool_input: Any, cwd: str | None = None) -> dict[str, Any]:
    """A tool without a command or file change (an MCP tool, a web fetch): its name and its whole input."""
    subject: dict[str, Any] = {"kind": "tool", "tool": tool, "input": tool_input}
    if cwd:
        subject["cwd"] = cwd
    return subject


def _hide(subject: dict[str, Any], old: OldFile) -> None:
    if old.hidden is not None:
        subject["oldHidden"] = old.hidden
        if old.size is not None:
            subject["oldSize"] = old.size


def write_approval(path: str, content: str, cwd: str | None = None) -> dict[str, Any]:
    """A file written whole: its new content, and the diff against what the file holds now where it may be read;
    else (`oldHidden`, `oldSize`) the card says the whole file is replaced, without its current content."""
    subject: dict[str, Any] = {"kind": "write", "path": path, "content": content}
    if cwd:
        subject["cwd"] = cwd
    old = read_old(path, cwd)
    _hide(subject, old)
    if old.hidden is None:
        diff = _diff(path, old.text or "", content, cwd, new_file=not old.exists)
        if diff:
            subject["diff"] = diff
    return subject


def edit_approval(path: str, edits: list[dict[str, Any]], cwd: str | None = None) -> dict[str, Any]:
    """Replacements in a file (`{old, new, replaceAll?}` each): the edits, and the diff they make to the file
    where it may be read (the edits alone otherwise)."""
    subject: dict[str, Any] = {"kind": "edit", "path": path,
                               "edits": [{"old": str(e.get("old", "")), "new": str(e.get("new", "")),
                                          **({"replaceAll": True} if e.get("replaceAll") else {})} for e in edits]}
    if cwd:
        subject["cwd"] = cwd
    old = read_old(path, cwd)
    _hide(subject, old)
    if old.text is not None:
        after: str | None = old.text
        for edit in subject["edits"]:
            if after is None or not edit["old"] or edit["old"] not in after:
                after = None
                break
            after = after.replace(edit["old"], edit["new"], -1 if edit.get("replaceAll") else 1)
        if after is not None:
            diff = _diff(path, old.text, after, cwd)
            if diff:
                subject["diff"] = diff
    return subject


def items_of(approves: dict[str, Any] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items of `approves`: one object is a list of one."""
    return approves if isinstance(approves, list) else [approves]


def _as_the_hub_counts(subject: dict[str, Any]) -> dict[str, Any]:
    """An item as the hub stores it before counting: an argv also shell-quoted as `command`."""
    if subject.get("kind") == "command" and isinstance(subject.get("argv"), list) and "command" not in subject:
        return {**subject, "command": shlex.join(str(part) for part in subject["argv"])}
    return subject


def approves_bytes(approves: dict[str, Any] | list[dict[str, Any]]) -> int:
    """The size of `approves` as JSON, as the hub counts it against CARD_BUDGET_BYTES."""
    return _size([_as_the_hub_counts(item) for item in items_of(approves)])


def _leaner(subject: dict[str, Any]) -> dict[str, Any] | None:
    """The item with less to show and nothing hidden: a write of an existing file shown by its diff alone (an edit
    of the file) or by its new content alone (the card then says the old content is not shown), whichever is
    smaller; an edit by its edits alone. None when nothing can go."""
    if "diff" not in subject or (subject["kind"] == "edit" and not subject.get("edits")):
        return None  # an edit without `edits` shows its diff only
    lean = {k: v for k, v in subject.items() if k != "diff"}
    if subject["kind"] != "write" or subject["diff"].startswith("--- /dev/null"):
        return lean
    lean["oldHidden"] = "too_large"
    size = _file_size(subject)
    if size is not None:
        lean["oldSize"] = size
    as_edit = {**{k: v for k, v in subject.items() if k != "content"}, "kind": "edit"}
    return as_edit if _size(as_edit) <= _size(lean) else lean


def fits(approves: dict[str, Any] | list[dict[str, Any]]) -> dict[str, Any] | list[dict[str, Any]] | None:
    """`approves` within the card's budget, in the shape given: the largest items made leaner first (a diff
    instead of a whole new content, or the content without a diff); None if even then it is too much, or there are
    more than MAX_ITEMS (then ask where the agent runs, not on a card that would have to cut it)."""
    items = [copy.copy(item) for item in items_of(approves)]
    if not items or len(items) > MAX_ITEMS:
        return None
    while approves_bytes(items) > CARD_BUDGET_BYTES:
        order = sorted(range(len(items)), key=lambda i: -_size(_as_the_hub_counts(items[i])))
        for index in order:
            lean = _leaner(items[index])
            if lean is not None:
                items[index] = lean
                break
        else:
            return None
    return items if isinstance(approves, list) else items[0]


def fit_question(card: dict[str, Any]) -> dict[str, Any] | None:
    """The whole question within MAX_QUESTION_BYTES: its description shortened if need be (what it approves, its
    title and options never); None when even without a description it is too large."""
    description = str(card.get("description") or "")
    while _size(card) > MAX_QUESTION_BYTES:
        if not description:
            return None
        over = _size(card) - MAX_QUESTION_BYTES
        description = description[: max(0, len(description) - over - 1)]
        card = {**card, "description": description + "…" if description else ""}
    return card


def size_of(approves: dict[str, Any] | list[dict[str, Any]]) -> int:
    """Characters of what is approved (what the card says it shows), over every item."""
    return sum(_item_size(item) for item in items_of(approves))


def _item_size(subject: dict[str, Any]) -> int:
    kind = subject.get("kind")
    if kind == "command":
        command = subject.get("command")
        return len(command) if isinstance(command, str) else len(shlex.join(map(str, subject.get("argv") or [])))
    if kind == "write":
        return len(subject.get("content") or "")
    if kind == "tool":
        return len(json.dumps(subject.get("input"), ensure_ascii=False, indent=2))
    return sum(len(e["old"]) + len(e["new"]) + 1 for e in subject.get("edits") or []) or len(subject.get("diff") or "")


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _file_size(subject: dict[str, Any]) -> int | None:
    target = Path(str(subject.get("path") or ""))
    if not target.is_absolute() and subject.get("cwd"):
        target = Path(str(subject["cwd"])) / target
    try:
        return target.stat().st_size
    except OSError:
        return None


def _diff(path: str, before: str, after: str, cwd: str | None, new_file: bool = False) -> str:
    name = path
    if cwd and Path(path).is_absolute():
        try:
            name = str(Path(path).relative_to(cwd))
        except ValueError:
            name = path
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile="/dev/null" if new_file else f"a/{name}", tofile=f"b/{name}", n=3)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
