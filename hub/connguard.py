"""Connection limits at the protocol level: a request deadline, a header size cap and a per-address connection cap.

uvicorn closes a connection idle after a response (`timeout_keep_alive`) but has no deadline for a request that
never completes: a client that sends half its headers, or a byte of body every few seconds, keeps its socket
forever, and ~1,000 such sockets exhaust the process's file descriptors (every other request, and the chain
anchor, then fail with EMFILE). httptools also keeps headers without any size limit. `guarded_protocol` wraps
uvicorn's HTTP protocol class (httptools or h11) so that:

- a whole request (head and body) must arrive within `request_timeout_s` of the connection opening or of the
  previous answer, or the connection is closed (a WebSocket, once upgraded, is no longer timed here: the socket
  layer has its own hello timeout and heartbeats); a body still arriving at BODY_PROGRESS_BYTES or more per such
  window (a file upload, `POST /api/files`, up to `max_file_bytes`) gets another window, so a large file on a slow
  link is not cut off while a trickle still is;
- a request head (URL and headers) larger than `max_header_bytes` is answered 431 (or 400, when the parser reports
  it) and closed; only bytes of an unfinished head count, never a body's;
- one address holds at most `max_connections_per_address` connections (an IPv6 host counts as its /64, which it
  can fill at will); the hub's own machine (127.0.0.1, ::1: the owner's browser, local agents, the CLI) has the
  larger `max_connections_per_local_address`;
- connections from anywhere else are refused once fewer than `connections_reserved_local` descriptors remain
  under the file limit, so the hub's own machine keeps capacity; its own connections leave FILES_RESERVE for the
  hub's files (the database, the chain anchor).

A refused connection gets a one-shot 429 in the hub's error shape and is closed before anything is read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from typing import Any

try:
    import resource
except ImportError:  # Windows: no RLIMIT_NOFILE (its socket limit is far higher)
    resource = None  # type: ignore[assignment]  # the module or None: file_limit() checks first

log = logging.getLogger("lineup.connections")

SWEEP_EVERY = 256  # admissions between sweeps of closed connections (WebSockets leave without telling us)
FILES_RESERVE = 64  # descriptors no connection takes: the database, its WAL, the chain anchor, logs, plugins


def address_key(host: str, own: str = "") -> tuple[str, bool]:
    """(whose connections these are, is it the hub's own machine): an IPv4 address or an IPv6 /64; the machine
    itself is 127.0.0.1, ::1, or a peer whose address is the very address it connected to (a local agent that
    uses the LAN address). Other loopback addresses (127.0.0.2 ...) are nobody's usual way in: counted like a
    LAN host."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown", False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if str(address) in ("127.0.0.1", "::1") or (own and host == own):
        return str(address), True
    if isinstance(address, ipaddress.IPv6Address) and not address.is_loopback:
        return str(ipaddress.ip_network(f"{address}/64", strict=False)), False
    return str(address), False


def refusal(message: str) -> bytes:
    body = json.dumps({"error": {"code": "rate_limited", "message": message,
                                 "hint": "Close some connections to the hub, then try again."}}).encode()
    return (b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body))


IDLE, HEAD, BODY = "idle", "head", "body"  # where httptools stands in the connection's byte stream
# A request body that brought at least this much in the last `request_timeout_s` may take another window (64 KiB in
# 10 s: 6.4 KiB/s, slower than any real upload; every other route's body is at most max_body_bytes anyway).
BODY_PROGRESS_BYTES = 64 * 1024

HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                  b"connection: close\r\ncontent-length: 25\r\n\r\nRequest head too large.\r\n")


def file_limit() -> int:
    if resource is None:
        return 1 << 20
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


