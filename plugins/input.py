"""The input tool: the person types an answer, checked against a format; the result is the text."""

from __future__ import annotations

from typing import Any

from hub import INTERACTION_FIELDS, declined, hookimpl, interaction_request


def to_interaction(action: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
    request = interaction_request("input", arguments["question"], arguments)
    for key in ("format", "pattern", "placeholder", "maxLength"):
        if key in arguments:
            request[key] = arguments[key]
    return request


def to_result(request: dict[str, Any], outcome: str, response: dict[str, Any]) -> dict[str, Any]:
    return declined(response) or {"message": response["text"], "text": response["text"]}


@hookimpl
def register_tools() -> list[dict[str, Any]]:
    return [{
        "name": "input", "type": "action", "description": "Ask the person to type an answer.",
        "inputSchema": {"type": "object", "properties": {
            "question": {"type": "string", "minLength": 1},
            "format": {"type": "string", "enum": ["text", "url", "email", "number", "integer"]},
            "pattern": {"type": "string", "description": "A regular expression the whole answer must match"},
            "placeholder": {"type": "string"}, "maxLength": {"type": "integer", "minimum": 1}, **INTERACTION_FIELDS},
            "required": ["question"]},
        "interaction": to_interaction, "result": to_result, "ui": "builtin:interaction",
    }]
