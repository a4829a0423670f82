"""The confirm tool: an approval the person grants or refuses; the result says which."""

from __future__ import annotations

from typing import Any

from hub import INTERACTION_FIELDS, declined, hookimpl, interaction_request


def to_interaction(action: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
    request = interaction_request("approval", arguments["question"], arguments)
    request.setdefault("risk", "medium")
    return request


def to_result(request: dict[str, Any], outcome: str, response: dict[str, Any]) -> dict[str, Any]:
    if response.get("declined"):
        return declined(response) or {}
    approved = bool(response.get("approved"))
    result: dict[str, Any] = {"message": "approved" if approved else "rejected", "approved": approved}
    if response.get("comment"):
        result["comment"] = response["comment"]
    return result


@hookimpl
def register_tools() -> list[dict[str, Any]]:
    return [{
        "name": "confirm", "type": "action", "description": "Ask the person to approve or reject an action.",
        "inputSchema": {"type": "object", "properties": {
            "question": {"type": "string", "minLength": 1, "description": "What needs approval"},
            "impact": {"type": "string", "description": "What it changes"}, **INTERACTION_FIELDS},
            "required": ["question"]},
        "interaction": to_interaction, "result": to_result, "ui": "builtin:interaction",
    }]
