"""Frames from the hub, checked against the hub's own schema before the SDK reads a field of them.

A hostile or broken hub (or a proxy that mangles frames) gets its frame ignored and logged, never a crash of the
agent: `parse` returns None for anything that is not JSON, not an object, or breaks `frames.hubToAgent` of
`lineup schema` (hub/protocol/schema.py, the same document the TypeScript SDK checks against), and for a `sequence`
beyond what both SDKs count exactly (2**53 - 1), which would otherwise make every later event look already handled.
The welcome's `openTasks` entries, which the schema leaves open, are read field by field (`read_open_task`).
"""

from __future__ import annotations

import json
import logging
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

log = logging.getLogger("lineup.sdk")

MAX_SEQUENCE = 2**53 - 1  # JavaScript's safe integers: the log never gets near it, a forged frame might


@cache
def _validator() -> Draft202012Validator:
    """Made on the first frame (the schema takes ~20 ms to build), then shared by every client of the process."""
    from hub.protocol.schema import protocol_schema  # the hub's own types: the SDK checks what the hub sends

    document = protocol_schema()
    return Draft202012Validator({"$defs": document["$defs"], **document["frames"]["hubToAgent"]})


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # json.loads takes NaN and Infinity; the hub never sends them


def problem(value: Any) -> str | None:
    """The first way `value` breaks the hub's frames (`$.payload.taskId: 42 is not of type 'string'`), or None."""
    error = best_match(_validator().iter_errors(value))
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        return f"${where}: {error.message}"
    sequence = value.get("sequence")
    if sequence is not None and not 0 <= sequence <= MAX_SEQUENCE:
        return f"$.sequence: {sequence} is beyond {MAX_SEQUENCE}"
    return None


def parse(raw: str | bytes) -> tuple[dict[str, Any] | None, str]:
    """The frame as a checked dict and "", or None and why it was refused."""
    if isinstance(raw, bytes):
        return None, "a binary frame (the protocol is text frames only)"
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested deeper than Python recurses
        return None, "it is not JSON"
    why = problem(value)
    if why is not None:
        kind = value.get("type") if isinstance(value, dict) else None
        return None, f"{kind}: {why}" if isinstance(kind, str) else why
    if isinstance(value.get("sequence"), float):  # 5.0 is an integer to JSON Schema; the SDK counts in ints
        value["sequence"] = int(value["sequence"])
    return value, ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read_open_task(raw: Any) -> dict[str, Any] | None:
    """An entry of the welcome's openTasks with only the fields the SDK reads, each of its type, or None."""
    if not isinstance(raw, dict) or not isinstance(raw.get("taskId"), str) or not raw["taskId"]:
        return None
    children = [{"taskId": c["taskId"], "status": c["status"]} for c in _list(raw.get("children"))
                if isinstance(c, dict) and isinstance(c.get("taskId"), str) and isinstance(c.get("status"), str)]
    questions = []
    for q in _list(raw.get("interactions")):
        if not isinstance(q, dict) or not isinstance(q.get("interactionId"), str) or not isinstance(q.get("status"),
                                                                                                    str):
            continue
        by = q.get("respondedBy")
        questions.append({"interactionId": q["interactionId"], "status": q["status"],
                          "response": q["response"] if isinstance(q.get("response"), dict) else {},
                          "respondedBy": by if isinstance(by, dict) and isinstance(by.get("id"), str)
                          and isinstance(by.get("kind"), str) else None})
    progress = raw.get("progress")
    return {"taskId": raw["taskId"], "conversationId": _text(raw.get("conversationId")),
            "title": _text(raw.get("title")) or "", "description": _text(raw.get("description")) or "",
            "status": _text(raw.get("status")),
            "progress": int(progress) if isinstance(progress, int | float) and not isinstance(progress, bool)
            and 0 <= progress <= 100 else None,
            "summary": _text(raw.get("summary")), "cancelRequested": raw.get("cancelRequested") is True,
            "cancelReason": _text(raw.get("cancelReason")),
            "checkpoints": raw["checkpoints"] if isinstance(raw.get("checkpoints"), dict) else {},
            "children": children, "interactions": questions}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
