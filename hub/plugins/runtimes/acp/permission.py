"""ACP permission requests as approval cards: the agent's options with its labels, the chosen one sent back."""

from __future__ import annotations

import json
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

from hub.plugins.runtimes.acp.text import clip, content_text
from hub.sdk import Outcome

# ACP permission option kinds → how the approval card shows them.
OPTION_STYLE = {"allow_once": "primary", "allow_always": "secondary", "reject_once": "danger",
                "reject_always": "danger"}
OPTION_HINT = {"allow_once": "Allow this time; the agent asks again next time.",
               "allow_always": "Allow, and the agent stops asking for this kind of action.",
               "reject_once": "Refuse this time.",
               "reject_always": "Refuse, and the agent stops asking for this kind of action."}
RISK_BY_KIND = {"read": "low", "search": "low", "think": "low", "fetch": "low", "delete": "high", "execute": "high"}


def cancelled() -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def approval_card(title: str, tool_call: ToolCallUpdate,
                  options: list[PermissionOption]) -> tuple[dict[str, Any], dict[str, str]]:
    """The approval card for a permission request about `title`, and its option ids → the agent's option ids."""
    choices: dict[str, str] = {}  # card option id → ACP option id
    card_options = []
    for option in options[:20]:
        option_id = option.kind if option.kind not in choices else f"{option.kind}_{len(choices) + 1}"
        choices[option_id] = option.option_id
        card_options.append({"id": option_id, "label": clip(option.name.strip() or option.kind, 200),
                             "style": OPTION_STYLE.get(option.kind, "secondary"),
                             "description": OPTION_HINT.get(option.kind, "")})
    if len(card_options) < 2:  # a card needs two options: the other one is "not now"
        card_options.append({"id": "cancel", "label": "Cancel", "style": "danger",
                             "description": "Answer nothing; the agent is told the request was cancelled."})
    interaction = {"type": "approval", "title": clip(f"Allow {title}?", 500),
                   "description": _describe_tool_call(tool_call), "options": card_options,
                   "risk": RISK_BY_KIND.get(tool_call.kind or "", "medium"),
                   "details": _tool_details(tool_call)}
    return interaction, choices


def answer(choices: dict[str, str], outcome: Outcome) -> RequestPermissionResponse:
    """The chosen option goes back as `selected`; anything else as `cancelled`."""
    chosen = choices.get(outcome.option_id or "")
    if chosen is None:  # declined without an option, expired, cancelled, or "cancel"
        return cancelled()
    return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))


def _describe_tool_call(tool_call: ToolCallUpdate) -> str:
    parts: list[str] = []
    for item in tool_call.content or []:
        if isinstance(item, ContentToolCallContent):
            parts.append(content_text(item.content))
        elif isinstance(item, FileEditToolCallContent):
            parts.append(f"Edit {item.path}:\n{clip(item.new_text, 2000)}")
    for location in tool_call.locations or []:
        parts.append(f"File: {location.path}" + (f":{location.line}" if location.line is not None else ""))
    return clip("\n\n".join(p for p in parts if p), 8000)


def _tool_details(tool_call: ToolCallUpdate) -> dict[str, Any]:
    details: dict[str, Any] = {"toolCallId": tool_call.tool_call_id}
    if tool_call.kind:
        details["kind"] = tool_call.kind
    if tool_call.raw_input is not None:
        try:
            raw = json.dumps(tool_call.raw_input)
        except (TypeError, ValueError):
            details["input"] = clip(repr(tool_call.raw_input), 4000)
        else:
            details["input"] = tool_call.raw_input if len(raw) <= 4000 else clip(raw, 4000)
    return details

