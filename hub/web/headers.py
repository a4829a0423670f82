"""Security headers on every HTTP answer: no inline script, no framing, no referrer
(docs/design.md#security-baseline)."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.web.port import hub_in_scope

# img-src blob:: the app shows an uploaded image from a blob: URL it made of the bytes it fetched with its token
# (ui/lib/files.js): an <img src> cannot carry the Authorization header.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'{relay}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
# Nothing is stored by caches unless the answer says otherwise: only the web app's own files do
# (hub/web/static_app.py: versioned files for a year, the rest revalidated); API answers never.
NO_STORE = (b"cache-control", b"no-store")
NOSNIFF = HEADERS[0]
SUBRESOURCE = b"x-lineup-subresource"  # set by the app's file server on versioned subresources, never sent


def relay_origin(scope: Scope) -> str:
    """The WuKongIM address the app's relay client connects to (docs/relay.md), allowed in connect-src."""
    hub = hub_in_scope(scope)
    config = hub.relay.config if hub is not None else None
    url = (config.app_ws_url or config.ws_url) if config is not None and config.enabled else ""
    parts = urlsplit(url)
    return f" {parts.scheme}://{parts.netloc}" if parts.scheme in ("ws", "wss") and parts.netloc else ""


class SecurityHeaders:
    """A plain ASGI middleware (no BaseHTTPMiddleware: it would buffer and slow every response)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        policy = (b"content-security-policy", CSP.format(relay=relay_origin(scope)).encode())

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if (SUBRESOURCE, b"1") in headers:  # a versioned script, style or image (hub/web/static_app.py)
                    message["headers"] = [h for h in headers if h[0] != SUBRESOURCE] + [NOSNIFF]
                else:
                    cached = any(name.lower() == b"cache-control" for name, _ in headers)
                    message["headers"] = headers + [policy] + HEADERS + ([] if cached else [NO_STORE])
            await send(message)

        await self.app(scope, receive, send_with_headers)
