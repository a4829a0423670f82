"""ACP permission requests as approval cards: the agent's options with its labels, the chosen one sent back."""

from __future__ import annotations

import json
import shlex
from typing import Any

from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from hub.acp.text import clip, content_text
from hub.sdk import Outcome, approvals

# ACP permission option kinds → how the approval card shows them.
OPTION_STYLE = {"allow_once": "primary", "allow_always": "secondary", "reject_once": "danger",
                "reject_always": "danger"}
OPTION_HINT = {"allow_once": "Allow this time; the agent asks again next time.",
               "allow_session": "Allow for the rest of this session; a new session asks again.",
               "allow_always": "Allow, and the agent stops asking for this kind of action.",
               "reject_once": "Refuse this time.",
               "reject_always": "Refuse, and the agent stops asking for this kind of action."}
# A command the hub can read is judged by the hub (hub/domain/command_risk.py); one it cannot is high.
RISK_BY_KIND = {"read": "low", "search": "low", "think": "low", "fetch": "low", "delete": "high", "execute": "high"}


def _meaning(option: PermissionOption) -> str:
    """What an option does, for its card id and hint: ACP's kind, except an allow_always that the agent names as
    for this session only (Hermes's "Allow for session" has kind allow_always beside a real "Allow always"):
    "for this session" is not "always"."""
    if option.kind == "allow_always" and "session" in f"{option.option_id} {option.name}".lower():
        return "allow_session"
    return option.kind


def cancelled() -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def approval_card(title: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
                  cwd: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The approval card for a permission request about `title`, and its option ids → the agent's option ids.

    The command or file change it approves travels whole in `approves` (the hub judges its risk from it); one
    too large for a card is not offered: TooLarge, and the request is answered cancelled, saying why."""
    choices: dict[str, str] = {}  # card option id → ACP option id
    card_options = []
    for option in options[:20]:
        kind = _meaning(option)
        option_id = kind if kind not in choices else f"{kind}_{len(choices) + 1}"
        choices[option_id] = option.option_id
        card_options.append({"id": option_id, "label": clip(option.name.strip() or option.kind, 200),
                             "style": OPTION_STYLE.get(option.kind, "secondary"),
                             "description": OPTION_HINT.get(kind, "")})
    if len(card_options) < 2:  # a card needs two options: the other one is "not now"
        card_options.append({"id": "cancel", "label": "Cancel", "style": "danger",
                             "description": "Answer nothing; the agent is told the request was cancelled."})
    subject = subject_of(tool_call, cwd)
    if len(title) > 120 or "\n" in title.strip():
        size = approvals.size_of(subject) if subject is not None else len(title)
        title = f"a {size:,}-character command" if subject and subject["kind"] == "command" else clip(title, 120)
    interaction: dict[str, Any] = {
        "type": "approval", "title": clip(f"Allow {title}?", 500),
        "description": _describe_tool_call(tool_call, subject is not None), "options": card_options,
        "risk": "medium" if subject is not None and subject["kind"] == "command"
        else RISK_BY_KIND.get(tool_call.kind or "", "medium"), "details": _tool_details(tool_call, subject)}
    if subject is not None:
        fitted = approvals.fits(subject)
        if fitted is None:
            raise TooLarge(approvals.size_of(subject))
        interaction["approves"] = fitted
    return interaction, choices


class TooLarge(Exception):
    """What a permission request approves is too large to show whole on a card."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size:,} characters")
        self.size = size


def subject_of(tool_call: ToolCallUpdate, cwd: str | None) -> dict[str, Any] | None:
    """What approving the tool call approves: the command in its raw input, or its file edits (ACP diff content)."""
    edits = [item for item in tool_call.content or [] if isinstance(item, FileEditToolCallContent)]
    if edits:
        first = edits[0]
        if len(edits) == 1 and not first.old_text:
            return approvals.write_approval(first.path, first.new_text, cwd)
        return approvals.edit_approval(first.path, [{"old": e.old_text or "", "new": e.new_text} for e in edits
                                                    if e.path == first.path], cwd)
    raw = tool_call.raw_input if isinstance(tool_call.raw_input, dict) else {}
    file_change = _file_change(raw, cwd)
    if file_change is not None:
        return file_change
    command = raw.get("command") or raw.get("cmd")
    if isinstance(command, list):  # codex-acp: argv, often ["bash", "-lc", "…"]
        command = shlex.join(str(part) for part in command)
    if isinstance(command, str) and command.strip():
        workdir = raw.get("cwd") or raw.get("workdir") or cwd
        return approvals.command_approval(command, str(workdir) if workdir else None)
    return None


def _file_change(raw: dict[str, Any], cwd: str | None) -> dict[str, Any] | None:
    """A file change told only in the tool's raw input, as claude-code-acp 0.16 asks for its Write (`file_path`,
    `content`), Edit (`old_string`, `new_string`, `replace_all`) and MultiEdit (`edits`) tools: the card still shows
    the change, as the diff it makes to the file."""
    path = raw.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    if isinstance(raw.get("content"), str):
        return approvals.write_approval(path, raw["content"], cwd)
    if isinstance(raw.get("old_string"), str) and isinstance(raw.get("new_string"), str):
        return approvals.edit_approval(path, [{"old": raw["old_string"], "new": raw["new_string"],
                                               "replaceAll": bool(raw.get("replace_all"))}], cwd)
    edits = raw.get("edits")
    if isinstance(edits, list) and edits and all(isinstance(e, dict) and isinstance(e.get("old_string"), str)
                                                  and isinstance(e.get("new_string"), str) for e in edits):
        return approvals.edit_approval(path, [{"old": e["old_string"], "new": e["new_string"],
                                               "replaceAll": bool(e.get("replace_all"))} for e in edits], cwd)
    return None


def answer(choices: dict[str, str], outcome: Outcome) -> RequestPermissionResponse:
    """The chosen option goes back as `selected`; anything else as `cancelled`."""
    chosen = choices.get(outcome.option_id or "")
    if chosen is None:  # declined without an option, expired, cancelled, or "cancel"
        return cancelled()
    return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))


def _describe_tool_call(tool_call: ToolCallUpdate, subject_shown: bool) -> str:
    parts: list[str] = []
    for item in tool_call.content or []:
        if isinstance(item, ContentToolCallContent):
            parts.append(content_text(item.content))
        elif isinstance(item, FileEditToolCallContent) and not subject_shown:
            parts.append(f"Edit {item.path}")
    for location in tool_call.locations or []:
        parts.append(f"File: {location.path}" + (f":{location.line}" if location.line is not None else ""))
    return clip("\n\n".join(p for p in parts if p), 8000)


def _tool_details(tool_call: ToolCallUpdate, subject: dict[str, Any] | None) -> dict[str, Any]:
    details: dict[str, Any] = {"toolCallId": tool_call.tool_call_id}
    if tool_call.kind:
        details["kind"] = tool_call.kind
    if tool_call.raw_input is not None and subject is None:  # else the card shows what it approves, whole
        try:
            raw = json.dumps(tool_call.raw_input)
        except (TypeError, ValueError):
            details["input"] = clip(repr(tool_call.raw_input), 4000)
        else:
            details["input"] = tool_call.raw_input if len(raw) <= 4000 else clip(raw, 4000)
    return details

