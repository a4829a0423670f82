"""A lean RFC 6455 client on an asyncio Protocol: frames are parsed in data_received and handed to a callback."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import struct
from collections.abc import Callable

try:
    from websockets.speedups import apply_mask  # C helper shipped with websockets
except ImportError:  # pragma: no cover
    def apply_mask(data: bytes, mask: bytes) -> bytes:
        n = len(data)
        key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
        return (int.from_bytes(data, "big") ^ key).to_bytes(n, "big")

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10
_pack_short = struct.Struct("!BBH").pack
_pack_long = struct.Struct("!BBQ").pack


def encode_frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked client frame (a fresh random mask each frame, as the RFC asks)."""
    n = len(payload)
    mask = os.urandom(4)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = _pack_short(0x80 | opcode, 0x80 | 126, n)
    else:
        head = _pack_long(0x80 | opcode, 0x80 | 127, n)
    return head + mask + apply_mask(payload, mask)


class WsClient(asyncio.Protocol):
    """One client socket. `on_text(bytes)` runs synchronously for every text message, in order."""

    def __init__(self, host: str, port: int, path: str, on_text: Callable[[bytes], None]) -> None:
        self.host, self.port, self.path = host, port, path
        self.on_text = on_text
        self.transport: asyncio.Transport | None = None
        self.opened = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()
        self.close_code: int | None = None
        self._buf = bytearray()
        self._upgraded = False
        self._key = base64.b64encode(os.urandom(16)).decode()
        self._fragments: list[bytes] = []

    @classmethod
    async def connect(cls, host: str, port: int, path: str, on_text: Callable[[bytes], None],
                      timeout_s: float = 10.0) -> WsClient:
        loop = asyncio.get_running_loop()
        _, proto = await asyncio.wait_for(
            loop.create_connection(lambda: cls(host, port, path, on_text), host, port), timeout_s)
        await asyncio.wait_for(asyncio.shield(proto.opened), timeout_s)
        return proto

    # ---- asyncio.Protocol ------------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports do not subclass asyncio's
        request = (f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {self._key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        transport.write(request.encode())

    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        if not self._upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[:end]).split(b"\r\n", 1)[0]
            del buf[:end + 4]
            if b" 101 " not in status + b" ":
                self._fail(ConnectionError(f"upgrade refused: {status.decode(errors='replace')}"))
                return
            self._upgraded = True
            if not self.opened.done():
                self.opened.set_result(None)
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            n = b1 & 0x7F
            head = 2
            if n == 126:
                if size - pos < 4:
                    break
                n = (buf[pos + 2] << 8) | buf[pos + 3]
                head = 4
            elif n == 127:
                if size - pos < 10:
                    break
                n = int.from_bytes(buf[pos + 2:pos + 10], "big")
                head = 10
            if size - pos < head + n:
                break
            payload = bytes(buf[pos + head:pos + head + n])
            pos += head + n
            self._frame(b0 & 0x80, b0 & 0x0F, payload)
        if pos:
            del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the upgrade"))
        if not self.closed.done():
            self.closed.set_result(self.close_code)

    # ---- frames ------------------------------------------------------------------------------------------

    def _frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode in (OP_TEXT, OP_CONT):
            if not fin or self._fragments:
                self._fragments.append(payload)
                if not fin:
                    return
                payload = b"".join(self._fragments)
                self._fragments.clear()
            self.on_text(payload)
        elif opcode == OP_PING:
            self._write(OP_PONG, payload)
        elif opcode == OP_CLOSE:
            self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            self._write(OP_CLOSE, payload[:2])
            if self.transport is not None:
                self.transport.close()

    def _write(self, opcode: int, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(encode_frame(opcode, payload))

    def _fail(self, exc: Exception) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc)
        if self.transport is not None:
            self.transport.close()

    # ---- API ---------------------------------------------------------------------------------------------

    def send_text(self, data: bytes) -> None:
        self._write(OP_TEXT, data)

    @property
    def is_open(self) -> bool:
        return self.transport is not None and not self.transport.is_closing() and not self.closed.done()

    @property
    def write_buffer(self) -> int:
        return self.transport.get_write_buffer_size() if self.transport is not None else 0

    async def close(self, code: int = 1000, timeout_s: float = 2.0) -> None:
        if self.is_open:
            self._write(OP_CLOSE, code.to_bytes(2, "big"))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.closed), timeout_s)
        if self.transport is not None:
            self.transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()
