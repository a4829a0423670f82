"""LAP/0.1 frames for the bench clients: building envelopes and decoding only the fields the bench reads."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec

from bench.wsclient import WsClient

encode = msgspec.json.Encoder().encode
CONTENT = ("The quick brown fox jumps over the lazy dog while the agent reports progress on its task. " * 4)[:250]


class Bench(msgspec.Struct, frozen=True):
    t: int          # intended send time, time.monotonic_ns()
    a: int          # agent index
    n: int          # per-agent counter
    p: str = "r"    # phase: "w" warm-up, "r" run


class BenchPayload(msgspec.Struct, frozen=True):
    bench: Bench | None = None


class Incoming(msgspec.Struct):
    """What an app or agent reads from a frame; every other field is skipped by the decoder."""

    type: str
    payload: dict[str, Any] = {}
    sequence: int | None = None


class AppIncoming(msgspec.Struct):
    type: str
    payload: BenchPayload = BenchPayload()
    sequence: int | None = None


class AckPayload(msgspec.Struct, frozen=True):
    id: str | None = None
    sequence: int | None = None
    duplicate: bool = False
    code: str | None = None


class AckIncoming(msgspec.Struct):
    type: str
    payload: AckPayload = AckPayload()


decode_any = msgspec.json.Decoder(Incoming).decode
decode_app = msgspec.json.Decoder(AppIncoming).decode
decode_ack = msgspec.json.Decoder(AckIncoming).decode


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_id(prefix: str = "b") -> str:
    return f"{prefix}{os.urandom(8).hex()}"


def envelope(type_: str, payload: dict[str, Any], *, id: str | None = None, workspace_id: str | None = None,  # noqa: A002 - the protocol's field name
             conversation_id: str | None = None, occurred_at: str | None = None) -> bytes:
    env: dict[str, Any] = {"id": id or new_id(), "type": type_, "version": "0.1",
                           "occurredAt": occurred_at or now_iso(), "payload": payload}
    if workspace_id is not None:
        env["workspaceId"] = workspace_id
    if conversation_id is not None:
        env["conversationId"] = conversation_id
    return encode(env)


def split_url(url: str) -> tuple[str, int]:
    """'ws://127.0.0.1:9000' -> ('127.0.0.1', 9000); the bench only talks to loopback."""
    hostport = url.split("://", 1)[-1].rstrip("/")
    host, port = hostport.rsplit(":", 1)
    if host not in ("127.0.0.1", "localhost", "::1", "[::1]"):
        raise ValueError(f"the bench only talks to loopback, not {host}")
    return host, int(port)


class Handshake:
    """Connects one socket, sends the hello and waits for welcome and caught_up; then hands frames on."""

    def __init__(self, on_frame: Callable[[bytes], None] | None = None, *, replay_too: bool = False) -> None:
        self.on_frame = on_frame
        self.replay_too = replay_too  # hand replayed events to on_frame as well (catch-up drills)
        self.welcome: dict[str, Any] = {}
        self.caught_up: int | None = None
        self.replayed = 0
        self.error: dict[str, Any] | None = None
        self._ready = asyncio.get_running_loop().create_future()
        self.client: WsClient | None = None

    def _on_text(self, data: bytes) -> None:
        if self._ready.done():
            if self.on_frame is not None:
                self.on_frame(data)
            return
        frame = decode_any(data)
        if frame.type == "system.welcome":
            self.welcome = frame.payload
        elif frame.type == "system.caught_up":
            self.caught_up = frame.payload.get("sequence")
            self._ready.set_result(None)
        elif frame.type == "system.error":
            self.error = frame.payload
            self._ready.set_exception(PermissionError(str(frame.payload)))
        elif frame.sequence is not None:
            self.replayed += 1
            if self.replay_too and self.on_frame is not None:
                self.on_frame(data)

    async def open(self, url: str, kind: str, secret: str, *, last_sequence: int | None = None,
                   timeout_s: float = 30.0) -> WsClient:
        host, port = split_url(url)
        path = "/ws/agent" if kind == "agent" else "/ws/app"
        self.client = await WsClient.connect(host, port, path, self._on_text, timeout_s)
        hello: dict[str, Any] = ({"credential": secret, "runtime": "bench", "agentVersion": "1.0"}
                                 if kind == "agent" else {"token": secret})
        if last_sequence is not None:
            hello["lastSequence"] = last_sequence
        self.client.send_text(envelope(f"{kind}.hello", hello))
        await asyncio.wait_for(asyncio.shield(self._ready), timeout_s)
        return self.client
