"""Errors the SDK raises, each saying what happened and what to do next."""

from __future__ import annotations


class SdkError(Exception):
    """Base of every error raised by hub.sdk."""


class HubError(SdkError):
    """The hub refused an envelope: `code` is one of PROTOCOL.md's error codes."""

    def __init__(self, code: str, message: str, hint: str = "") -> None:
        super().__init__(f"{code}: {message}" + (f" ({hint})" if hint else ""))
        self.code = code
        self.message = message
        self.hint = hint


class AuthError(HubError):
    """The credential or pairing code was refused; retrying will not help. Pair again with a fresh code."""


class OutboxFull(SdkError):
    """Too many envelopes are waiting for the hub's ack (it is unreachable or slow); slow down or wait."""


class ToolCallError(SdkError):
    """A tool call was answered with an error (`code`: unknown_tool, invalid_arguments, instance_closed, ...)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
