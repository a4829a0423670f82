"""Security headers on every HTTP answer: no inline script, no framing, no referrer (seed 002 §11)."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{relay}; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def relay_origin(scope: Scope) -> str:
    """The WuKongIM address the app's relay client connects to (docs/relay.md), allowed in connect-src."""
    hub = getattr(getattr(scope.get("app"), "state", None), "hub", None)
    config = getattr(getattr(hub, "relay", None), "config", None)
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
                message["headers"] = list(message.get("headers", [])) + [policy] + HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)
