"""A LAP socket the test reads from by hand, so it can stop reading: a slow or stalled consumer.

`LapClient` (tests/support/lap.py) reads everything at once in a background task. Here nothing is read until
the test calls `recv`. The socket's receive buffer is made small and the websockets client's own frame queue
holds one frame, so a client that stops calling `recv` really stops the TCP window: the hub's writes back up
into its own outbound buffer, which is what the slow-consumer bound (S1) is about.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlparse

import websockets
from websockets.asyncio.client import ClientConnection

from tests.support import contract
from tests.support.lap import envelope


class RawClient:
    def __init__(self, ws: ClientConnection, kind: str = "app") -> None:
        self.ws = ws
        self.kind = kind
        self.frames: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] = {}
        self.close_code: int | None = None

    @classmethod
    async def connect(cls, ws_base: str, kind: str, secret: str, *, rcvbuf: int | None = 8192,
                      **hello: Any) -> RawClient:
        url = urlparse(ws_base)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:  # before connect: fixes the TCP window
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (url.hostname, url.port))
        path = "/ws/agent" if kind == "agent" else "/ws/app"
        ws = await websockets.connect(ws_base + path, sock=sock, max_size=None, max_queue=1, ping_interval=None)
        client = cls(ws, kind)
        payload: dict[str, Any] = {"credential": secret} if kind == "agent" else {"token": secret}
        payload.update({k: v for k, v in hello.items() if v is not None})
        await ws.send(json.dumps(envelope(f"{kind}.hello", payload)))
        first = await client.recv()
        assert first is not None and first["type"] == "system.welcome", first
        client.welcome = first["payload"]
        return client

    async def recv(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """The next frame, or None once the hub closed the socket (its code is then in `close_code`)."""
        try:
            message = await asyncio.wait_for(self.ws.recv(), timeout)
        except websockets.ConnectionClosed as exc:
            self.close_code = exc.rcvd.code if exc.rcvd is not None else None
            return None
        frame: dict[str, Any] = json.loads(message)
        self.frames.append(frame)
        if contract.ENABLED:  # every frame from the hub matches the published schema (tests/support/contract.py)
            found = contract.problem("hubToAgent" if self.kind == "agent" else "hubToApp", frame)
            if found is not None:
                raise AssertionError(found)
        return frame

    async def recv_until(self, predicate: Any, timeout: float = 30.0) -> dict[str, Any] | None:
        """Read until a frame matches (returned) or the socket closes (None)."""
        async def scan() -> dict[str, Any] | None:
            while True:
                frame = await self.recv(timeout)
                if frame is None or predicate(frame):
                    return frame
        return await asyncio.wait_for(scan(), timeout)

    async def drain(self, timeout: float = 30.0) -> None:
        """Read everything until the hub closes the socket."""
        await self.recv_until(lambda f: False, timeout)

    async def close(self) -> None:
        await self.ws.close()
