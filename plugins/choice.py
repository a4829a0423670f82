"""The choice tool (docs/design.md#tools-that-ask-the-person): the person picks one option (or several); the result is
the label."""

from __future__ import annotations

from typing import Any

from hub import INTERACTION_FIELDS, declined, hookimpl, interaction_request


def to_interaction(action: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
    request = interaction_request("choice", arguments["question"], arguments)
    request["options"] = [{"id": f"o{i + 1}", "label": label} for i, label in enumerate(arguments["options"])]
    request["multiple"] = bool(arguments.get("multiple", False))
    return request


def to_result(request: dict[str, Any], outcome: str, response: dict[str, Any]) -> dict[str, Any]:
    dismissed = declined(response)
    if dismissed:
        return dismissed
    labels = {o["id"]: o["label"] for o in request["options"]}
    chosen = response.get("optionIds") or [response["optionId"]]
    return {"message": ", ".join(labels[c] for c in chosen), "selected": [labels[c] for c in chosen]}


@hookimpl
def register_tools() -> list[dict[str, Any]]:
    return [{
        "name": "choice", "type": "action", "description": "Ask the person to choose from a list of options.",
        "inputSchema": {"type": "object", "properties": {
            "question": {"type": "string", "minLength": 1, "description": "The question"},
            "options": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "maxItems": 20,
                        "description": "The options to choose from"},
            "multiple": {"type": "boolean", "description": "Allow choosing several"}, **INTERACTION_FIELDS},
            "required": ["question", "options"]},
        "interaction": to_interaction, "result": to_result, "ui": "builtin:interaction",
    }]
