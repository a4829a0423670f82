"""What travels in a WuKongIM message payload: 唐僧叨叨 text, LineUp's custom types, and reason codes."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

# 唐僧叨叨 payloads are JSON objects with an integer `type` (TangSengDaoDaoServer common/content_type.go):
# 1 text ... 16 chat content, 97–99 errors and CMD, 1000–1020 and 2000 system notices. An unknown type shows
# as "unsupported message" in its clients, without harm. LineUp's own types sit far from those ranges.
TEXT = 1
LAP = 5201       # one LAP/0.1 envelope: {"type": 5201, "envelope": {...}} — both directions
CONTROL = 5202   # relay control for the LineUp app: {"type": 5202, "op": "resume", "lastSequence": N}
SEALED = 5203    # a 5201 or 5202 payload sealed for one device (hub/relay/seal.py): {"type": 5203, "kid", "n", ...}
CMD = 99
PERSON = 1       # WuKongIM channel type of a person-to-person channel

# WuKongIM reason codes (WuKongIMGoProto; wukong_easy_sdk.ReasonCode mirrors them).
REASONS = {
    0: "Unknown", 1: "Success", 2: "AuthFail", 3: "SubscriberNotExist", 4: "InBlacklist", 5: "ChannelNotExist",
    6: "UserNotOnNode", 7: "SenderOffline", 8: "MsgKeyError", 9: "PayloadDecodeError",
    10: "ForwardSendPacketError", 11: "NotAllowSend", 12: "ConnectKick", 13: "NotInWhitelist",
    14: "QueryTokenError", 15: "SystemError", 16: "ChannelIDError", 17: "NodeMatchError", 18: "NodeNotMatch",
    19: "Ban", 20: "NotSupportHeader", 21: "ClientKeyIsEmpty", 22: "RateLimit", 23: "NotSupportChannelType",
    24: "Disband", 25: "SendBan",
}
SUCCESS, AUTH_FAIL, IN_BLACKLIST, NOT_ALLOW_SEND, CONNECT_KICK, NOT_IN_WHITELIST = 1, 2, 4, 11, 12, 13
# A refusal that every message to that person would meet: delivery pauses instead of skipping messages.
BLOCKING = {IN_BLACKLIST, NOT_ALLOW_SEND, NOT_IN_WHITELIST, 19, 22, 25}


def reason_name(code: int) -> str:
    return f"{code} {REASONS.get(code, 'Unknown')}"


def text(content: str) -> dict[str, Any]:
    return {"type": TEXT, "content": content}


def lap(envelope: dict[str, Any]) -> dict[str, Any]:
    return {"type": LAP, "envelope": envelope}


def decode_payload(payload: Any) -> dict[str, Any] | None:
    """A message payload as a dict: an object as is, JSON text, or Base64 of JSON (each server line's forms)."""
    if isinstance(payload, dict):
        return payload
    if not isinstance(payload, str):
        return None
    for attempt in (lambda: payload, lambda: base64.b64decode(payload, validate=True)):
        try:
            value = json.loads(attempt())
        except (ValueError, binascii.Error, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def content_type(payload: dict[str, Any] | None) -> int | None:
    value = payload.get("type") if payload else None
    return value if type(value) is int else None
