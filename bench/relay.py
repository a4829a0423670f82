"""B_relay: a forwarding-only relay on the hub's stack (Starlette, uvicorn websockets-sansio), no storage.

It speaks just enough LAP for the bench clients: hello → welcome + caught_up, every envelope gets a
`system.ack`, and a `message.create` goes to every app socket as `message.created` with a sequence.
Run: python -m bench.relay --port P
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections import deque
from typing import Any

import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect


class Envelope(msgspec.Struct, omit_defaults=True):
    id: str
    type: str
    version: str
    occurredAt: str
    payload: dict[str, Any]
    workspaceId: str | None = None
    conversationId: str | None = None
    taskId: str | None = None
    sequence: int | None = None
    correlationId: str | None = None


decode = msgspec.json.Decoder(Envelope).decode
encode = msgspec.json.Encoder().encode
WORKSPACE = "ws_relay"


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def system(type_: str, payload: dict[str, Any]) -> bytes:
    return encode(Envelope(id=f"sys_{os.urandom(8).hex()}", type=type_, version="0.1", occurredAt=now_iso(),
                           payload=payload, workspaceId=WORKSPACE))


class Peer:
    """One socket with its own outbound queue and sender task (like the hub's Session)."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.queue: deque[bytes] = deque()
        self.wakeup = asyncio.Event()
        self.closed = False
        self.task = asyncio.create_task(self._send_loop())

    def send(self, frame: bytes) -> None:
        if not self.closed:
            self.queue.append(frame)
            self.wakeup.set()

    async def _send_loop(self) -> None:
        try:
            while not self.closed:
                await self.wakeup.wait()
                self.wakeup.clear()
                while self.queue and not self.closed:
                    await self.ws.send_text(self.queue.popleft().decode())
        except Exception:  # noqa: BLE001 - a benchmark reports any failure and goes on
            self.closed = True

    async def stop(self) -> None:
        self.closed = True
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


class Relay:
    def __init__(self) -> None:
        self.apps: set[Peer] = set()
        self.sequence = 0

    async def serve(self, ws: WebSocket, kind: str) -> None:
        await ws.accept()
        peer = Peer(ws)
        try:
            await ws.receive_text()  # the hello; the relay trusts everyone
            peer.send(system("system.welcome", {"workspaceId": WORKSPACE, "heartbeatIntervalMs": 25000,
                                                "epoch": "relay", "headSequence": self.sequence}))
            peer.send(system("system.caught_up", {"sequence": self.sequence}))
            if kind == "app":
                self.apps.add(peer)
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    continue
                self.handle(peer, decode(text))
        except WebSocketDisconnect:
            pass
        finally:
            self.apps.discard(peer)
            await peer.stop()

    def handle(self, peer: Peer, env: Envelope) -> None:
        if env.type == "system.ping":
            peer.send(system("system.pong", {}))
            return
        self.sequence += 1
        if env.type == "message.create":
            out = encode(Envelope(id=env.id, type="message.created", version="0.1", occurredAt=env.occurredAt,
                                  payload=env.payload, workspaceId=env.workspaceId,
                                  conversationId=env.conversationId, sequence=self.sequence))
            for app in tuple(self.apps):
                app.send(out)
        peer.send(system("system.ack", {"id": env.id, "sequence": self.sequence, "duplicate": False}))


def create_app() -> Starlette:
    relay = Relay()

    async def agent(ws: WebSocket) -> None:
        await relay.serve(ws, "agent")

    async def app(ws: WebSocket) -> None:
        await relay.serve(ws, "app")

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "relay": True, "sequence": relay.sequence})

    return Starlette(routes=[Route("/-/health", health), WebSocketRoute("/ws/agent", agent),
                             WebSocketRoute("/ws/app", app)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    # The same uvicorn settings as hub/server.py: deflate off, 1 MiB frames, uvloop and httptools.
    uvicorn.run(create_app(), host="127.0.0.1", port=args.port, ws_max_size=1024 * 1024,
                ws_per_message_deflate=False, loop="auto", http="auto", ws="websockets-sansio",
                log_level="warning", access_log=False, lifespan="off")


if __name__ == "__main__":
    main()
