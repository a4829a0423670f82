"""What an agent's tool did, as a message of its own: a summary line, and a bounded record the app lays out compactly.

An ACP agent's tool calls (hub/acp/activity.py) and Claude Code's PostToolUse hook (hub/connect/tool_activity.py)
become one message per tool call, in the conversation where it happened, between the text before it and after it:
`content` is one line in words ("Ran `npm test` → exit 0"), for relays, previews and older apps; `blocks` holds
`{"type": "tool", …}` (docs/protocol.md "Tool activity"). What is kept is bounded: the last OUTPUT_LINES lines (at
most OUTPUT_BYTES) of a command's output with the size of all of it, a file's change as a unified diff up to
DIFF_BYTES, else its counts only. A secret file's change (hub/sdk/oldfile.py `is_secret`) keeps its counts only, and
a file read keeps its name only: what the person sees of a file is what the agent wrote or ran, never what it read.
"""

from __future__ import annotations

import difflib
from pathlib import PurePath
from typing import Any

from hub.sdk.oldfile import is_secret

OUTPUT_LINES = 60            # the last lines of a command's output kept
OUTPUT_BYTES = 8 * 1024      # and at most this much of them
DIFF_BYTES = 24 * 1024       # a tool call's diffs, all together; beyond this a file keeps its counts only
COMMAND_CHARS = 2000         # a command kept longer than this is cut (the card that approved it showed it whole)
TITLE_CHARS = 300
STATUSES = ("running", "completed", "failed", "denied", "stopped", "unfinished")
KINDS = ("execute", "read", "edit", "delete", "move", "search", "fetch", "think", "other")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def output_tail(text: str, lines: int = OUTPUT_LINES, max_bytes: int = OUTPUT_BYTES) -> dict[str, Any] | None:
    """The last lines of a command's output and how much there was in all ({text, lines, bytes, cut}); None when
    it printed nothing."""
    if not text or not text.strip():
        return None
    body = text.rstrip("\n")
    every = body.split("\n")
    kept = every[-lines:]
    shown = "\n".join(kept)
    raw = shown.encode()
    if len(raw) > max_bytes:  # a few very long lines: their end, never starting inside a character
        shown = raw[-max_bytes:].decode("utf-8", errors="ignore")
        kept = shown.split("\n")
    return {"text": shown, "lines": len(every), "bytes": len(text.encode()), "keptLines": len(kept),
            "cut": len(kept) < len(every) or len(raw) > max_bytes}


def _name(path: str, cwd: str | None) -> str:
    """The path as the person reads it: relative to the working folder when it is inside it."""
    if cwd:
        full, folder = PurePath(path), PurePath(cwd)
        if full.is_absolute() and full.is_relative_to(folder) and full != folder:
            return str(full.relative_to(folder))
    return path


def _counts(diff_lines: list[str]) -> tuple[int, int]:
    added = sum(1 for line in diff_lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff_lines if line.startswith("-") and not line.startswith("---"))
    return added, removed


def file_change(path: str, old: str | None, new: str, cwd: str | None) -> dict[str, Any]:
    """One file's change from its old and new text (the whole file, or the part the agent replaced): the diff, and
    its +/− counts."""
    name = _name(path, cwd)
    before = (old or "").splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    lines = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
             for line in difflib.unified_diff(before, after, fromfile="/dev/null" if old is None else f"a/{name}",
                                              tofile=f"b/{name}", n=3)]
    return _change(path, name, cwd, "".join(lines), old is None)


def patch_change(path: str, hunks: list[dict[str, Any]], cwd: str | None, created: bool = False) -> dict[str, Any]:
    """One file's change from hunks as Claude Code reports them (`structuredPatch`: oldStart, oldLines, newStart,
    newLines, lines with their +/-/space marks)."""
    name = _name(path, cwd)
    text = [f"--- {'/dev/null' if created else 'a/' + name}\n", f"+++ b/{name}\n"]
    for hunk in hunks:
        if not isinstance(hunk, dict) or not isinstance(hunk.get("lines"), list):
            continue
        text.append(f"@@ -{hunk.get('oldStart', 0)},{hunk.get('oldLines', 0)} "
                    f"+{hunk.get('newStart', 0)},{hunk.get('newLines', 0)} @@\n")
        text.extend(f"{line}\n" for line in hunk["lines"] if isinstance(line, str))
    return _change(path, name, cwd, "".join(text) if len(text) > 2 else "", created)


