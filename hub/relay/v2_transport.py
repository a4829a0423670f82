"""The released v2.x server line (the one 唐僧叨叨 deploys): a JSON-RPC client written to its wire format."""
# wukong-easy-sdk 0.1.0 cannot hold a session on this line, so the hub speaks it itself. What differs from the
# compat line, as WuKongIM v2's `pkg/jsonrpc` encodes it (codec.go `FromFrame`, types.go), is kept here:
#
# - the answer to `ping` is `{"jsonrpc":"2.0","id":…}` with no `result` (PongResponse, `result` omitempty);
#   older builds answer with a `{"method":"pong"}` notification instead. Both count as the pong.
# - a `recv` carries `header` only when a flag is set (`fromProtoHeader` returns nil otherwise), and its
#   `payload` is the stored bytes embedded as raw JSON.
# - `send` stores `params.payload` byte for byte (json.RawMessage): a Base64 string would reach other clients
#   as a JSON string, so the payload goes as a JSON object. The request id is the clientMsgNo, so builds that
#   answer SENDACK with `id = clientMsgNo` correlate too.
# - CONNACK and SENDACK carry `reasonCode` in `result` also on refusal (1 is success); `recvack` is a
#   notification; an unknown method makes the server close the socket.

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from hub.relay import wire
from hub.relay.transport import Inbound, OnMessage, SendAck, TransportError, session_end

log = logging.getLogger("lineup.relay")


def _reason(result: Any, error: Any) -> int:
    """The reason code of a CONNACK/SENDACK answer in either form (`result.reasonCode` or `error.code`)."""
    if isinstance(error, dict) and type(error.get("code")) is int:
        return int(error["code"])
    if isinstance(result, dict):
        code = result.get("reasonCode", result.get("reason_code"))
        if type(code) is int:
            return int(code)
    raise TransportError(-6, "the answer carries no reason code", kind="protocol")


