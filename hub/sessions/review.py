"""The person's review of a session's changes as one message an agent understands: file:line, the line quoted, the
comment (docs/sessions.md "Review")."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from hub.protocol.errors import LapError
from hub.sessions import git

MAX_COMMENTS = 100
MAX_COMMENT_CHARS = 4000
MAX_SUMMARY_CHARS = 8000
MAX_FILE_BYTES = 4 * 1024 * 1024     # a file read for the lines its comments quote
MAX_QUOTE_CHARS = 500


class ReviewComment(msgspec.Struct, forbid_unknown_fields=True):
    path: str
    line: int
    text: str
    side: Literal["new", "old"] = "new"


class Review(msgspec.Struct, forbid_unknown_fields=True):
    comments: list[ReviewComment] = []
    summary: str = ""


@dataclass(frozen=True)
class Quoted:
    comment: ReviewComment
    quote: str | None


def check(review: Review) -> None:
    if not review.comments and not review.summary.strip():
        raise LapError("invalid_payload", "A review needs comments or a summary.")
    if len(review.comments) > MAX_COMMENTS:
        raise LapError("invalid_payload", f"A review carries at most {MAX_COMMENTS} comments.")
    if len(review.summary) > MAX_SUMMARY_CHARS:
        raise LapError("invalid_payload", f"A review's summary is at most {MAX_SUMMARY_CHARS} characters.")
    for comment in review.comments:
        path = comment.path
        if not path or len(path) > 4096 or path.startswith("/") or any(ord(c) < 0x20 for c in path):
            raise LapError("invalid_payload", "A comment's `path` is a file's path relative to the session's folder, "
                                              "as the changes list gives it.")
        if not comment.text.strip() or len(comment.text) > MAX_COMMENT_CHARS:
            raise LapError("invalid_payload", f"Each comment needs text of at most {MAX_COMMENT_CHARS} characters.")
        if not 1 <= comment.line <= 10_000_000:
            raise LapError("invalid_payload", "A comment's `line` is a line number (1 or more).")


async def quote_lines(folder: Path, baseline: str, comments: list[ReviewComment]) -> list[Quoted]:
    """Each comment with the line it is about: the file as it is now (`new`) or as it was at the baseline (`old`)."""
    texts: dict[tuple[str, str], list[str] | None] = {}
    quoted = []
    for comment in comments:
        key = (comment.side, comment.path)
        if key not in texts:
            texts[key] = await _lines(folder, baseline, comment.path, comment.side)
        lines = texts[key]
        line = lines[comment.line - 1] if lines is not None and comment.line <= len(lines) else None
        quoted.append(Quoted(comment, None if line is None else line[:MAX_QUOTE_CHARS]))
    return quoted


async def _lines(folder: Path, baseline: str, path: str, side: str) -> list[str] | None:
    if side == "old":
        if not baseline:  # no start to read from (no repository): git is not run
            return None
        out = await git.run(folder, "cat-file", "-p", f"{baseline}:{path}", check=False, max_output=MAX_FILE_BYTES)
        return out.stdout.decode("utf-8", "replace").splitlines() if out.returncode == 0 else None
    def read() -> list[str] | None:
        target = (folder / path).resolve()
        if not target.is_relative_to(folder.resolve()) or not target.is_file() \
                or target.stat().st_size > MAX_FILE_BYTES:
            return None
        return target.read_text("utf-8", errors="replace").splitlines()

    try:
        return await asyncio.to_thread(read)
    except (OSError, ValueError):
        return None


def message(quoted: list[Quoted], summary: str) -> str:
    """The review as the agent reads it."""
    count = len(quoted)
    parts = [f"Review of your changes: {count} comment{'s' if count != 1 else ''}. Please address each one."]
    if summary.strip():
        parts.append(summary.strip())
    for number, item in enumerate(quoted, 1):
        comment = item.comment
        where = f"{comment.path}:{comment.line}" + (" (the old version, before your change)"
                                                    if comment.side == "old" else "")
        block = [f"{number}. {where}"]
        if item.quote is not None:
            block.append("   > " + item.quote.strip("\r"))
        block += ["   " + line for line in comment.text.strip().splitlines()]
        parts.append("\n".join(block))
    return "\n\n".join(parts)
