"""Claude Code's PostToolUse hook as a tool block: what the tool did, from its input and Claude Code's response."""

from __future__ import annotations

from typing import Any

from hub.sdk import activity

KIND = {"Bash": "execute", "Read": "read", "NotebookRead": "read", "Edit": "edit", "MultiEdit": "edit",
        "Write": "edit", "NotebookEdit": "edit", "Grep": "search", "Glob": "search", "LS": "search",
        "WebFetch": "fetch", "WebSearch": "fetch"}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _path(tool_input: dict[str, Any], response: dict[str, Any]) -> str:
    return _text(response.get("filePath")) or _text(tool_input.get("file_path")) or \
        _text(tool_input.get("notebook_path")) or _text(tool_input.get("path"))


def _changes(tool: str, tool_input: dict[str, Any], response: dict[str, Any], cwd: str) -> list[dict[str, Any]]:
    """The file's change: Claude Code's own hunks (`structuredPatch`) when it gave them, else from the input."""
    path = _path(tool_input, response)
    if not path:
        return []
    created = response.get("type") == "create"
    hunks = response.get("structuredPatch")
    if isinstance(hunks, list) and hunks:
        return [activity.patch_change(path, hunks, cwd, created)]
    if tool == "Write":
        original = response.get("originalFile")
        return [activity.file_change(path, original if isinstance(original, str) else None,
                                     _text(tool_input.get("content")), cwd)]
    if tool == "Edit":
        return [activity.file_change(path, _text(tool_input.get("old_string")), _text(tool_input.get("new_string")),
                                     cwd)]
    edits = [e for e in tool_input.get("edits") or [] if isinstance(e, dict)]
    if edits:  # MultiEdit without hunks: its replaced parts, one after another
        return [activity.file_change(path, "".join(_text(e.get("old_string")) + "\n" for e in edits),
                                     "".join(_text(e.get("new_string")) + "\n" for e in edits), cwd)]
    return []


def block(event: dict[str, Any]) -> dict[str, Any]:
    """The tool block of one PostToolUse event (the tool ran: Claude Code calls this hook only after it did)."""
    tool = _text(event.get("tool_name")) or "tool"
    raw_input, raw_response = event.get("tool_input"), event.get("tool_response")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    response: dict[str, Any] = raw_response if isinstance(raw_response, dict) else {}
    cwd = _text(event.get("cwd"))
    kind = KIND.get(tool, "other")
    tool_id = _text(event.get("tool_use_id"))
    if kind == "execute":
        output = "\n".join(part.rstrip("\n") for part in (_text(response.get("stdout")), _text(response.get("stderr")))
                           if part.strip())
        if not response and isinstance(raw_response, str):
            output = raw_response
        interrupted = bool(response.get("interrupted"))
        # Claude Code's Bash reports a command that exits non-zero as a tool error, which is not a PostToolUse: a
        # command this hook hears of exited 0, unless it was interrupted.
        return activity.record("execute", tool, "stopped" if interrupted else "completed", tool_id=tool_id,
                               command=_text(tool_input.get("command")), exit_code=None if interrupted else 0,
                               output=output, cwd=cwd)
    if kind == "edit":
        return activity.record("edit", tool, "completed", tool_id=tool_id, changes=_changes(tool, tool_input,
                                                                                           response, cwd), cwd=cwd)
    if kind in ("read", "search", "fetch"):
        named = _path(tool_input, response) or _text(tool_input.get("url")) or _text(tool_input.get("pattern")) \
            or _text(tool_input.get("query"))
        title = f"{tool} {named}".strip()
        return activity.record(kind, title, "completed", tool_id=tool_id, paths=[named] if named else [], cwd=cwd)
    return activity.record("other", f"Used {tool}", "completed", tool_id=tool_id, cwd=cwd)


def message(event: dict[str, Any]) -> dict[str, Any]:
    """The message.create payload (without its id) for one PostToolUse event."""
    return activity.message(block(event))
