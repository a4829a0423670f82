"""The published JSON Schema of LAP/0.1 (`lineup schema`), generated from the types the hub itself uses.

Payloads come from msgspec types: the inbound ones are what the hub validates with (hub/protocol/payloads.py),
the outbound ones extend them with the hub's fields (hub/protocol/stored.py). What a type cannot say alone
(a `failed` status needs `error`, a tool result carries exactly one of `result` and `error`) is added here as
JSON Schema `if`/`then` rules next to the hub's own check, and `frames` puts the envelope and the payloads
together: one schema per direction that a whole frame must match.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import msgspec

from hub.protocol import payloads as P
from hub.protocol import stored as S
from hub.protocol.cards import InteractionCard
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _rule(description: str, **schema: Any) -> dict[str, Any]:
    """One rule a payload type cannot express; `description` is what a failing frame is told."""
    return {"description": description, **schema}


# A `failed` task needs its reason (hub/domain/collaboration.py task_status_changed refuses it without).
FAILED_NEEDS_ERROR = _rule(
    "A `failed` status needs `error: {code, message}`.",
    **{"if": {"properties": {"status": {"const": "failed"}}, "required": ["status"]},
       "then": {"required": ["error"], "properties": {"error": {"type": "object"}}}})
# hub/tools/handlers.py tool_result; the hub's own results (append_result) hold to it as well.
ONE_OF_RESULT_OR_ERROR = _rule(
    "A tool.result carries exactly one of `result` and `error`.",
    oneOf=[{"required": ["result"], "properties": {"result": {"type": "object"}}},
           {"required": ["error"], "properties": {"error": {"type": "object"}}}])
# hub/domain/collaboration.py message_create.
CONTENT_OR_BLOCKS = _rule(
    "A message needs `content`, `blocks` or `attachments`.",
    anyOf=[{"required": ["content"], "properties": {"content": {"minLength": 1}}},
           {"required": ["blocks"], "properties": {"blocks": {"type": "array", "minItems": 1}}},
           {"required": ["attachments"], "properties": {"attachments": {"type": "array", "minItems": 1}}}])
# hub/domain/collaboration.py artifact_created.
URL_OR_FILE = _rule(
    "An artifact needs `url` or `fileId`.",
    anyOf=[{"required": ["url"]}, {"required": ["fileId"]}])
# hub/domain/collaboration.py task_child_created.
CHILD_NOT_WAITING = _rule(
    "A child task cannot start waiting_for_human; ask through an interaction.",
    properties={"status": {"not": {"const": "waiting_for_human"}}})
# hub/domain/collaboration.py resolve_interaction: an answer is stored checked; an expiry has none (a cancel
# may say why: {"cause": "agent_revoked"}, hub/domain/accounts.py).
RESPONSE_BY_OUTCOME = _rule(
    "An answered or declined interaction carries the response; an expired one null.",
    **{"if": {"properties": {"outcome": {"enum": ["answered", "declined"]}}},
       "then": {"properties": {"response": {"type": "object"}}},
       "else": {"if": {"properties": {"outcome": {"const": "expired"}}},
                "then": {"properties": {"response": {"type": "null"}}}}})

RULES: dict[type[P.Payload], list[dict[str, Any]]] = {
    P.TaskStatusChanged: [FAILED_NEEDS_ERROR],
    S.StoredTaskStatusChanged: [FAILED_NEEDS_ERROR],
    P.ToolResult: [ONE_OF_RESULT_OR_ERROR],
    S.StoredToolResult: [ONE_OF_RESULT_OR_ERROR],
    P.MessageCreate: [CONTENT_OR_BLOCKS],
    P.ArtifactCreated: [URL_OR_FILE],
    S.MessageCreated: [CONTENT_OR_BLOCKS],
    P.TaskChildCreated: [CHILD_NOT_WAITING],
    S.StoredTaskChildCreated: [CHILD_NOT_WAITING],
    S.InteractionResolved: [RESPONSE_BY_OUTCOME],
}


# What the app's HTTP reads answer, described once where the hub makes it (`reads` in the schema).
READS: dict[str, type[msgspec.Struct]] = {"interaction": InteractionCard}


def directions() -> dict[str, dict[str, type[P.Payload]]]:
    """Every event type by who sends it to whom, with its payload type."""
    return {
        "handshake": P.HANDSHAKES,
        "appToHub": {**P.CLIENT_SYSTEM, **P.APP_INBOUND},
        "agentToHub": {**P.CLIENT_SYSTEM, **P.AGENT_INBOUND},
        "hubToClient": P.SYSTEM_OUTBOUND,
        "hubToApp": {**S.STORED, **S.LIVE_TO_APPS},
        "hubToAgent": {**S.AGENT_RECEIVES, **S.LIVE_TO_AGENTS},
    }


def _frame(events: dict[str, dict[str, Any]], stored: set[str], *, inbound: bool, hello: bool,
           refused: Collection[str] = ()) -> dict[str, Any]:
    """A whole frame of one direction: the envelope, `type` dispatching to its payload's schema; `refused`: types
    the hub refuses from this side (the other side's, the hellos again)."""
    dispatch = []
    for type_, payload in events.items():
        then: dict[str, Any] = {"properties": {"payload": payload}}
        if type_ in stored:
            then["required"] = ["sequence"]  # a stored event always says where it is in the log
        dispatch.append({"if": {"properties": {"type": {"const": type_}}}, "then": then})
    frame: dict[str, Any] = {"$ref": "#/$defs/Envelope", "allOf": dispatch}
    if inbound:
        # Clients never set `sequence`; an unknown type is acknowledged with a warning, not refused.
        frame["not"] = _rule("`sequence` is set by the hub; clients never send it.", required=["sequence"])
    if not inbound or hello:
        # The hub sends nothing undocumented; the handshake is one of the hellos (anything else first is refused).
        frame["properties"] = {"type": {"enum": sorted(events)}}
    if not hello:
        # After the hello every frame names its workspace, except the hub's refusal of a hello itself.
        needs_workspace = {"required": ["workspaceId"]}
        frame["allOf"] = [needs_workspace if inbound else {
            "if": {"properties": {"type": {"not": {"const": "system.error"}}}}, "then": needs_workspace,
        }, *dispatch]
    if refused:
        frame["allOf"].append(_rule("The hub refuses these types from this side (`forbidden`, or the hello again).",
                                    properties={"type": {"not": {"enum": sorted(refused)}}}))
    return frame


def protocol_schema() -> dict[str, Any]:
    """One document: the envelope, the payload of every event type by direction, and each direction's frames."""
    tables = directions()
    kinds: list[Any] = [Envelope, *READS.values()]
    order: list[tuple[str, str]] = []
    for name, table in tables.items():
        for type_, kind in table.items():
            kinds.append(kind)
            order.append((name, type_))
    schemas, components = msgspec.json.schema_components(kinds, ref_template="#/$defs/{name}")
    for kind, rules in RULES.items():
        components[kind.__name__] = {**components[kind.__name__], "allOf": rules}
    envelope = components["Envelope"]
    envelope["properties"]["version"] = {"const": PROTOCOL_VERSION, "description": "Fixed: the protocol version."}
    events: dict[str, dict[str, Any]] = {name: {} for name in tables}
    for (name, type_), schema in zip(order, schemas[1 + len(READS):], strict=True):
        events[name][type_] = schema
    system = events["hubToClient"]
    stored = set(S.STORED) | set(S.AGENT_RECEIVES)
    frames = {
        "handshake": _frame(events["handshake"], set(), inbound=True, hello=True),
        "appToHub": _frame(events["appToHub"], set(), inbound=True, hello=False,
                           refused=(set(events["agentToHub"]) | set(events["handshake"])) - set(events["appToHub"])),
        "agentToHub": _frame(events["agentToHub"], set(), inbound=True, hello=False,
                             refused=(set(events["appToHub"]) | set(events["handshake"])) - set(events["agentToHub"])),
        "hubToApp": _frame({**system, **events["hubToApp"]}, stored, inbound=False, hello=False),
        "hubToAgent": _frame({**system, **events["hubToAgent"]}, stored, inbound=False, hello=False),
    }
    return {
        "$schema": DRAFT,
        "title": f"LAP/{PROTOCOL_VERSION} — LineUp Agents protocol",
        "description": "Every frame is an Envelope; its payload is described per event type under `events`, "
                       "and a whole frame per direction under `frames` (this document validates any of them). "
                       "`reads` describes what the app's HTTP reads answer (an interaction card).",
        "anyOf": [{"$ref": f"#/frames/{name}"} for name in frames],
        "envelope": schemas[0],
        "events": events,
        "reads": dict(zip(READS, schemas[1:1 + len(READS)], strict=True)),
        "frames": frames,
        "$defs": components,
    }
