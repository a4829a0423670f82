"""One port, two ways in: a connection that opens with a TLS handshake is served over TLS, any other as plain HTTP.

A TLS connection's first byte is 0x16 (a handshake record); an HTTP request starts with a method's letter. The
byte is peeked (MSG_PEEK), not read, so the connection is then handed whole to the event loop
(`connect_accepted_socket`, with or without the SSL context) and served by uvicorn's own protocol, the
connection limits (hub/connguard.py) included. A connection waiting for its first byte is booked with that
guard too (so the per-address cap refuses at once, with its 429, as on a plain port), waits at most the request
deadline, and at most MAX_UNDECIDED connections from other machines wait at once; the hub's own machine always
gets in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Callable

from hub.connguard import ConnectionGuard, refusal
from hub.netaddr import is_loopback_host

log = logging.getLogger("lineup.tls")

TLS_HANDSHAKE = 0x16
MAX_UNDECIDED = 512


class SniffingServer:
    """What uvicorn keeps in `Server.servers` for the main socket: `close()` and `wait_closed()`."""

    def __init__(self, sock: socket.socket, protocol_factory: Callable[[], asyncio.BaseProtocol],
                 context: ssl.SSLContext, *, timeout_s: float, backlog: int = 2048,
                 guard: ConnectionGuard | None = None, open_count: Callable[[], int] = lambda: 0) -> None:
        self.sock = sock
        self.protocol_factory = protocol_factory
        self.context = context  # replaced when the leaf is renewed: new connections get the new certificate
        self.timeout_s = timeout_s
        self.backlog = backlog
        self.guard = guard
        self.open_count = open_count  # connections being served now (uvicorn's server state)
        self._accepting: asyncio.Task[None] | None = None
        self._undecided: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self.sock.listen(self.backlog)  # what loop.create_server would do with a bound socket
        self.sock.setblocking(False)
        self._accepting = asyncio.get_running_loop().create_task(self._accept(), name="lineup-accept")

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, peer = await loop.sock_accept(self.sock)
            except OSError as exc:  # EMFILE and the like: the guard refuses the rest; do not spin
                log.warning("accepting a connection failed: %s", exc)
                await asyncio.sleep(0.1)
                continue
            if len(self._undecided) >= MAX_UNDECIDED and not is_loopback_host(str(peer[0])):
                conn.close()
                continue
            task = loop.create_task(self._serve(conn))
            self._undecided.add(task)
            task.add_done_callback(self._undecided.discard)

    async def _serve(self, conn: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        conn.setblocking(False)
        waiting = Waiting(conn)
        try:
            host, own = str(conn.getpeername()[0]), str(conn.getsockname()[0])
        except OSError:
            conn.close()
            return
        if self.guard is not None:
            why = self.guard.admit(waiting, host, own, self.open_count() + len(self._undecided))
            if why is not None:
                log.warning("refused a connection from %s: %s", host, why)
                with contextlib.suppress(OSError):
                    conn.send(refusal(why))
                conn.close()
                return
        try:
            async with asyncio.timeout(self.timeout_s):
                first = await first_byte(loop, conn)
        except (TimeoutError, OSError):
            conn.close()
            return
        finally:  # the protocol books the connection itself once it has it
            if self.guard is not None:
                self.guard.release(waiting, host, own)
        if not first:  # closed before saying anything
            conn.close()
            return
        context = self.context if first[0] == TLS_HANDSHAKE else None
        try:
            await loop.connect_accepted_socket(self.protocol_factory, conn, ssl=context,
                                               ssl_handshake_timeout=self.timeout_s if context else None)
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError) as exc:
            log.debug("a TLS handshake failed: %s", exc)  # an untrusting browser, a scanner: nothing to log
            conn.close()

    def close(self) -> None:
        if self._accepting is not None:
            self._accepting.cancel()
        for task in list(self._undecided):
            task.cancel()

    async def wait_closed(self) -> None:
        tasks = [task for task in (self._accepting, *self._undecided) if task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)


class Waiting(asyncio.BaseTransport):
    """A connection in the guard's book while its first byte is awaited (the guard sweeps closed ones)."""

    def __init__(self, conn: socket.socket) -> None:
        super().__init__()
        self.conn = conn

    def is_closing(self) -> bool:
        return self.conn.fileno() == -1


async def first_byte(loop: asyncio.AbstractEventLoop, conn: socket.socket) -> bytes:
    """The connection's first byte, left in the socket for whoever reads it next."""
    readable = loop.create_future()

    def ready() -> None:
        if not readable.done():
            readable.set_result(None)

    try:
        loop.add_reader(conn.fileno(), ready)
    except NotImplementedError:  # Windows' proactor loop has no readers: peek in a thread instead
        conn.settimeout(None)
        try:
            return await loop.run_in_executor(None, conn.recv, 1, socket.MSG_PEEK)
        finally:
            conn.setblocking(False)
    try:
        await readable
    finally:
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(conn.fileno())
    return conn.recv(1, socket.MSG_PEEK)
