"""What an approval approves (`approves`): checked whole, counted, and judged for risk before the writer runs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import msgspec

from hub.domain.command_risk import Assessment, assess_command, assess_file_change
from hub.domain.unified_diff import diff_problem
from hub.protocol.errors import LapError
from hub.protocol.payloads import ApprovalSubject, InteractionRequested


def subject_text(subject: ApprovalSubject) -> str:
    """The text the person approves: the command, the new content, or every edit's old and new text."""
    if subject.kind == "command":
        return subject.command or ""
    if subject.kind == "write":
        return subject.content or ""
    return "\n".join(f"{edit.old}\n{edit.new}" for edit in subject.edits or [])


def approved_subject(subject: ApprovalSubject) -> dict[str, Any]:
    """The stored form: the agent's fields, checked for its kind, with `length` and `lines` counted by the hub."""
    if subject.kind == "command" and not (subject.command or "").strip():
        raise LapError("invalid_payload", "approves.command is needed for a command approval.")
    if subject.kind in ("write", "edit") and not subject.path:
        raise LapError("invalid_payload", f"approves.path is needed for a {subject.kind} approval.")
    if subject.kind == "write" and subject.content is None:
        raise LapError("invalid_payload", "approves.content (the file's whole new content) is needed for a write.")
    if subject.kind == "edit" and not subject.edits and not subject.diff:
        raise LapError("invalid_payload", "approves.edits or approves.diff is needed for an edit approval.")
    problem = diff_problem(subject.diff) if subject.diff is not None and subject.diff.strip() else None
    if problem is not None:  # the card would show it as text, not as the change it claims to be
        raise LapError("invalid_payload", f"approves.diff is not a unified diff the app can show: {problem}.",
                       hint="Leave `diff` out and send `edits` or `content`.")
    data: dict[str, Any] = msgspec.to_builtins(subject)
    text = subject_text(subject)
    data["length"] = len(text)
    data["lines"] = text.count("\n") + 1 if text else 0
    return data


def assess(subject: ApprovalSubject) -> Assessment:
    """The hub's own judgement of the risk (hub/domain/command_risk.py): the card is never labelled lower."""
    if subject.kind == "command":
        return assess_command(subject.command or "")
    return assess_file_change(subject.path or "", subject.cwd)


@dataclass(frozen=True)
class AssessedRequest:
    """An `interaction.requested` whose approval was judged before the writer (the writer's thread never parses)."""

    request: InteractionRequested
    assessment: Assessment


async def prepare(parsed: InteractionRequested) -> InteractionRequested | AssessedRequest:
    """Judge an approval's command or file change in a worker thread: parsing a 64 KiB command takes tens of
    milliseconds, which the writer (every agent's and person's commits) and the event loop must not wait for."""
    subject = parsed.interaction.approves
    if subject is None:
        return parsed
    return AssessedRequest(parsed, await asyncio.to_thread(assess, subject))
