"""A raw LAP/0.1 WebSocket client for tests: hello, send envelopes, await acks and events.

Every frame is checked against the published schema (tests/support/contract.py): a frame from the hub that
breaks it, or an ack for a frame the schema refuses, fails the test at its next wait (or at `close`).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from tests.support import contract


def envelope(type_: str, payload: dict[str, Any], workspace_id: str | None = None, **fields: Any) -> dict[str, Any]:
    env = {"id": fields.pop("id", None) or str(uuid.uuid4()), "type": type_, "version": "0.1",
           "occurredAt": datetime.now(UTC).isoformat().replace("+00:00", "Z"), "payload": payload}
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
        # Contract breaks seen so far (tests/support/contract.py), and why the schema refused frames we sent.
        self.contract_problems: list[str] = []
        self.schema_refused: dict[str, str] = {}
        self.welcome: dict[str, Any] = {}
        self.closed = asyncio.Event()
        self._new = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, ws_base: str, kind: str, secret: str, *, last_sequence: int | None = None,
                      epoch: str | None = None, wait_caught_up: bool = True, **hello: Any) -> LapClient:
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
        try:
            await client.send_raw(envelope(f"{kind}.hello", payload))
            first = await client.wait_for(lambda f: f["type"] in ("system.welcome", "system.error"))
            if first["type"] == "system.error":
                raise PermissionError(first["payload"]["code"])
            client.welcome = first["payload"]
            if wait_caught_up:
                await client.wait_for(lambda f: f["type"] == "system.caught_up")
        except BaseException:
            # A refused or timed-out hello still owns a socket: close it here, or it is left for the garbage
            # collector (a ResourceWarning, which this suite turns into an error in whichever test runs next).
            await client.ws.close()
            client._reader.cancel()
            await asyncio.gather(client._reader, return_exceptions=True)
            raise
        return client

    @property
    def workspace_id(self) -> str:
        return str(self.welcome["workspaceId"])

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                frame = json.loads(message)
                if contract.ENABLED:
                    self._check_received(frame)
                async with self._new:
                    self.frames.append(frame)
                    self._new.notify_all()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()
            async with self._new:
                self._new.notify_all()

    def _check_received(self, frame: Any) -> None:
        try:
            found = contract.problem("hubToAgent" if self.kind == "agent" else "hubToApp", frame)
        except contract.UNCHECKABLE as exc:
            found = f"LAP contract: a frame from the hub could not be checked ({exc!r}): {str(frame)[:300]}"
        if found is not None:
            self.contract_problems.append(found)
        elif frame.get("type") == "system.ack" and frame["payload"].get("id") in self.schema_refused:
            self.contract_problems.append("LAP contract: the hub accepted a frame `lineup schema` refuses (a "
                                          "schema too strict, or a check missing in the hub):\n  "
                                          + self.schema_refused[frame["payload"]["id"]])

    def _check_sent(self, data: dict[str, Any] | str | bytes) -> None:
        """Remember why the schema refuses a frame we send: tests send broken frames on purpose, so only an
        ack for one is a contract break (seen in `_check_received`)."""
        try:
            frame = data if isinstance(data, dict) else json.loads(data)
        except (ValueError, RecursionError):  # not JSON, or nested too deep: broken on purpose
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("id"), str):
            return
        direction = "handshake" if str(frame.get("type", "")).endswith(".hello") and not self.welcome \
            else "agentToHub" if self.kind == "agent" else "appToHub"
        try:
            found = contract.problem(direction, frame)
        except contract.UNCHECKABLE as exc:  # a lone surrogate, nesting past any limit: broken on purpose too
            found = f"not checkable ({exc!r})"
        if found is not None:
            self.schema_refused[frame["id"]] = found

    def check_contract(self) -> None:
        """Fail (AssertionError) if a frame so far broke the published schema."""
        if self.contract_problems:
            raise AssertionError("\n".join(self.contract_problems))

    async def send_raw(self, data: dict[str, Any] | str | bytes) -> None:
        if contract.ENABLED:
            self._check_sent(data)
        await self.ws.send(data if isinstance(data, (str, bytes)) else json.dumps(data))

    async def send(self, type_: str, payload: dict[str, Any], **fields: Any) -> str:
        env = envelope(type_, payload, fields.pop("workspace_id", self.workspace_id), **fields)
        await self.send_raw(env)
        return str(env["id"])

    async def wait_for(self, predicate: Callable[[dict[str, Any]], object], timeout: float = 10.0,
                       start: int = 0) -> dict[str, Any]:
        """The first frame (from index `start`) matching the predicate, waiting for it to arrive."""
        async def scan() -> dict[str, Any]:
            index = start
            async with self._new:
                while True:
                    self.check_contract()
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
        self.check_contract()
