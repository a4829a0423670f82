"""What the uplink needs from a WuKongIM connection, whichever server line it speaks."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Inbound:
    """One message the server pushed (`recv`) or the HTTP API returned (`/channel/messagesync`)."""

    message_id: str
    message_seq: int
    from_uid: str
    channel_id: str
    channel_type: int
    payload: dict[str, Any] | None
    client_msg_no: str = ""
    timestamp: int = 0


@dataclass(frozen=True)
class SendAck:
    message_id: str
    message_seq: int


class TransportError(Exception):
    """A connection or request failed. `code` is the server's reason code (>= 0) or a local one (< 0)."""

    def __init__(self, code: int, message: str, *, kind: str) -> None:
        super().__init__(message)
        self.code = code
        # auth | rejected (the server refused one request) | protocol (the wire format is not understood) |
        # kicked | missing (the SDK is not installed) | network (try again)
        self.kind = kind

    @property
    def terminal(self) -> bool:
        """Retrying cannot help: configuration or server line must change first."""
        return self.kind in ("auth", "protocol", "kicked", "missing")


OnMessage = Callable[[Inbound], Awaitable[None]]


class Transport(Protocol):
    line: str

    async def connect(self) -> dict[str, Any]:
        """Authenticate; raise TransportError. The message listener is registered before this is called."""

    async def send(self, channel_id: str, payload: dict[str, Any], client_msg_no: str, *, red_dot: bool,
                   no_persist: bool = False) -> SendAck:
        """Send to a person's channel; raise TransportError (kind "rejected" carries the reason code)."""

    async def wait_closed(self) -> TransportError:
        """Return why the session ended (it never ends without a reason)."""

    async def close(self) -> None:
        """End the session and release everything; safe to call twice."""


def session_end() -> asyncio.Future[TransportError]:
    return asyncio.get_running_loop().create_future()
