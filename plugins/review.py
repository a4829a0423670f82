"""The review tool: the person reviews content and approves or asks for changes; the result is the decision."""

from __future__ import annotations

from typing import Any

from hub import INTERACTION_FIELDS, declined, hookimpl, interaction_request


def to_interaction(action: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
    request = interaction_request("review", arguments["title"], arguments)
    request["content"] = arguments["content"]
    if arguments.get("attachments"):
        request["attachments"] = arguments["attachments"]
    return request


def to_result(request: dict[str, Any], outcome: str, response: dict[str, Any]) -> dict[str, Any]:
    dismissed = declined(response)
    if dismissed:
        return dismissed
    result: dict[str, Any] = {"message": response["decision"], "decision": response["decision"]}
    if response.get("comment"):
        result["comment"] = response["comment"]
    return result


@hookimpl
def register_tools() -> list[dict[str, Any]]:
    return [{
        "name": "review", "type": "action",
        "description": "Ask the person to review content: approve or request changes.",
        "inputSchema": {"type": "object", "properties": {
            "title": {"type": "string", "minLength": 1}, "content": {"type": "string", "minLength": 1},
            "attachments": {"type": "array", "items": {"type": "object"}}, **INTERACTION_FIELDS},
            "required": ["title", "content"]},
        "interaction": to_interaction, "result": to_result, "ui": "builtin:interaction",
    }]
