"""A fake WuKongIM for tests: WebSocket JSON-RPC in both server lines' wire formats, and the HTTP API the hub uses."""
# Faithful to what the relay relies on, from WuKongIM's own sources and docs:
# - the compat line ("Product Gateway", pkg/protocol/jsonrpc): CONNACK/SENDACK results carry camelCase and
#   snake_case fields, a refusal is a JSON-RPC `error` with the reason code; `ping` is answered with the same id and
#   an explicit `result: null`; every `recv` has a `header` object; a JSON-object payload is sent as an object,
#   anything else as Base64; a SEND payload may be an object, JSON text, Base64 or null.
# - the released v2.x line (pkg/jsonrpc, codec.go FromFrame): results carry `reasonCode` also on refusal; the
#   pong is `{"jsonrpc":"2.0","id":…}` without `result`; `header` is left out of `recv` when no flag is set;
#   payloads are raw JSON bytes both ways.
# - both: `connect` must come first (2 s), an unknown method closes the socket, `recvack` is a notification, a
#   person-to-person send is checked against the receiver's whitelist unless `whitelistOffOfPerson` (system uids
#   pass), messages go live only to connections online at send time — offline clients catch up through
#   `/channel/messagesync` — and `noPersist` messages are not stored.
# - HTTP: POST JSON; with a manager token every call needs it in the `token` header.

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.server import Server, ServerConnection, serve

SUCCESS, AUTH_FAIL, NOT_IN_WHITELIST = 1, 2, 13
NAMES = {1: "Success", 2: "AuthFail", 12: "ConnectKick", 13: "NotInWhitelist"}


@dataclass
class Message:
    message_id: int
    message_seq: int
    client_msg_no: str
    from_uid: str
    to_uid: str
    timestamp: int
    payload: bytes
    header: dict[str, bool] = field(default_factory=dict)


@dataclass
class Conn:
    ws: ServerConnection
    uid: str = ""
    device_flag: int = 0
    authed: bool = False
    acked: list[str] = field(default_factory=list)


