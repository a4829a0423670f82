"""ACP permission requests as approval cards: the agent's options with its labels, the chosen one sent back."""

from __future__ import annotations

import re
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
               "reject_once": "Refuse this time.",
               "reject_always": "Refuse, and the agent stops asking for this kind of action."}
# An "always" or "for this session" option whose width LineUp cannot state (the agent's own rule: claude-code-acp's
# "Always Allow" adds Claude Code's suggestions, Gemini's "Allow for this session" every edit or the command's
# program): left out where the agent offers "allow once"; where it is the agent's only yes, kept and said so.
UNSTATED = ("The agent offers no way to allow only this once: choosing this also lets it do more without asking, by "
            "a rule of its own ({how}). LineUp cannot tell what that rule covers, so it may allow more than what is "
            "shown here.")
UNSTATED_HOW = {"allow_session": "for the rest of this session", "allow_always": "possibly for good"}
# A command the hub can read is judged by the hub (hub/domain/command_risk.py); one it cannot is high.
RISK_BY_KIND = {"read": "low", "search": "low", "think": "low", "fetch": "low", "delete": "high", "execute": "high"}
# Codex (codex-acp): "Yes, and don't ask again for commands that start with `<prefix>`".
CODEX_PREFIX = re.compile(r"don't ask again for commands that start with `(?P<prefix>.*)`\s*$", re.DOTALL)
MAX_LABEL = 200          # an option's label on the card
MAX_DESCRIPTION = 2000   # and its description


def _meaning(option: PermissionOption) -> str:
    """What an option does, for its card id and hint: ACP's kind, except an allow_always that the agent names as
    for this session only (Hermes's "Allow for session" has kind allow_always beside a real "Allow always"):
    "for this session" is not "always"."""
    if option.kind == "allow_always" and "session" in f"{option.option_id} {option.name}".lower():
        return "allow_session"
    return option.kind


def cancelled() -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _hermes(options: list[PermissionOption], raw: dict[str, Any]) -> bool:
    """Hermes's dangerous-command approval (its acp_adapter): options `allow_session`, `allow_always`,
    `deny_always` beside a raw input of `command` and `description` (the kinds of danger it found)."""
    return "allow_session" in {o.option_id for o in options} and set(raw) == {"command", "description"}


def _prefix(option: PermissionOption, raw: dict[str, Any]) -> str | None:
    """The command prefix Codex would stop asking for, whole, or None when the option names none (or only cut)."""
    amendment = raw.get("proposed_execpolicy_amendment")
    if isinstance(amendment, dict):
        amendment = amendment.get("command")
    if isinstance(amendment, list) and amendment and all(isinstance(p, str) for p in amendment):
        return " ".join(amendment)
    match = CODEX_PREFIX.search(option.name)
    if match is None or "…" in match["prefix"] or "..." in match["prefix"]:
        return None
    return match["prefix"]


def describe_option(option: PermissionOption, meaning: str, options: list[PermissionOption],
                    raw: dict[str, Any]) -> str | None:
    """What choosing the option makes the agent remember, as exactly as LineUp knows it; None when the option is not
    offered: what it remembers cannot be shown whole, or it is an "always" / "for this session" option whose width
    LineUp cannot state beside an "allow once" ("Allow always" is never wider than what the card shows)."""
    prefix = _prefix(option, raw) if meaning == "allow_always" else None
    if prefix is not None:
        text = (f"Codex runs it, then, from now on and in every session, runs without asking every command that "
                f"starts with `{prefix}` (whatever follows it): it adds that prefix to its execution policy.")
        return text if len(text) <= MAX_DESCRIPTION else None
    if meaning == "allow_always" and CODEX_PREFIX.search(option.name):
        return None  # a prefix it only shows cut: what would be remembered cannot be shown whole
    if _hermes(options, raw):
        kinds = "; ".join(f"“{k.strip()}”" for k in str(raw.get("description") or "").split(";") if k.strip()) \
            or "the same kind of danger"
        hint = {"allow_session": f"Hermes runs it and, until this session ends, runs without asking every command "
                                 f"it flags as {kinds}; a new session asks again.",
                "allow_always": f"Hermes runs it and adds {kinds} to command_allowlist in its config.yaml: from now "
                                f"on every command it flags as {kinds} runs without asking, in every session.",
                "reject_always": "Hermes does not run it. It remembers no refusal: the next such command asks "
                                 "again."}.get(meaning)
        if hint is not None:
            return clip(hint, MAX_DESCRIPTION)
    if meaning in UNSTATED_HOW:
        if any(o.kind == "allow_once" for o in options):
            return None
        return UNSTATED.format(how=UNSTATED_HOW[meaning])
    return OPTION_HINT.get(meaning, "")


