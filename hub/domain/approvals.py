"""What an approval approves (`approves`): every item checked whole, counted, and judged for risk before the writer.

An approval carries one item or a list of them (a command, a file written or edited, a tool's input, a commit); the
card shows every item in full, and the approval's risk is never lower than any item's
(docs/protocol.md#what-an-approval-approves).
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

import msgspec

from hub.domain.command_risk import Assessment, assess_command, assess_file_change, assess_tool_input
from hub.domain.risk.reasons import clip
from hub.domain.unified_diff import diff_problem
from hub.domain.visible import hidden_characters, longest_gap, named
from hub.protocol.errors import LapError
from hub.protocol.payloads import ApprovalSubject, InteractionRequested
from hub.protocol.vocabulary import RISK_LEVELS

# What `approves` may take of a question (64 KiB of JSON), leaving room for the title, options and details. An agent
# with more to approve asks where it runs (docs/security.md#what-an-approval-shows).
MAX_APPROVES_BYTES = 60 * 1024
_GIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def items_of(approves: ApprovalSubject | list[ApprovalSubject] | None) -> list[ApprovalSubject]:
    """The items of `approves`: one object is a list of one."""
    if approves is None:
        return []
    return approves if isinstance(approves, list) else [approves]


def tool_text(value: Any) -> str:
    """A tool's input as the card shows it: its JSON, indented, every character as it is."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False)


def commit_text(subject: ApprovalSubject) -> str:
    """A commit as text: its message, then a line per file."""
    lines = [subject.message or ""]
    for file in subject.files or []:
        lines.append(f"{file.status} {file.path}" + (f" (from {file.oldPath})" if file.oldPath else ""))
    return "\n".join(lines)


def subject_text(subject: ApprovalSubject) -> str:
    """The text the person approves: the command, the new content, every edit's old and new text (or the diff of an
    edit sent as a diff alone), a tool's input, a commit's message and files."""
    if subject.kind == "command":
        return subject.command or ""
    if subject.kind == "write":
        return subject.content or ""
    if subject.kind == "tool":
        return tool_text(subject.input)
    if subject.kind == "commit":
        return commit_text(subject)
    if not subject.edits:  # an edit sent as a diff alone: the diff is what the card shows
        return subject.diff or ""
    return "\n".join(f"{edit.old}\n{edit.new}" for edit in subject.edits)


def _check(subject: ApprovalSubject, where: str) -> ApprovalSubject:
    """The item's fields checked for its kind; `argv` turned into the command as a shell reads it."""
    kind = subject.kind
    if kind == "command":
        if subject.argv is not None:
            joined = shlex.join(subject.argv)
            if subject.command is not None and subject.command != joined:
                raise LapError("invalid_payload", f"{where}.command differs from {where}.argv shell-quoted: send one "
                                                  "of them.", hint=f"argv shell-quoted is {joined!r}.")
            subject = msgspec.structs.replace(subject, command=joined)
        if not (subject.command or "").strip():
            raise LapError("invalid_payload", f"{where}.command is needed for a command approval.")
    elif kind in ("write", "edit"):
        if not subject.path:
            raise LapError("invalid_payload", f"{where}.path is needed for a {kind} approval.")
        if kind == "write" and subject.content is None:
            raise LapError("invalid_payload", f"{where}.content (the file's whole new content) is needed for a write.")
        if kind == "edit" and not subject.edits and not subject.diff:
            raise LapError("invalid_payload", f"{where}.edits or {where}.diff is needed for an edit approval.")
        problem = diff_problem(subject.diff) if subject.diff is not None and subject.diff.strip() else None
        if problem is not None:  # the card would show it as text, not as the change it claims to be
            raise LapError("invalid_payload", f"{where}.diff is not a unified diff the app can show: {problem}.",
                           hint="Leave `diff` out and send `edits` or `content`.")
    elif kind == "tool":
        if not subject.tool or subject.input is None:
            raise LapError("invalid_payload", f"{where}.tool and {where}.input (the tool's whole input) are needed "
                                              "for a tool approval.")
    elif kind == "commit" and (not subject.cwd or subject.tree is None or subject.message is None
                               or subject.files is None):
        raise LapError("invalid_payload", f"{where}.cwd, .tree, .message and .files are needed for a commit "
                                              "approval.")
    return subject


def approved_items(approves: ApprovalSubject | list[ApprovalSubject]) -> list[ApprovalSubject]:
    """Every item checked for its kind, and the whole within what a card shows."""
    items = items_of(approves)
    many = isinstance(approves, list)
    checked = [_check(item, f"approves[{index}]" if many else "approves") for index, item in enumerate(items)]
    size = len(msgspec.json.encode(checked))
    if size > MAX_APPROVES_BYTES:
        raise LapError("invalid_payload", f"What this approval approves is {size:,} bytes: more than a card shows "
                                          f"whole ({MAX_APPROVES_BYTES:,}).",
                       hint="Ask in the agent's own terminal, or split it into approvals that each fit.")
    return checked


