"""The published LAP schema (`lineup schema`) as a check on every frame the test clients send and receive.

On by default: every integration test then checks the contract. `LINEUP_TEST_CONTRACT=0` (or setting
`ENABLED = False`) turns it off, e.g. to look at a hub behaviour without it. A frame from the hub must match its
direction's frame schema. A frame a test sends may break the schema on purpose (the security tests do); what
must not happen is the hub *accepting* one the schema refuses: the client then reports that.

Validation uses jsonschema-rs (about 10 µs a frame, less than decoding it) and falls back to the pure-Python
jsonschema (about 1.5 ms a frame) where it is not installed; the message for a failing frame comes from the same
document either way: which frame, where in it, and the rule's own description.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

from hub.protocol.schema import protocol_schema

ENABLED = os.environ.get("LINEUP_TEST_CONTRACT", "1") not in ("0", "false", "no", "")

# What a frame built to be broken can make a validator raise (a lone surrogate; nesting past the recursion limit).
UNCHECKABLE = (ValueError, RecursionError, UnicodeError)

ARROWS = {"handshake": "→ hub (hello)", "appToHub": "app → hub", "agentToHub": "agent → hub",
          "hubToApp": "hub → app", "hubToAgent": "hub → agent"}


@cache
def document() -> dict[str, Any]:
    return protocol_schema()


@cache
def _validator(direction: str) -> Any:
    doc = document()
    schema = {"$schema": doc["$schema"], "$defs": doc["$defs"], "frames": doc["frames"],
              "$ref": f"#/frames/{direction}"}
    try:
        import jsonschema_rs
    except ImportError:  # slower, same verdicts
        from jsonschema import Draft202012Validator
        return Draft202012Validator(schema)
    return jsonschema_rs.Draft202012Validator(schema)


def _rule_at(schema_path: list[Any]) -> str | None:
    """The description of the deepest rule on the failing schema path (the `_rule`s of hub/protocol/schema.py)."""
    node: Any = document()
    found = None
    for step in schema_path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and isinstance(node.get("description"), str) and "title" not in node:
            found = node["description"]
    return found


def problem(direction: str, frame: Any) -> str | None:
    """None when the frame matches its direction's schema; else a message naming the frame and the broken rule."""
    validator = _validator(direction)
    if validator.is_valid(frame):
        return None
    if hasattr(validator, "evolve"):  # the pure-Python jsonschema
        from jsonschema.exceptions import best_match
        error = best_match(validator.iter_errors(frame))
        where = "/".join(str(p) for p in error.absolute_path)
        schema_path = list(error.absolute_schema_path)
    else:
        # The most specific error: the deepest place in the frame (a payload field rather than the envelope).
        error = max(validator.iter_errors(frame), key=lambda e: len(e.instance_path))
        where = "/".join(str(p) for p in error.instance_path)
        schema_path = list(error.schema_path)
    rule = _rule_at(schema_path)
    described = f"{frame.get('type')!r} (id {frame.get('id')!r}" if isinstance(frame, dict) else repr(type(frame))
    if isinstance(frame, dict) and frame.get("sequence") is not None:
        described += f", sequence {frame['sequence']}"
    text = json.dumps(frame, ensure_ascii=False)
    return (f"LAP contract ({ARROWS.get(direction, direction)}): frame {described}) breaks `lineup schema` "
            f"at /{where}: {error.message}" + (f" — rule: {rule}" if rule else "")
            + f"\n  schema path: {'/'.join(str(p) for p in schema_path)}"
            + f"\n  frame: {text[:600] + ('…' if len(text) > 600 else '')}")