def _change(path: str, name: str, cwd: str | None, diff: str, created: bool) -> dict[str, Any]:
    added, removed = _counts(diff.splitlines())
    change: dict[str, Any] = {"path": name, "added": added, "removed": removed}
    if created:
        change["created"] = True
    if is_secret(path, cwd) or is_secret(name):
        change["hidden"] = "secret"  # its counts only: what the file holds stays on the machine
    elif diff:
        change["diff"] = diff
    return change


def _fit_diffs(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Diffs kept in order until DIFF_BYTES; the files after that keep their counts only."""
    room = DIFF_BYTES
    fitted = []
    for change in changes:
        size = len(change.get("diff", "").encode())
        if size > room:
            fitted.append({k: v for k, v in change.items() if k != "diff"} | {"hidden": "too_large", "diffBytes": size})
            continue
        room -= size
        fitted.append(change)
    return fitted


def record(kind: str, title: str, status: str, *, tool_id: str = "", command: str | None = None,
           exit_code: int | None = None, paths: list[str] | None = None, output: str | None = None,
           changes: list[dict[str, Any]] | None = None, cwd: str | None = None) -> dict[str, Any]:
    """The tool block of one tool call; the output only for what the agent ran, or for a failure (its error)."""
    block: dict[str, Any] = {"type": "tool", "kind": kind if kind in KINDS else "other",
                             "title": clip(" ".join(title.split()), TITLE_CHARS) or "tool",
                             "status": status if status in STATUSES else "unfinished"}
    if tool_id:
        block["id"] = clip(tool_id, 200)
    if command:
        block["command"] = clip(command.strip(), COMMAND_CHARS)
    if exit_code is not None:
        block["exitCode"] = exit_code
    named = list(dict.fromkeys(_name(p, cwd) for p in paths or [] if p))
    if named:
        block["paths"] = named[:20]
    if changes:
        block["changes"] = _fit_diffs(changes)[:20]
    tail = output_tail(output or "") if output and (kind == "execute" or status == "failed") else None
    if tail is not None:
        block["output"] = tail
    return block


VERB = {"read": "Read", "edit": "Edited", "delete": "Deleted", "move": "Moved", "search": "Searched",
        "fetch": "Fetched"}


def summary(block: dict[str, Any]) -> str:
    """The block in one line of words, for whatever shows text only (a relay, a preview, an older app)."""
    status = block.get("status")
    ending = {"failed": " → failed", "denied": " → not run: the person said no", "stopped": " → stopped",
              "unfinished": " → not finished"}.get(str(status), "")
    if block.get("kind") == "execute" and block.get("command"):
        command = clip(" ".join(str(block["command"]).split()), 200)
        if block.get("exitCode") is not None and status in ("completed", "failed"):
            ending = f" → exit {block['exitCode']}"
        return f"Ran `{command}`{ending}"
    changes = block.get("changes") or []
    if changes:
        added, removed = sum(c["added"] for c in changes), sum(c["removed"] for c in changes)
        what = changes[0]["path"] if len(changes) == 1 else f"{len(changes)} files"
        verb = "Created" if len(changes) == 1 and changes[0].get("created") else "Edited"
        return f"{verb} {what} (+{added} −{removed}){ending}"
    done = VERB.get(str(block.get("kind")))
    paths = block.get("paths") or []
    if done and paths:
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
        return f"{done} {paths[0]}{more}{ending}"
    return f"{block.get('title') or 'Used a tool'}{ending}"


def message(block: dict[str, Any]) -> dict[str, Any]:
    """The message.create payload (without its id) for one tool call."""
    return {"content": summary(block), "blocks": [block]}


def stopped_block(alone: bool = False) -> dict[str, Any]:
    """The mark on a message the person's Stop cut short (kept with it, so a reload shows it too); `alone`: the
    message is the mark only (Stop came while nothing was being said), its `content` the words for text-only apps."""
    return {"type": "stopped", "alone": True} if alone else {"type": "stopped"}