class FakeWuKong:
    def __init__(self, line: str = "compat", *, token_auth: bool = True, manager_token: str = "",
                 whitelist_off_of_person: bool = True) -> None:
        self.line = line                  # "compat" | "v2" | "other" (a WebSocket server that is not WuKongIM)
        self.token_auth = token_auth
        self.manager_token = manager_token
        self.whitelist_off_of_person = whitelist_off_of_person
        self.tokens: dict[tuple[str, int], str] = {}
        self.system_uids: set[str] = set()
        self.whitelist: dict[str, set[str]] = {}
        self.channels: dict[tuple[str, str], list[Message]] = {}
        self.conns: list[Conn] = []
        self.connects: dict[str, int] = {}     # successful connects per uid
        self.attempts = 0                        # WebSocket connections opened
        self.http_calls: list[str] = []
        # Every byte the server carried, both ways, WebSocket frames and HTTP bodies: what whoever runs WuKongIM
        # could read (tests/integration/test_relay_sealed.py searches it for what must stay secret).
        self.carried: list[bytes] = []
        self._next_id = 1_900_000_000_000_000_001  # above 2**53: ids must stay strings end to end
        self._ws: Server | None = None
        self._http: asyncio.Server | None = None

    # ---- running ---------------------------------------------------------------------------------------

    async def start(self) -> FakeWuKong:
        self._ws = await serve(self._serve, "127.0.0.1", 0, ping_interval=None, compression=None)
        self._http = await asyncio.start_server(self._http_conn, "127.0.0.1", 0)
        return self

    @property
    def ws_url(self) -> str:
        assert self._ws is not None
        return f"ws://127.0.0.1:{self._ws.sockets[0].getsockname()[1]}"

    @property
    def api_url(self) -> str:
        assert self._http is not None
        return f"http://127.0.0.1:{self._http.sockets[0].getsockname()[1]}"

    async def stop(self) -> None:
        for conn in list(self.conns):
            conn.ws.transport.abort()
        if self._ws is not None:
            self._ws.close()
            await self._ws.wait_closed()
        if self._http is not None:
            self._http.close()
            await self._http.wait_closed()

    def drop(self, uid: str) -> int:
        """Cut every connection of `uid` without a close frame (a network loss); returns how many."""
        cut = [c for c in self.conns if c.uid == uid]
        for conn in cut:
            conn.ws.transport.abort()
        return len(cut)

    def online(self, uid: str) -> bool:
        return any(c.uid == uid and c.authed for c in self.conns)

    def history(self, a: str, b: str) -> list[Message]:
        return list(self.channels.get(tuple(sorted((a, b))), []))  # type: ignore[arg-type]

    def payloads(self, a: str, b: str, sender: str) -> list[dict[str, Any]]:
        return [json.loads(m.payload) for m in self.history(a, b) if m.from_uid == sender]

    # ---- WebSocket JSON-RPC ----------------------------------------------------------------------------

    async def _serve(self, ws: ServerConnection) -> None:
        conn = Conn(ws)
        self.conns.append(conn)
        self.attempts += 1
        try:
            if self.line == "other":
                async for _ in ws:
                    await ws.send(json.dumps({"type": "welcome", "server": "not-wukong"}))
                return
            try:
                first = await asyncio.wait_for(ws.recv(), 2.0)  # authenticate within 2 s or be dropped
            except TimeoutError:
                return
            self._carry(first)
            if not await self._connect(conn, first):
                return
            async for raw in ws:
                self._carry(raw)
                if not await self._frame(conn, raw):
                    return
        except websockets.ConnectionClosed:
            pass
        finally:
            self.conns.remove(conn)
            if conn.ws.state.name != "CLOSED":
                conn.ws.transport.abort()

    def _carry(self, data: str | bytes) -> None:
        self.carried.append(data.encode() if isinstance(data, str) else bytes(data))

    def carried_text(self) -> str:
        """All it carried, as text, with every Base64 payload decoded beside it (the compat line and the HTTP API
        carry payloads as Base64)."""
        return "\n".join(chunk.decode(errors="replace") for chunk in self.carried) + "\n" + "\n".join(
            m.payload.decode(errors="replace") for log in self.channels.values() for m in log)

    async def _reply(self, conn: Conn, frame: dict[str, Any]) -> None:
        text = json.dumps({"jsonrpc": "2.0", **frame}, ensure_ascii=False)
        self._carry(text)
        await conn.ws.send(text)

    async def _connect(self, conn: Conn, raw: Any) -> bool:
        frame = json.loads(raw)
        if frame.get("method") != "connect" or not isinstance(frame.get("id"), str):
            return False  # connect must be the first request
        params = frame.get("params") or {}
        uid, token, flag = params.get("uid", ""), params.get("token", ""), int(params.get("deviceFlag", 0))
        ok = bool(uid and token) and (not self.token_auth or self.tokens.get((uid, flag)) == token)
        if not ok:
            if self.line == "compat":
                await self._reply(conn, {"id": frame["id"], "error": {"code": AUTH_FAIL, "message": "AuthFail"}})
            else:
                await self._reply(conn, {"id": frame["id"], "result": {"reasonCode": AUTH_FAIL, "nodeId": 0}})
            return False
        for other in [c for c in self.conns if c.uid == uid and c.device_flag == flag and c.authed]:
            # one master connection per uid and device flag: the older one is kicked (reason 12)
            await self._reply(other, {"method": "disconnect", "params": {"reasonCode": 12, "reason": "login elsewhere"}})
            other.ws.transport.abort()
        conn.uid, conn.device_flag, conn.authed = uid, flag, True
        self.connects[uid] = self.connects.get(uid, 0) + 1
        if self.line == "compat":
            result = {"serverVersion": 5, "server_version": 5, "serverKey": "srv-key", "server_key": "srv-key",
                      "salt": "salt", "timeDiff": 0, "time_diff": 0, "reasonCode": SUCCESS, "reason_code": SUCCESS,
                      "nodeId": 1, "node_id": 1}
        else:
            result = {"serverVersion": 4, "serverKey": "srv-key", "salt": "salt", "reasonCode": SUCCESS, "nodeId": 1}
        await self._reply(conn, {"id": frame["id"], "result": result})
        return True

    async def _frame(self, conn: Conn, raw: Any) -> bool:
        try:
            frame = json.loads(raw)
        except ValueError:
            return False
        method, request_id = frame.get("method"), frame.get("id")
        if method == "ping" and isinstance(request_id, str):
            await self._reply(conn, {"id": request_id, "result": None} if self.line == "compat" else {"id": request_id})
        elif method == "send" and isinstance(request_id, str):
            await self._send(conn, request_id, frame.get("params") or {})
        elif method == "recvack" and request_id is None:
            conn.acked.append(str((frame.get("params") or {}).get("messageId")))
        else:
            return False  # unknown method or shape: the server closes the socket
        return True

    def _payload_bytes(self, value: Any) -> bytes:
        if self.line == "v2":
            return json.dumps(value, ensure_ascii=False).encode()  # json.RawMessage: the value byte for byte
        if value is None:
            return b""
        if isinstance(value, str):
            try:
                json.loads(value)
                return value.encode()
            except ValueError:
                return base64.b64decode(value, validate=True)
        return json.dumps(value, ensure_ascii=False).encode()

    def allowed(self, sender: str, receiver: str) -> bool:
        return (self.whitelist_off_of_person or sender in self.system_uids or receiver in self.system_uids
                or sender in self.whitelist.get(receiver, set()))

    async def _send(self, conn: Conn, request_id: str, params: dict[str, Any]) -> None:
        header = {k: v for k, v in (params.get("header") or {}).items() if v}
        code, message = SUCCESS, None
        if int(params.get("channelType", 0)) != 1:
            code = 23
        elif not self.allowed(conn.uid, params.get("channelId", "")):
            code = NOT_IN_WHITELIST
        else:
            message = self.store(conn.uid, params["channelId"], self._payload_bytes(params.get("payload")),
                                 str(params.get("clientMsgNo") or ""), header)
        if code != SUCCESS:
            if self.line == "compat":
                await self._reply(conn, {"id": request_id, "error": {"code": code, "message": NAMES.get(code, "")}})
            else:
                await self._reply(conn, {"id": request_id, "result": {"messageId": "0", "messageSeq": 0,
                                                                      "reasonCode": code}})
            return
        assert message is not None
        result: dict[str, Any] = {"messageId": str(message.message_id), "messageSeq": message.message_seq,
                                  "reasonCode": SUCCESS}
        if self.line == "compat":
            result.update(message_id=result["messageId"], message_seq=message.message_seq, reason_code=SUCCESS)
        await self._reply(conn, {"id": request_id, "result": result})
        await self.deliver(message)

    def store(self, sender: str, receiver: str, payload: bytes, client_msg_no: str,
              header: dict[str, bool]) -> Message:
        message_id, self._next_id = self._next_id, self._next_id + 1
        key = tuple(sorted((sender, receiver)))
        log = self.channels.setdefault(key, [])  # type: ignore[arg-type]
        persist = not header.get("noPersist")
        message = Message(message_id, len(log) + 1 if persist else 0, client_msg_no, sender, receiver,
                          int(time.time()), payload, header)
        if persist:
            log.append(message)
        return message

    def _recv_frame(self, message: Message) -> dict[str, Any] | None:
        params: dict[str, Any] = {"messageId": str(message.message_id), "messageSeq": message.message_seq,
                                  "timestamp": message.timestamp, "channelId": message.from_uid, "channelType": 1,
                                  "fromUid": message.from_uid}
        if message.client_msg_no:
            params["clientMsgNo"] = message.client_msg_no
        if self.line == "compat":
            params["header"] = dict(message.header)
            try:
                value = json.loads(message.payload)
            except ValueError:
                value = None
            params["payload"] = value if isinstance(value, dict) else base64.b64encode(message.payload).decode()
        else:
            if message.header:
                params["header"] = dict(message.header)
            try:
                params["payload"] = json.loads(message.payload)
            except ValueError:
                return None  # Go cannot marshal invalid json.RawMessage: the real server drops it
        return {"method": "recv", "params": params}

    async def deliver(self, message: Message) -> None:
        frame = self._recv_frame(message)
        if frame is None:
            return
        for conn in [c for c in self.conns if c.uid == message.to_uid and c.authed]:
            with contextlib.suppress(websockets.ConnectionClosed):
                await self._reply(conn, frame)

    # ---- HTTP API --------------------------------------------------------------------------------------

    async def _http_conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode()
            headers: dict[str, str] = {}
            while (line := (await reader.readline()).decode().strip()):
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            self._carry(body)
            method, path, _ = request_line.split(" ", 2)
            status, answer = await self._api(method, path, headers, json.loads(body) if body else None)
            data = json.dumps(answer).encode()
            self._carry(data)
            writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                         "Connection: close\r\n\r\n".encode() + data)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    async def _api(self, method: str, path: str, headers: dict[str, str], body: Any) -> tuple[int, Any]:
        self.http_calls.append(path)
        if self.manager_token and headers.get("token") != self.manager_token:
            return 401, {"msg": "token错误", "status": 401}
        if method != "POST":
            return 404, {"msg": "not found", "status": 404}
        if path == "/user/token":
            self.tokens[(body["uid"], int(body.get("device_flag", 0)))] = body["token"]
        elif path == "/user/systemuids_add":
            self.system_uids.update(body["uids"])
        elif path == "/channel/whitelist_add":
            self.whitelist.setdefault(body["channel_id"], set()).update(body["uids"])
        elif path == "/channel/messagesync":
            return 200, self._messagesync(body)
        elif path == "/message/send":
            payload = base64.b64decode(body["payload"])
            header = {"redDot": bool((body.get("header") or {}).get("red_dot"))}
            message = self.store(body["from_uid"], body["channel_id"], payload, body.get("client_msg_no", ""), header)
            await self.deliver(message)
            return 200, {"message_id": message.message_id, "message_seq": message.message_seq}
        else:
            return 404, {"msg": "not found", "status": 404}
        return 200, {"status": 200}

    def _messagesync(self, body: dict[str, Any]) -> dict[str, Any]:
        log = self.history(body["login_uid"], body["channel_id"])
        start, end, limit = int(body.get("start_message_seq", 0)), int(body.get("end_message_seq", 0)), int(
            body.get("limit", 100))
        if start == 0 and end == 0:
            chosen, more = log[-limit:], 0  # both 0: the newest `limit` messages
        elif int(body.get("pull_mode", 0)) == 1:
            window = [m for m in log if m.message_seq >= start and (end == 0 or m.message_seq < end)]
            chosen, more = window[:limit], int(len(window) > limit)
        else:
            window = [m for m in reversed(log) if m.message_seq <= start and (end == 0 or m.message_seq > end)]
            chosen, more = list(reversed(window[:limit])), int(len(window) > limit)
        return {"start_message_seq": start, "end_message_seq": end, "more": more, "messages": [{
            "header": {"no_persist": int(m.header.get("noPersist", False)), "red_dot": int(m.header.get("redDot", False)),
                       "sync_once": int(m.header.get("syncOnce", False))},
            "setting": 0, "message_id": m.message_id, "message_idstr": str(m.message_id),
            "client_msg_no": m.client_msg_no, "message_seq": m.message_seq, "from_uid": m.from_uid,
            "channel_id": m.to_uid if m.from_uid == body["login_uid"] else m.from_uid, "channel_type": 1,
            "timestamp": m.timestamp, "payload": base64.b64encode(m.payload).decode()} for m in chosen]}
