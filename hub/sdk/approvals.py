"""What an approval approves, built whole for the card (docs/protocol.md#what-an-approval-approves).

A command is sent as it will run; a file change as the file's new content or the edits, with a unified diff made
from the file on disk where it can be read, so the person sees exactly what changes. Nothing is cut: what does not
fit in a question (`fits`) is not offered as a card at all.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

MAX_QUESTION_BYTES = 64 * 1024   # the hub's limit for one question (docs/security.md)
CARD_BUDGET_BYTES = 60 * 1024    # what `approves` may take of it, leaving room for the title, options and details
MAX_DIFF_SOURCE_BYTES = 2 * 1024 * 1024  # a bigger file is not read for a diff (the edits are still shown whole)


def command_approval(command: str, cwd: str | None = None) -> dict[str, Any]:
    subject: dict[str, Any] = {"kind": "command", "command": command}
    if cwd:
        subject["cwd"] = cwd
    return subject


def write_approval(path: str, content: str, cwd: str | None = None) -> dict[str, Any]:
    """A file written whole: its new content, and the diff against what the file holds now (if it exists)."""
    subject: dict[str, Any] = {"kind": "write", "path": path, "content": content}
    if cwd:
        subject["cwd"] = cwd
    before = _read(path, cwd)
    diff = _diff(path, before or "", content, cwd, new_file=before is None)
    if diff:
        subject["diff"] = diff
    return subject


def edit_approval(path: str, edits: list[dict[str, Any]], cwd: str | None = None) -> dict[str, Any]:
    """Replacements in a file (`{old, new, replaceAll?}` each): the edits, and the diff they make to the file."""
    subject: dict[str, Any] = {"kind": "edit", "path": path,
                               "edits": [{"old": str(e.get("old", "")), "new": str(e.get("new", "")),
                                          **({"replaceAll": True} if e.get("replaceAll") else {})} for e in edits]}
    if cwd:
        subject["cwd"] = cwd
    before = _read(path, cwd)
    if before is not None:
        after: str | None = before
        for edit in subject["edits"]:
            if after is None or not edit["old"] or edit["old"] not in after:
                after = None
                break
            after = after.replace(edit["old"], edit["new"], -1 if edit.get("replaceAll") else 1)
        if after is not None:
            diff = _diff(path, before, after, cwd)
            if diff:
                subject["diff"] = diff
    return subject


def fits(subject: dict[str, Any]) -> dict[str, Any] | None:
    """`subject` within the card's budget: without its diff if only that is too much; None if even the
    command or content alone is (then ask where the agent runs, not on a card that would have to cut it)."""
    if _size(subject) <= CARD_BUDGET_BYTES:
        return subject
    if "diff" in subject and (subject["kind"] != "edit" or subject.get("edits")):
        lean = {k: v for k, v in subject.items() if k != "diff"}
        if _size(lean) <= CARD_BUDGET_BYTES:
            return lean
    return None


def size_of(subject: dict[str, Any]) -> int:
    """Characters of what is approved (what the card says it shows)."""
    if subject["kind"] == "command":
        return len(subject.get("command") or "")
    if subject["kind"] == "write":
        return len(subject.get("content") or "")
    return sum(len(e["old"]) + len(e["new"]) + 1 for e in subject.get("edits") or []) or len(subject.get("diff") or "")


def _size(subject: dict[str, Any]) -> int:
    return len(json.dumps(subject, ensure_ascii=False).encode())


def _read(path: str, cwd: str | None) -> str | None:
    target = Path(path)
    if not target.is_absolute() and cwd:
        target = Path(cwd) / target
    try:
        if not target.is_file() or target.stat().st_size > MAX_DIFF_SOURCE_BYTES:
            return None
        return target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
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
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return text
