"""Errors the SDK raises, each saying what happened and what to do next."""

from __future__ import annotations

from typing import Any, Self


class SdkError(Exception):
    """Base of every error raised by hub.sdk."""


# Refusals that stored nothing and that the SDK sends again by itself (docs/protocol.md "Errors"): a full disk, the
# hub's own failure, and `rate_limited` for sending too fast (details.limit "rate"; other limits are the person's).
RETRYABLE = ("storage_full", "internal", "rate_limited")


class HubError(SdkError):
    """The hub refused an envelope: `code` is one of the error codes of docs/protocol.md#errors; `details` is the
    structured part to branch on (docs/protocol.md "Errors"), e.g. `{"from": "running", "to": "running"}` for
    illegal_transition. `envelope_type` names what was refused (`artifact.created`), when it was an envelope."""

    def __init__(self, code: str, message: str, hint: str = "", details: dict[str, Any] | None = None,
                 envelope_type: str | None = None) -> None:
        super().__init__(f"{code}: {message}" + (f" ({hint})" if hint else ""))
        self.code = code
        self.message = message
        self.hint = hint
        self.details: dict[str, Any] = details or {}
        self.envelope_type = envelope_type

    @classmethod
    def from_payload(cls, error: dict[str, Any], envelope_type: str | None = None) -> Self:
        """From a `system.error` payload (or an HTTP error body's `error`)."""
        return cls(error["code"], error["message"], error.get("hint", ""), error.get("details") or {},
                   envelope_type)

    @property
    def retryable(self) -> bool:
        """Nothing was stored and sending the same envelope again may succeed: the SDK does so by itself."""
        return self.code in RETRYABLE and self.details.get("limit") in (None, "rate")


class AuthError(HubError):
    """The credential or pairing code was refused; retrying will not help. Pair again with a fresh code."""


class ReplacedError(SdkError):
    """Another copy of this agent connected with the same credential and took over (close code 4409): this
    client stops instead of reconnecting, so the two never both take the agent's tasks."""


class OutboxFull(SdkError):
    """Too many envelopes are waiting for the hub's ack (it is unreachable or slow); slow down or wait."""


class ToolCallError(SdkError):
    """A tool call was answered with an error (`code`: unknown_tool, invalid_arguments, instance_closed, ...)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
