"""What the agent sends, as text the hub shows: content blocks named or quoted, lengths clipped."""

from __future__ import annotations

from typing import Any


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain_title(title: str) -> str:
    """A tool call's title as plain text: Claude Code's adapter titles a command as one Markdown code span
    (`` `echo hi > out.txt` ``), which a card title, a progress line or an IM message would show with its backticks."""
    text = title.strip()
    if len(text) > 2 and text[0] == text[-1] == "`" and "`" not in text[1:-1]:
        return text[1:-1].strip()
    return text


def content_text(block: Any) -> str:
    """The text of an ACP content block; other kinds are named, not shown."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind == "resource_link":
        return f"[{block.name}]({block.uri})"
    if kind == "resource":
        return str(getattr(block.resource, "text", "") or f"[{block.resource.uri}]")
    return f"[{kind}]" if kind else ""


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return clip(lines[-1], 500) if lines else ""