class ConnectionGuard:
    """The shared book of open connections by address, for every protocol instance of one server."""

    def __init__(self, *, request_timeout_s: float, max_header_bytes: int, per_address: int,
                 per_local_address: int, reserved_local: int) -> None:
        self.request_timeout_s = request_timeout_s
        self.max_header_bytes = max_header_bytes
        self.per_address = per_address
        self.per_local_address = per_local_address
        self.reserved_local = reserved_local
        self.open: dict[str, set[asyncio.BaseTransport]] = {}
        self._admitted = 0

    def _sweep(self) -> None:
        for key, transports in list(self.open.items()):
            transports.difference_update([t for t in transports if t.is_closing()])
            if not transports:
                del self.open[key]

    def admit(self, transport: asyncio.BaseTransport, host: str, own: str, total_open: int) -> str | None:
        """Book the connection, or say why it is refused."""
        key, local = address_key(host, own)
        self._admitted += 1
        if self._admitted % SWEEP_EVERY == 0:
            self._sweep()
        if total_open >= file_limit() - (FILES_RESERVE if local else self.reserved_local):
            return "The hub has too many connections open; try again later."
        cap = self.per_local_address if local else self.per_address
        booked = self.open.setdefault(key, set())
        if len(booked) >= cap:
            booked.difference_update([t for t in booked if t.is_closing()])
            if len(booked) >= cap:
                return f"Too many connections from your address (at most {cap})."
        booked.add(transport)
        return None

    def release(self, transport: asyncio.BaseTransport, host: str, own: str) -> None:
        key, _ = address_key(host, own)
        booked = self.open.get(key)
        if booked is not None:
            booked.discard(transport)
            if not booked:
                del self.open[key]


