"""The LAP/0.1 envelope (docs/protocol.md#frames-and-answers) and the helpers that decode, check and build one."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec

from hub.protocol.errors import LapError

PROTOCOL_VERSION = "0.1"

# Ids are opaque strings chosen by the sender (UUIDs, ULIDs, ...); the bound keeps rows and indexes small.
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]


class Envelope(msgspec.Struct, omit_defaults=True):
    """One frame on /ws/app or /ws/agent, and one row of the event log."""

    id: Id
    type: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    version: str
    occurredAt: str
    payload: dict[str, Any]
    workspaceId: Id | None = None
    conversationId: Id | None = None
    taskId: Id | None = None
    sequence: int | None = None
    correlationId: Id | None = None


_decoder = msgspec.json.Decoder()
_envelope_decoder = msgspec.json.Decoder(Envelope)
encode = msgspec.json.Encoder().encode


def decode_envelope(frame: str | bytes) -> Envelope:
    """Parse one text frame; raise LapError invalid_json / invalid_envelope / unsupported_version."""
    try:
        env = _envelope_decoder.decode(frame)
    except RecursionError:  # msgspec raises it (not DecodeError) for JSON nested too deep; it must not kill the socket
        raise LapError("invalid_envelope", "The frame is nested too deeply.") from None
    except msgspec.DecodeError as exc:
        # Tell apart "not JSON at all" from "JSON of the wrong shape": the hints differ.
        try:
            _decoder.decode(frame)
        except msgspec.DecodeError:
            raise LapError("invalid_json", f"The frame is not valid JSON: {exc}") from None
        except RecursionError:
            raise LapError("invalid_envelope", "The frame is nested too deeply.") from None
        raise LapError("invalid_envelope", f"The envelope is malformed: {exc}") from None
    if env.version != PROTOCOL_VERSION:
        raise LapError("unsupported_version", f"Version {env.version!r} is not supported; this hub speaks 0.1.")
    if env.sequence is not None:
        raise LapError("invalid_envelope", "`sequence` is set by the hub; clients never send it.")
    return env


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds and a Z."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_id(prefix: str) -> str:
    """A sortable, unique id: prefix, 48-bit milliseconds, 80 random bits (ULID-like, hex)."""
    return f"{prefix}_{int(time.time() * 1000):012x}{os.urandom(10).hex()}"


def system_frame(type_: str, payload: dict[str, Any], *, workspace_id: str | None = None,
                 correlation_id: str | None = None) -> bytes:
    """A hub-originated control envelope (welcome, ack, error, pong, ...) encoded for the wire."""
    env = Envelope(id=new_id("sys"), type=type_, version=PROTOCOL_VERSION, occurredAt=now_iso(),
                   payload=payload, workspaceId=workspace_id, correlationId=correlation_id)
    return encode(env)
