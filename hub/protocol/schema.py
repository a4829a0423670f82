"""The published JSON Schema of LAP/0.1 (`lineup schema`), generated from the types the hub itself uses."""

from __future__ import annotations

from typing import Any

import msgspec

from hub import PROTOCOL_VERSION
from hub.protocol import payloads as P
from hub.protocol.envelope import Envelope


def protocol_schema() -> dict[str, Any]:
    """One document: the envelope, and the payload of every event type by direction."""
    directions = {
        "handshake": P.HANDSHAKES,
        "appToHub": P.APP_INBOUND,
        "agentToHub": P.AGENT_INBOUND,
        "hubToClient": P.SYSTEM_OUTBOUND,
    }
    kinds: list[Any] = [Envelope]
    for table in directions.values():
        kinds.extend(table.values())
    schemas, components = msgspec.json.schema_components(kinds, ref_template="#/$defs/{name}")
    events = {name: {type_: schemas[1 + [k for t in directions.values() for k in t.values()].index(kind)]
                     for type_, kind in table.items()}
              for name, table in directions.items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"LAP/{PROTOCOL_VERSION} — LineUp Agents protocol",
        "description": "Every frame is an Envelope; its payload is described per event type under `events`.",
        "envelope": schemas[0],
        "events": events,
        "$defs": components,
    }
