"""Writing a socket's queued frames with one transport write instead of one per frame.

ASGI has one `websocket.send` message per frame, and uvicorn writes each one to the socket at once: a system call
per frame. In a reconnect storm (docs/quality.md#targets R2: 200 apps replaying 500+ events each while live events
flow) that cost dominated the hub. When the server is uvicorn with its websockets-sansio protocol (how `lineup
serve` runs), `FrameBatching` hands the session a writer that frames many texts with the same websockets
connection object uvicorn uses and writes them together, keeping uvicorn's flow control (`writable`) and its
closed-state checks. Under any other server, or if uvicorn's internals change shape, sessions fall back to
`websocket.send` per frame: same bytes on the wire, only slower.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket

log = logging.getLogger("lineup.gateway")

SCOPE_KEY = "lineup.frame_writer"
FrameWriter = Callable[[list[bytes]], Awaitable[None]]


class SocketGone(Exception):
    """The peer is gone or the socket is closing: nothing more can be written."""


def _direct_writer(protocol: Any) -> FrameWriter | None:
    """A batch writer over uvicorn's WebSocketsSansIOProtocol, or None when it does not look like one."""
    needed = ("conn", "transport", "writable", "disconnected", "close_sent")
    if type(protocol).__name__ != "WebSocketsSansIOProtocol" or not all(hasattr(protocol, a) for a in needed):
        return None
    from websockets.exceptions import InvalidState

    async def write(frames: list[bytes]) -> None:
        await protocol.writable.wait()  # uvicorn's flow control: the transport's buffer is above its high mark
        if protocol.disconnected or protocol.close_sent:
            raise SocketGone()
        conn = protocol.conn
        try:
            for frame in frames:
                conn.send_text(frame)
        except InvalidState as exc:
            raise SocketGone() from exc
        protocol.transport.write(b"".join(conn.data_to_send()))

    return write


class FrameBatching:
    """ASGI wrapper: offers the direct writer to WebSocket endpoints through their scope."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            writer = _direct_writer(getattr(send, "__self__", None))
            if writer is not None:
                scope = {**scope, SCOPE_KEY: writer}
        await self.app(scope, receive, send)


def frame_writer(ws: WebSocket) -> FrameWriter:
    """The fastest way to write frames on this socket (see the module docstring)."""
    direct: FrameWriter | None = ws.scope.get(SCOPE_KEY)
    if direct is not None:
        return direct

    async def one_by_one(frames: list[bytes]) -> None:
        for frame in frames:
            await ws.send_text(frame.decode())

    return one_by_one