def stored_item(subject: ApprovalSubject, assessment: Assessment) -> dict[str, Any]:
    """The stored form of one item: the agent's fields with `length`, `lines` and `risk` from the hub."""
    data: dict[str, Any] = msgspec.to_builtins(subject)
    text = subject_text(subject)
    data["length"] = len(text)
    data["lines"] = text.count("\n") + 1 if text else 0
    data["risk"] = assessment.level
    if subject.kind == "tool":
        data["text"] = text
    return data


def _hidden_in(subject: ApprovalSubject) -> list[str]:
    """The hidden characters in what the card shows of the item: names and paths as text a shell or tool reads,
    a file's content as content (its tabs and CRLF line ends are ordinary)."""
    found: list[str] = []
    plain = [subject.command or "", subject.path or "", subject.cwd or "", subject.message or "",
             subject.tool or "", *(f.path for f in subject.files or []), *(subject.hooks or [])]
    if subject.kind == "tool":
        plain.append(tool_text(subject.input))
    content = [subject.content or "", subject.diff or "", *(e.old + "\n" + e.new for e in subject.edits or [])]
    for text in plain:
        found += [c for c in hidden_characters(text) if c not in found]
    for text in content:
        found += [c for c in hidden_characters(text, content=True) if c not in found]
    return found


def assess_item(subject: ApprovalSubject) -> Assessment:
    """The hub's own judgement of one item's risk (hub/domain/command_risk.py); the card is never labelled lower."""
    if subject.kind == "command":
        found = assess_command(subject.command or "", subject.cwd)
    elif subject.kind in ("write", "edit"):
        found = assess_file_change(subject.path or "", subject.cwd)
    elif subject.kind == "tool":
        found = assess_tool_input(subject.tool or "", subject.input, subject.cwd)
    else:
        found = _assess_commit(subject)
    hidden = _hidden_in(subject)
    if hidden:
        found.raise_to("high", "hidden_characters", named(hidden))
    gap = max((longest_gap(text) for text in _shown_texts(subject)), default=0)
    if gap:
        found.raise_to("high", "long_gap", f"{gap:,}")
    return found


def _shown_texts(subject: ApprovalSubject) -> list[str]:
    """Every text the card shows of the item."""
    texts = [subject.command or "", subject.content or "", subject.diff or "", subject.message or "",
             *(e.old + "\n" + e.new for e in subject.edits or [])]
    if subject.kind == "tool":
        texts.append(tool_text(subject.input))
    return texts


def _assess_commit(subject: ApprovalSubject) -> Assessment:
    """A commit: medium; high when the repository's hooks run (programs the agent could have written) or it changes
    files that change an agent's permissions, a shell's start-up, keys or git hooks."""
    found = Assessment(level="medium")
    if subject.hooks:
        found.raise_to("high", "runs_hooks", ", ".join(subject.hooks[:5]))
    for file in subject.files or []:
        change = assess_file_change(file.path, subject.cwd)
        if change.level == "high":
            found.merge(change)
    return found


def assess(approves: ApprovalSubject | list[ApprovalSubject]) -> list[Assessment]:
    """Each item's assessment, in order."""
    return [assess_item(item) for item in items_of(approves)]


def combined(assessments: list[Assessment]) -> Assessment:
    """The approval's risk: the highest of its items', with every item's reasons, high ones first and the most
    destructive of them first; `codes` as stored (riskReasonCodes), each with its level. An approval whose items
    change a file and run the project's code that may read it (`edit package.json` + `npm test`, a module written +
    `python -m` it) is high: what runs is what the other item writes, which neither item's own risk shows."""
    total = Assessment(level="low")
    for level in reversed(RISK_LEVELS):
        for found in assessments:
            if found.level == level:
                total.merge(found)
    for index, found in enumerate(assessments):
        for other, runner in enumerate(assessments):
            if other != index and (match := found.read_by(runner)) is not None:
                written, run = match
                total.raise_to("high", "runs_changed", clip(f"{written.shown}; {run.part}", 60))
    total.sort()
    total.codes = total.stored_codes()
    return total


@dataclass(frozen=True)
class AssessedRequest:
    """An `interaction.requested` whose approval was judged before the writer (the writer's thread never parses)."""

    request: InteractionRequested
    assessments: list[Assessment]


async def prepare(parsed: InteractionRequested) -> InteractionRequested | AssessedRequest:
    """Judge an approval's items in a worker thread: parsing a 64 KiB command takes tens of milliseconds, which the
    writer (every agent's and person's commits) and the event loop must not wait for. Items that fail their checks
    are left for the writer to refuse with the same message."""
    approves = parsed.interaction.approves
    if approves is None:
        return parsed
    try:
        items = approved_items(approves)
    except LapError:
        return parsed
    return AssessedRequest(parsed, await asyncio.to_thread(lambda: [assess_item(item) for item in items]))


def stored_items(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The items of a stored approval's `approves`: a list since 2026-12, one object in events stored before."""
    approves = spec.get("approves")
    if isinstance(approves, dict):
        return [approves]
    return [item for item in approves if isinstance(item, dict)] if isinstance(approves, list) else []
