"""Request bodies are bounded before they are read: by Content-Length at once, and while reading otherwise.

One ASGI middleware for every HTTP route, the app's and the plugins': a route cannot forget the limit. A body
announced larger than `max_body_bytes` is refused (413, the hub's error shape) without reading a byte of it; a
chunked body (no Content-Length) is refused as soon as what was read passes the limit. Either way the connection
is closed after the answer, so the rest of the body is never read either.

A few routes take larger bodies by design (`POST /api/files`: a file, up to `max_file_bytes`): `larger` names them
by method and exact path, each with its own limit and refusal, and the same rules apply with that limit, with one
difference: a body up to DRAIN_TIMES that limit is read to its end and thrown away (for at most DRAIN_S) before the
413 is sent. A client that sends a whole file before it reads the answer (browsers, curl, Python's http.client)
otherwise meets a connection reset by the hub's close instead of the answer that names the limit. Nothing of it is
kept; a body announced larger than that is refused at once, unread, as any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.protocol.errors import LapError
from hub.web.errors import BodyTooLarge, error_response

# (method, path) -> (the body limit of that route, the refusal past it)
Larger = Mapping[tuple[str, str], tuple[int, Callable[[int], LapError]]]
DRAIN_S = 30.0  # the longest a refused large body is read on before the answer goes anyway
DRAIN_TIMES = 4  # a refused body up to this many times its route's limit is read and thrown away first


async def _drain(receive: Receive, budget: int) -> None:
    """Read and throw away the rest of the request body: at most `budget` bytes, at most DRAIN_S."""
    try:
        async with asyncio.timeout(DRAIN_S):
            while budget > 0:
                message = await receive()
                if message["type"] != "http.request":
                    return
                budget -= len(message.get("body", b""))
                if not message.get("more_body", False):
                    return
    except TimeoutError:
        return


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int, larger: Larger | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, refusal = self.larger.get((scope["method"], scope["path"]), (self.max_bytes, BodyTooLarge))
        drain = (scope["method"], scope["path"]) in self.larger
        declared = [value for name, value in scope["headers"] if name == b"content-length"]
        if declared and (len(declared) > 1 or not declared[0].strip().isdigit()
                         or int(declared[0]) > limit):
            if drain and len(declared) == 1 and declared[0].strip().isdigit() \
                    and int(declared[0]) <= DRAIN_TIMES * limit:
                await _drain(receive, int(declared[0]))
            await self._refuse(scope, receive, send, refusal(limit))
            return

        read = 0
        cut = False
        started = False

        async def bounded_receive() -> Message:
            nonlocal read, cut
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > limit:
                    cut = True
                    raise _Cut(refusal(limit))
            return message

        async def closing_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cut:  # the rest of the body is still on its way: do not read it, close after this answer
                    message["headers"] = [*message.get("headers", []), (b"connection", b"close")]
                    if drain:
                        await _drain(receive, (DRAIN_TIMES - 1) * limit)
            await send(message)

        try:
            await self.app(scope, bounded_receive, closing_send)
        except BaseException as exc:
            # The route may have turned the cut into an error of its own, keeping ours as its cause.
            found = exc if isinstance(exc, _Cut) else exc.__cause__ or exc.__context__
            if not cut or started or not isinstance(found, _Cut):
                raise
            if drain:
                await _drain(receive, (DRAIN_TIMES - 1) * limit)
            await self._refuse(scope, receive, send, found.error)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, error: LapError) -> None:
        response = error_response(error)
        response.headers["connection"] = "close"
        await response(scope, receive, send)


class _Cut(LapError):
    """Raised from the route's `receive` when its body passed the limit; answered with `error`."""

    def __init__(self, error: LapError) -> None:
        super().__init__(error.code, error.message, error.hint, error.details)
        self.error = error

    @property
    def status(self) -> int:
        return self.error.status
