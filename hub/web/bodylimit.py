"""Request bodies are bounded before they are read: by Content-Length at once, and while reading otherwise.

One ASGI middleware for every HTTP route, the app's and the plugins': a route cannot forget the limit. A body
announced larger than `max_body_bytes` is refused (413, the hub's error shape) without reading a byte of it; a
chunked body (no Content-Length) is refused as soon as what was read passes the limit. Either way the connection
is closed after the answer, so the rest of the body is never read either.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.web.errors import BodyTooLarge, error_response


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = [value for name, value in scope["headers"] if name == b"content-length"]
        if declared and (len(declared) > 1 or not declared[0].strip().isdigit()
                         or int(declared[0]) > self.max_bytes):
            await self._refuse(scope, receive, send)
            return

        read = 0
        cut = False
        started = False

        async def bounded_receive() -> Message:
            nonlocal read, cut
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > self.max_bytes:
                    cut = True
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def closing_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cut:  # the rest of the body is still on its way: do not read it, close after this answer
                    message["headers"] = [*message.get("headers", []), (b"connection", b"close")]
            await send(message)

        try:
            await self.app(scope, bounded_receive, closing_send)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(BodyTooLarge(self.max_bytes))
        response.headers["connection"] = "close"
        await response(scope, receive, send)
