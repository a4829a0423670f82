"""Questions to the person: ask_* arguments become an interaction with a deterministic id; outcomes become results."""

# The interaction id is a digest of the agent, the session's task, the tool and its arguments (request_id
# included), so the same question re-issued — after an MCP client's timeout, or by a restarted server — maps to
# the same interaction: the SDK's envelope id `ask-<interaction id>` makes the re-send a harmless duplicate.

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from hub.sdk import HubError, Outcome, approvals

QUESTION_TOOLS = {"ask_approval": "approval", "ask_choice": "choice", "ask_input": "input", "request_review": "review"}


def interaction_id(agent_id: str, task_id: str | None, tool: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps({"agent": agent_id, "task": task_id, "tool": tool, "arguments": arguments},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "int_mcp_" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


def _options(raw: list[Any]) -> list[dict[str, Any]]:
    options = []
    for index, item in enumerate(raw):
        option = {"label": item} if isinstance(item, str) else {k: v for k, v in item.items()
                                                                  if k in ("label", "description", "recommended")}
        options.append({"id": f"o{index + 1}", **option})
    return options


def build_interaction(tool: str, arguments: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """The interaction request (without its id) for a question tool's validated arguments."""
    kind = QUESTION_TOOLS[tool]
    spec: dict[str, Any] = {"type": kind, "title": arguments["title"]}
    if arguments.get("description"):
        spec["description"] = arguments["description"]
    if kind == "approval":
        spec["risk"] = arguments.get("risk", "medium")
        for key in ("impact", "details"):
            if arguments.get(key):
                spec[key] = arguments[key]
        # Shown whole, each item's risk judged (docs/protocol.md#what-an-approval-approves).
        items: list[dict[str, Any]] = list(arguments.get("approves") or [])
        if arguments.get("command"):
            items.insert(0, approvals.command_approval(arguments["command"], arguments.get("cwd") or None))
        fitted = approvals.fits(items) if items else None
        if items:
            if not isinstance(fitted, list):
                # Never cut: what cannot be shown whole is not asked on a card.
                raise HubError("invalid_payload", f"What this approval approves is {approvals.approves_bytes(items):,} "
                               f"bytes in {len(items)} item(s): more than a card shows whole "
                               f"({approvals.CARD_BUDGET_BYTES:,} bytes, at most {approvals.MAX_ITEMS} items).",
                               "Ask the person where you run (your own terminal or chat), or split it into "
                               "approvals that each fit.")
            spec["approves"] = fitted if len(fitted) > 1 or arguments.get("approves") else fitted[0]
    elif kind == "choice":
        spec["options"] = _options(arguments["options"])
        spec["multiple"] = bool(arguments.get("multiple", False))
    elif kind == "input":
        spec["format"] = arguments.get("format", "text")
        for key, target in (("pattern", "pattern"), ("placeholder", "placeholder"), ("max_length", "maxLength")):
            if arguments.get(key) is not None:
                spec[target] = arguments[key]
    elif kind == "review":
        spec["content"] = arguments["content"]
        if arguments.get("attachments"):
            spec["attachments"] = arguments["attachments"]
    if arguments.get("expires_in_s"):
        moment = (now or datetime.now(UTC)) + timedelta(seconds=int(arguments["expires_in_s"]))
        spec["expiresAt"] = moment.isoformat(timespec="seconds").replace("+00:00", "Z")
    return spec


def outcome_to_dict(outcome: Outcome) -> dict[str, Any]:
    return {"outcome": outcome.outcome, "response": outcome.response, "respondedBy": outcome.responded_by}


def outcome_from_dict(interaction: str, data: dict[str, Any]) -> Outcome:
    return Outcome(interaction, data["outcome"], data.get("response") or {}, data.get("respondedBy"))


def describe(spec: dict[str, Any], outcome: Outcome, task_id: str | None,
             repeated: bool = False) -> tuple[str, dict[str, Any]]:
    """(a sentence for the model, the structured result) for how a question ended."""
    kind, response = spec["type"], outcome.response
    result: dict[str, Any] = {"outcome": outcome.outcome, "interactionId": outcome.interaction_id, "taskId": task_id,
                              "comment": outcome.comment, "respondedBy": outcome.responded_by, "repeated": repeated}
    if outcome.outcome == "expired":
        sentence = "The question expired without an answer."
    elif outcome.outcome == "cancelled":
        sentence = "The question was cancelled (the person cancelled the task): stop this work."
    elif response.get("declined"):
        sentence = "The person dismissed the question without answering."
    elif kind == "approval":
        result["approved"] = outcome.outcome == "answered" and bool(response.get("approved", True))
        sentence = "The person approved." if result["approved"] else "The person rejected it: do not go ahead."
    elif kind == "choice":
        labels = {o["id"]: o["label"] for o in spec.get("options", [])}
        result["selectedIds"] = outcome.option_ids
        result["selected"] = [labels.get(i, i) for i in outcome.option_ids]
        sentence = "The person chose: " + "; ".join(result["selected"]) + "."
    elif kind == "input":
        result["text"] = outcome.text
        sentence = f"The person answered: {outcome.text}"
    else:
        result["decision"] = outcome.decision
        result["approved"] = outcome.decision == "approve"
        sentence = ("The person approved the review." if result["approved"]
                    else "The person requested changes.")
    if outcome.comment:
        sentence += f" Their comment: {outcome.comment}"
    if repeated:
        sentence += (" (This question had been asked before in this task; this is its answer. To ask it again, "
                     "call with a new request_id.)")
    if kind == "approval" and "approved" not in result:
        result["approved"] = False
    return sentence, result