def approval_card(title: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
                  cwd: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The approval card for a permission request about `title`, and its option ids → the agent's option ids.

    Everything it approves travels whole in `approves`, one item per file it changes (the hub judges each item's
    risk); one too large for a card is not offered: TooLarge, and the request is answered cancelled, saying why."""
    raw = tool_call.raw_input if isinstance(tool_call.raw_input, dict) else {}
    choices: dict[str, str] = {}  # card option id → ACP option id
    card_options = []
    for option in options[:20]:
        kind = _meaning(option)
        description = describe_option(option, kind, options, raw)
        if description is None:
            continue
        option_id = kind if kind not in choices else f"{kind}_{len(choices) + 1}"
        choices[option_id] = option.option_id
        label = option.name.strip() or option.kind
        if len(label) > MAX_LABEL:  # the whole of what it remembers is in the description
            label = label[:MAX_LABEL - 1] + "…"
        card_options.append({"id": option_id, "label": label, "style": OPTION_STYLE.get(option.kind, "secondary"),
                             "description": description})
    if len(card_options) < 2:  # a card needs two options: the other one is "not now"
        card_options.append({"id": "cancel", "label": "Cancel", "style": "danger",
                             "description": "Answer nothing; the agent is told the request was cancelled."})
    items = items_of_call(tool_call, title, cwd)
    if len(title) > 120 or "\n" in title.strip():
        size = approvals.size_of(items) if items else len(title)
        title = f"a {size:,}-character command" if items and items[0]["kind"] == "command" else clip(title, 120)
    command = bool(items) and all(item["kind"] == "command" for item in items)
    interaction: dict[str, Any] = {
        "type": "approval", "title": clip(f"Allow {title}?", 500),
        "description": _describe_tool_call(tool_call, bool(items)), "options": card_options,
        "risk": "medium" if command else RISK_BY_KIND.get(tool_call.kind or "", "medium"),
        # ACP's answer carries only the chosen option: a note the person adds goes to the agent as the session's
        # next prompt (hub/sessions, the ACP runtime).
        "notes": "next_message"}
    details = _tool_details(tool_call)
    if details:
        interaction["details"] = details
    if items:
        fitted = approvals.fits(items)
        if fitted is None:
            raise TooLarge(approvals.size_of(items))
        interaction["approves"] = fitted
    question = approvals.fit_question(interaction)
    if question is None:
        raise TooLarge(approvals.size_of(items) if items else len(str(interaction)))
    return question, choices


class TooLarge(Exception):
    """What a permission request approves is too large to show whole on a card."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size:,} characters")
        self.size = size


def items_of_call(tool_call: ToolCallUpdate, title: str, cwd: str | None) -> list[dict[str, Any]]:
    """What approving the tool call approves: every file it changes (one item per ACP diff, each the file's whole
    new content, diffed against the file where it may be read), else the command in its raw input, else the raw
    input whole as a tool's input; nothing when the agent sent neither."""
    edits = [item for item in tool_call.content or [] if isinstance(item, FileEditToolCallContent)]
    if edits:
        return [approvals.write_approval(edit.path, edit.new_text, cwd) for edit in edits]
    raw = tool_call.raw_input if isinstance(tool_call.raw_input, dict) else {}
    file_change = _file_change(raw, cwd)
    if file_change is not None:
        return [file_change]
    command = raw.get("command") or raw.get("cmd")
    workdir = raw.get("cwd") or raw.get("workdir") or cwd
    where = str(workdir) if workdir else None
    if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
        return [approvals.argv_approval(command, where)]  # codex-acp: argv, often ["bash", "-lc", "…"]
    if isinstance(command, str) and command.strip():
        return [approvals.command_approval(command, where)]
    if tool_call.raw_input is not None:
        return [approvals.tool_approval(clip(title.strip() or tool_call.kind or "tool", 500), tool_call.raw_input,
                                        cwd)]
    return []


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


def _describe_tool_call(tool_call: ToolCallUpdate, items_shown: bool) -> str:
    parts: list[str] = []
    for item in tool_call.content or []:
        if isinstance(item, ContentToolCallContent):
            parts.append(content_text(item.content))
        elif isinstance(item, FileEditToolCallContent) and not items_shown:
            parts.append(f"Edit {item.path}")
    for location in tool_call.locations or []:
        parts.append(f"File: {location.path}" + (f":{location.line}" if location.line is not None else ""))
    return clip("\n\n".join(p for p in parts if p), 8000)


KIND_WORDS = {"execute": "Runs a command", "edit": "Changes files", "delete": "Deletes files", "move": "Moves files",
              "read": "Reads files", "search": "Searches files", "fetch": "Fetches from the web", "think": "Thinks"}


def _tool_details(tool_call: ToolCallUpdate) -> dict[str, Any]:
    """The kind of action, in words; its input is on the card face, whole, in `approves`. The tool call's id (the
    agent's own, e.g. `toolu_…`) is not shown: it says nothing to the person."""
    words = KIND_WORDS.get(tool_call.kind or "")
    return {"kind": words} if words else {}
