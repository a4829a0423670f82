"""Batched frame writes (hub/gateway/wire.py) over a real uvicorn server on loopback and a real WebSocket client."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import cast

import pytest
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.types import ASGIApp
from starlette.websockets import WebSocket

from hub.gateway.wire import SCOPE_KEY, FrameBatching, SocketGone, frame_writer

FRAMES = [f'{{"n":{n},"text":"{"é" * (n % 7)}{"x" * (n * 37 % 900)}"}}'.encode() for n in range(300)]


def make_app(seen: dict[str, object]) -> Starlette:
    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        seen["direct"] = SCOPE_KEY in ws.scope
        write = frame_writer(ws)
        await write(FRAMES[:1])
        await write(FRAMES[1:])
        await ws.receive()  # the client says when it has read everything, then closes
        await ws.receive()  # websocket.disconnect
        try:
            await write(FRAMES[:1])
        except Exception as exc:  # noqa: BLE001 - whatever each path raises on a closed socket
            seen["after_close"] = exc
        else:
            seen["after_close"] = None

    return Starlette(routes=[WebSocketRoute("/ws", endpoint)])


async def serve(app: ASGIApp | FrameBatching) -> AsyncIterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, ws="websockets-sansio", lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await task


@pytest.mark.parametrize("batching", [True, False], ids=["direct", "asgi-send"])
async def test_frames_arrive_whole_in_order_as_text_either_way(batching: bool) -> None:
    seen: dict[str, object] = {}
    app = make_app(seen)
    async for port in serve(FrameBatching(app) if batching else app):
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as client:
            received = [await asyncio.wait_for(client.recv(), 5) for _ in FRAMES]
            await client.send("done")
        for _ in range(100):
            if "after_close" in seen:
                break
            await asyncio.sleep(0.02)
    assert seen["direct"] is batching
    assert all(isinstance(text, str) for text in received)  # text frames (docs/protocol.md#frames-and-answers)
    assert [text.encode() for text in cast(list[str], received)] == FRAMES
    # Writing after the peer left fails loudly (the session then marks itself closed), never silently.
    assert isinstance(seen["after_close"], Exception)
    if batching:
        assert isinstance(seen["after_close"], SocketGone)


def test_an_unknown_server_gets_no_direct_writer() -> None:
    from hub.gateway.wire import _direct_writer

    class LooksDifferent:
        conn = transport = writable = None

    assert _direct_writer(LooksDifferent()) is None
    assert _direct_writer(None) is None
