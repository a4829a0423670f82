"""Helpers for tools that ask the person (choice, confirm, input, review): the call becomes an interaction
(so it reaches the inbox, blocks the task and notifies), and the answer becomes the tool's result."""

from __future__ import annotations

from typing import Any

from hub.protocol.vocabulary import RISK_LEVELS

COMMON = {
    "description": {"type": "string", "description": "Why the agent needs this, and what happens next"},
    "risk": {"type": "string", "enum": list(RISK_LEVELS)},
    "expiresAt": {"type": "string", "description": "ISO 8601 time after which the question expires"},
}


def base_request(kind: str, title: str, arguments: dict[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = {"type": kind, "title": title}
    for key in ("description", "risk", "expiresAt", "impact"):
        if arguments.get(key):
            request[key] = arguments[key]
    return request


def declined(response: dict[str, Any]) -> dict[str, Any] | None:
    """The person dismissed the question instead of answering it."""
    if response.get("declined"):
        return {"message": "declined", "declined": True, **({"comment": response["comment"]}
                                                           if response.get("comment") else {})}
    return None
