"""What the agent sends, as text the hub shows: content blocks named or quoted, lengths clipped."""

from __future__ import annotations

from typing import Any


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