class _Guarded:
    """Mixed in before uvicorn's HttpToolsProtocol or H11Protocol (both have the hooks used here).

    Its `super().<hook>()` calls reach the protocol class it is mixed into, which mypy cannot see from here (the
    mixin has no such base): hence the `type: ignore[misc]` on each of them."""

    guard: ConnectionGuard
    _count_heads: bool  # the parser reports where a head ends (httptools); h11 limits heads itself
    transport: Any
    loop: asyncio.AbstractEventLoop
    connections: set[Any]
    cycle: Any

    def connection_made(self, transport: Any) -> None:
        self._deadline: asyncio.TimerHandle | None = None
        self._head_bytes = 0  # raw bytes of the current request head received so far (httptools)
        self._head_parsed = 0  # URL and header bytes the parser reported for the current head
        self._phase = IDLE  # where the parser stands: between requests, in a head, or past it (its body)
        self._heads_begun = 0  # heads the parser began within the chunk being fed
        self._window_bytes = 0  # body bytes received in the current request window
        self._booked: tuple[str, str] | None = None
        peer = transport.get_extra_info("peername")
        local = transport.get_extra_info("sockname")
        host = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else ""
        own = str(local[0]) if isinstance(local, (tuple, list)) and local else ""
        why = self.guard.admit(transport, host, own, len(self.connections))
        if why is not None:
            log.warning("refused a connection from %s: %s", host, why)
            self._refused = True
            transport.write(refusal(why))
            transport.close()
            return
        self._refused = False
        self._booked = (host, own)
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._refused:
            return
        if self._booked is not None:
            self.guard.release(self.transport, *self._booked)
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        phase_before = self._phase
        self._heads_begun = 0
        super().data_received(data)  # type: ignore[misc]
        if self._phase == BODY or not self._count_heads:  # h11 tells no phase: every byte counts
            self._window_bytes += len(data)
        if self._count_heads and self._phase == HEAD and not self.transport.is_closing():
            # httptools buffers an incomplete head (a header value without its end of line is kept whole), so an
            # endless head is cut here, within a read or two of the limit. Only bytes known to be the unfinished
            # head's are counted: a chunk that stays inside one head, or whose head began with the chunk's first
            # byte (nothing of an earlier request before it). A chunk that also holds an earlier request's end
            # (its head's end, its body) is not counted at all: where the new head starts in it is unknown, and a
            # body is no head (counting it cut a legitimate 70 KiB body with 431); the next chunk is counted.
            if self._heads_begun == 0 or (self._heads_begun == 1 and phase_before == IDLE):
                self._head_bytes += len(data)
            if self._head_bytes > self.guard.max_header_bytes:
                self.transport.write(HEAD_TOO_LARGE)
                self.transport.close()

    def eof_received(self) -> Any:
        if self._refused:
            return None
        return super().eof_received()  # type: ignore[misc]

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm()  # the next request has the same time to arrive

    def handle_websocket_upgrade(self, *args: Any) -> None:
        # The connection now belongs to the WebSocket protocol (its hello timeout and heartbeats); it stays booked
        # for its address until it closes (the sweep notices).
        self._disarm()
        super().handle_websocket_upgrade(*args)  # type: ignore[misc]

    # Called by httptools only; h11 never calls them (its own limit on an incomplete head is set in uvicorn's
    # config: h11_max_incomplete_event_size).
    def on_message_begin(self) -> None:
        self._phase = HEAD
        self._heads_begun += 1
        self._head_bytes = 0
        self._head_parsed = 0
        super().on_message_begin()  # type: ignore[misc]

    def on_headers_complete(self) -> None:
        self._phase = BODY
        self._head_bytes = 0
        super().on_headers_complete()  # type: ignore[misc]

    def on_message_complete(self) -> None:
        self._phase = IDLE  # what follows begins a new head (or is ignored after a request with Connection: close)
        super().on_message_complete()  # type: ignore[misc]

    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)  # type: ignore[misc]

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)
        super().on_header(name, value)  # type: ignore[misc]

    def _count_head(self, size: int) -> None:
        self._head_parsed += size
        if self._head_parsed > self.guard.max_header_bytes:
            # Raised inside a parser callback: httptools turns it into a parser error, which uvicorn answers with
            # 400 and closes.
            raise ValueError("request head too large")

    def _arm(self) -> None:
        self._disarm()
        self._window_bytes = 0  # body bytes received since this deadline was set
        if self.guard.request_timeout_s > 0 and not self.transport.is_closing():
            self._deadline = self.loop.call_later(self.guard.request_timeout_s, self._deadline_passed)

    def _disarm(self) -> None:
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._deadline = None

    def _deadline_passed(self) -> None:
        self._deadline = None
        cycle = self.cycle
        if cycle is not None and not cycle.more_body and not cycle.response_complete:
            return  # the request is whole and being answered: the next deadline starts with the answer
        # A large body still arriving at a fair pace, or one the route is slow to take (uvicorn stopped reading the
        # socket until it does): another window.
        paused = bool(getattr(getattr(self, "flow", None), "read_paused", False))
        if cycle is not None and cycle.more_body and not cycle.response_complete and not self.transport.is_closing() \
                and (self._window_bytes >= BODY_PROGRESS_BYTES or paused):
            self._arm()
            return
        if not self.transport.is_closing():
            self.transport.close()


def guarded_protocol(base: type[asyncio.Protocol], guard: ConnectionGuard) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with the guard mixed in (pass it to uvicorn.Config(http=...))."""
    return type(f"Guarded{base.__name__}", (_Guarded, base),
                {"guard": guard, "_count_heads": hasattr(base, "on_headers_complete")})


def raise_file_limit() -> int | None:
    """Raise the soft limit on open files to the hard one (the common 1,024 is exhausted by ~1,000 idle sockets);
    returns the limit now in force, or None where there is none to raise."""
    if resource is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard
    if target == resource.RLIM_INFINITY:
        target = 1 << 20  # macOS refuses "unlimited" (its kernel cap is kern.maxfilesperproc); Linux's own cap
    if soft != resource.RLIM_INFINITY and soft >= target:
        return soft
    for attempt in (target, 10240):  # 10240: OPEN_MAX on macOS, when the hard limit is "unlimited"
        if soft != resource.RLIM_INFINITY and attempt <= soft:
            continue
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (attempt, hard))
            log.debug("open file limit raised from %d to %d", soft, attempt)
            return attempt
        except (ValueError, OSError):
            continue
    log.warning("could not raise the open file limit above %d", soft)
    return soft
