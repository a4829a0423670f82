"""A raw LAP/0.1 WebSocket client for tests: hello, send envelopes, await acks and events."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import datetime, timezone
from typing import Any, Callable

import websockets
from websockets.asyncio.client import ClientConnection


def envelope(type_: str, payload: dict[str, Any], workspace_id: str | None = None, **fields: Any) -> dict[str, Any]:
    env = {"id": fields.pop("id", None) or str(uuid.uuid4()), "type": type_, "version": "0.1",
           "occurredAt": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"), "payload": payload}
    if workspace_id is not None:
        env["workspaceId"] = workspace_id
    env.update({k: v for k, v in fields.items() if v is not None})
    return env


class LapClient:
    """One socket. Every frame received is kept in `frames`, in order, for assertions."""

    def __init__(self, ws: ClientConnection, kind: str) -> None:
        self.ws = ws
        self.kind = kind
        self.frames: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] = {}
        self.closed = asyncio.Event()
        self._new = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, ws_base: str, kind: str, secret: str, *, last_sequence: int | None = None,
                      epoch: str | None = None, wait_caught_up: bool = True, **hello: Any) -> "LapClient":
        path = "/ws/agent" if kind == "agent" else "/ws/app"
        ws = await websockets.connect(ws_base + path, max_size=None)
        client = cls(ws, kind)
        payload: dict[str, Any] = {"credential": secret} if kind == "agent" else {"token": secret}
        payload.update(hello)
        if kind == "agent":
            payload.setdefault("runtime", "test")
            payload.setdefault("agentVersion", "1.0")
        if last_sequence is not None:
            payload["lastSequence"] = last_sequence
        if epoch is not None:
            payload["epoch"] = epoch
        await client.send_raw(envelope(f"{kind}.hello", payload))
        first = await client.wait_for(lambda f: f["type"] in ("system.welcome", "system.error"))
        if first["type"] == "system.error":
            raise PermissionError(first["payload"]["code"])
        client.welcome = first["payload"]
        if wait_caught_up:
            await client.wait_for(lambda f: f["type"] == "system.caught_up")
        return client

    @property
    def workspace_id(self) -> str:
        return str(self.welcome["workspaceId"])

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                frame = json.loads(message)
                async with self._new:
                    self.frames.append(frame)
                    self._new.notify_all()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()
            async with self._new:
                self._new.notify_all()

    async def send_raw(self, data: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(data if isinstance(data, (str, bytes)) else json.dumps(data))

    async def send(self, type_: str, payload: dict[str, Any], **fields: Any) -> str:
        env = envelope(type_, payload, fields.pop("workspace_id", self.workspace_id), **fields)
        await self.send_raw(env)
        return str(env["id"])

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0,
                       start: int = 0) -> dict[str, Any]:
        """The first frame (from index `start`) matching the predicate, waiting for it to arrive."""
        async def scan() -> dict[str, Any]:
            index = start
            async with self._new:
                while True:
                    while index < len(self.frames):
                        frame = self.frames[index]
                        index += 1
                        if predicate(frame):
                            return frame
                    if self.closed.is_set():
                        raise ConnectionError(f"socket closed ({self.ws.close_code}) before the frame arrived")
                    await self._new.wait()
        return await asyncio.wait_for(scan(), timeout)

    async def answer(self, envelope_id: str, timeout: float = 10.0) -> dict[str, Any]:
        """The ack or error for an envelope id."""
        return await self.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                   and f["payload"].get("id") == envelope_id, timeout)

    async def request(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """Send and return the answer frame (ack or error)."""
        return await self.answer(await self.send(type_, payload, **fields))

    async def ok(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """Send and insist on an ack; returns the ack's payload."""
        answer = await self.request(type_, payload, **fields)
        assert answer["type"] == "system.ack", answer
        return dict(answer["payload"])

    async def event(self, type_: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        """The first stored event of a type whose envelope fields or payload fields match."""
        def pred(f: dict[str, Any]) -> bool:
            if f["type"] != type_ or f.get("sequence") is None:
                return False
            return all(f.get(k, f["payload"].get(k)) == v for k, v in match.items())
        return await self.wait_for(pred, timeout)

    def events(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("sequence") is not None]

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)