class V2Transport:
    line = "v2"

    def __init__(self, url: str, uid: str, token: str, device_id: str, device_flag: int, on_message: OnMessage, *,
                 ping_interval_s: float, connect_timeout_s: float, request_timeout_s: float) -> None:
        self.url, self.uid, self.token = url, uid, token
        self.device_id, self.device_flag = device_id, device_flag
        self._on_message = on_message
        self.ping_interval_s, self.connect_timeout_s, self.request_timeout_s = (
            ping_interval_s, connect_timeout_s, request_timeout_s)
        self._ws: ClientConnection | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ping: asyncio.Future[None] | None = None
        self._ping_id = ""
        self._tasks: list[asyncio.Task[None]] = []
        self._ended: asyncio.Future[TransportError] = session_end()

    # ---- session ---------------------------------------------------------------------------------------

    async def connect(self) -> dict[str, Any]:
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                self._ws = await websockets.connect(
                    self.url, ping_interval=None, compression=None, max_size=1024 * 1024, proxy=None)
        except (TimeoutError, OSError, websockets.InvalidHandshake, websockets.InvalidURI) as exc:
            raise TransportError(-5, f"cannot open {self.url}: {exc}", kind="network") from None
        self._tasks.append(asyncio.create_task(self._read(), name="lineup-relay-v2-read"))
        params = {"uid": self.uid, "token": self.token, "deviceId": self.device_id, "deviceFlag": self.device_flag,
                  "clientTimestamp": int(time.time() * 1000)}
        answer = await self._request("connect", str(uuid.uuid4()), params, self.connect_timeout_s)
        code = _reason(answer.get("result"), answer.get("error"))
        if code != wire.SUCCESS:
            await self.close()
            kind = "auth" if code in (wire.AUTH_FAIL, 14) else "rejected"
            raise TransportError(code, f"connect refused: {wire.reason_name(code)}", kind=kind)
        self._tasks.append(asyncio.create_task(self._heartbeat(), name="lineup-relay-v2-ping"))
        return dict(answer.get("result") or {})

    def _end(self, error: TransportError) -> None:
        if not self._ended.done():
            self._ended.set_result(error)
        for future in list(self._pending.values()) + ([self._ping] if self._ping else []):
            if not future.done():
                future.set_exception(error)

    async def wait_closed(self) -> TransportError:
        return await asyncio.shield(self._ended)

    async def close(self) -> None:
        self._end(TransportError(-3, "closed by the hub", kind="network"))
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        await asyncio.gather(*(t for t in self._tasks if t is not current), return_exceptions=True)
        if self._ws is not None:
            try:
                async with asyncio.timeout(2.0):
                    await self._ws.close()
            except (TimeoutError, OSError):
                self._ws.transport.abort()

    # ---- requests --------------------------------------------------------------------------------------

    async def _write(self, frame: dict[str, Any]) -> None:
        assert self._ws is not None
        try:
            await self._ws.send(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))
        except websockets.ConnectionClosed:
            raise TransportError(-5, "connection lost while sending", kind="network") from None

    async def _request(self, method: str, request_id: str, params: dict[str, Any] | None,
                       timeout_s: float) -> dict[str, Any]:
        if self._ended.done():
            raise self._ended.result()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": request_id}
        if params is not None:
            frame["params"] = params
        try:
            await self._write(frame)
            async with asyncio.timeout(timeout_s):
                return await future
        except TimeoutError:
            raise TransportError(-4, f"no answer to {method} within {timeout_s:g} s; the outcome is unknown",
                                 kind="network") from None
        finally:
            self._pending.pop(request_id, None)

    async def send(self, channel_id: str, payload: dict[str, Any], client_msg_no: str, *, red_dot: bool,
                   no_persist: bool = False) -> SendAck:
        header: dict[str, bool] = {"redDot": True} if red_dot else {}
        if no_persist:
            header["noPersist"] = True
        params = {"clientMsgNo": client_msg_no, "channelId": channel_id, "channelType": wire.PERSON,
                  "payload": payload, "header": header}
        answer = await self._request("send", client_msg_no, params, self.request_timeout_s)
        result = answer.get("result")
        code = _reason(result, answer.get("error"))
        if code != wire.SUCCESS:
            raise TransportError(code, f"send refused: {wire.reason_name(code)}", kind="rejected")
        assert isinstance(result, dict)
        sequence: Any = result.get("messageSeq", result.get("message_seq", 0))
        return SendAck(str(result.get("messageId", result.get("message_id"))), int(sequence))

    async def _heartbeat(self) -> None:
        try:
            while True:
                await asyncio.sleep(self.ping_interval_s)
                self._ping_id = str(uuid.uuid4())
                self._ping = asyncio.get_running_loop().create_future()
                await self._write({"jsonrpc": "2.0", "method": "ping", "id": self._ping_id})
                async with asyncio.timeout(self.request_timeout_s):
                    await self._ping
        except TimeoutError:
            self._end(TransportError(-4, "no pong: the connection is gone", kind="network"))
            if self._ws is not None:
                self._ws.transport.abort()
        except TransportError as exc:
            self._end(exc)

    # ---- reading ---------------------------------------------------------------------------------------

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            async for raw in self._ws:
                try:
                    frame = json.loads(raw)
                except ValueError:
                    raise TransportError(-6, "the server sent a frame that is not JSON", kind="protocol") from None
                if not isinstance(frame, dict):
                    raise TransportError(-6, "the server sent a JSON-RPC batch or scalar", kind="protocol")
                await self._dispatch(frame)
            self._end(TransportError(-5, "the server closed the connection", kind="network"))
        except websockets.ConnectionClosed:
            self._end(TransportError(-5, "connection lost", kind="network"))
        except TransportError as exc:
            self._end(exc)
            await self._ws.close()

    async def _dispatch(self, frame: dict[str, Any]) -> None:
        method = frame.get("method")
        request_id = frame.get("id")
        if isinstance(request_id, str) and method is None:
            if request_id == self._ping_id:  # the pong: with `result: null` (compat) or without (v2)
                if self._ping is not None and not self._ping.done():
                    self._ping.set_result(None)
                return
            future = self._pending.get(request_id)
            if future is not None and not future.done():
                future.set_result(frame)
            return
        if method == "pong":
            if self._ping is not None and not self._ping.done():
                self._ping.set_result(None)
        elif method == "recv":
            await self._received(frame.get("params"))
        elif method == "disconnect":
            params = frame.get("params") or {}
            code = int(params.get("reasonCode", 0)) if isinstance(params, dict) else 0
            kind = "kicked" if code == wire.CONNECT_KICK else ("auth" if code == wire.AUTH_FAIL else "network")
            self._end(TransportError(code, f"the server disconnected the hub: {wire.reason_name(code)} "
                                           f"{params.get('reason', '') if isinstance(params, dict) else ''}".strip(),
                                     kind=kind))

    async def _received(self, params: Any) -> None:
        if not isinstance(params, dict) or "messageId" not in params or "fromUid" not in params:
            raise TransportError(-6, "a recv notification without messageId/fromUid", kind="protocol")
        message = Inbound(
            message_id=str(params["messageId"]), message_seq=int(params.get("messageSeq") or 0),
            from_uid=str(params["fromUid"]), channel_id=str(params.get("channelId", "")),
            channel_type=int(params.get("channelType") or wire.PERSON),
            payload=wire.decode_payload(params.get("payload")), client_msg_no=str(params.get("clientMsgNo") or ""),
            timestamp=int(params.get("timestamp") or 0))
        await self._on_message(message)
        ack: dict[str, Any] = {"messageId": message.message_id, "messageSeq": message.message_seq}
        if isinstance(params.get("header"), dict):
            ack["header"] = params["header"]
        await self._write({"jsonrpc": "2.0", "method": "recvack", "params": ack})
