"""Plain HTTP sends a device to https once that device has opened the hub over https (so it trusts the hub's CA).

How the hub knows: an app page served over https sets the cookie `lineup_https` (not Secure, so the browser also
sends it to the same host over http; cookies are per host, not per scheme or port). A page load over https proves
the browser accepted the certificate. A navigation over http that carries the cookie, to a name the certificate
is valid for, is redirected (307) to the same address over https; everything else (agents, the CLI, curl, a device
that never trusted the hub, API calls) is served over plain HTTP as before. `?plain=1` on a page load over http
stays on http and clears the cookie: the way back for a device that removed the CA.
"""

from __future__ import annotations

import contextlib
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.ca.https import LanHttps
from hub.web.hostcheck import host_name

COOKIE = "lineup_https"
MAX_AGE_S = 30 * 24 * 3600  # renewed at every page load over https; a device that stopped trusting ages out
SET = f"{COOKIE}=1; Path=/; Max-Age={MAX_AGE_S}; SameSite=Lax; HttpOnly".encode()
CLEAR = f"{COOKIE}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly".encode()


def _header(scope: Scope, name: bytes) -> str | None:
    values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]
    return values[0] if len(values) == 1 else None


def is_navigation(scope: Scope) -> bool:
    """A page load: GET or HEAD of a document (Sec-Fetch-Mode: navigate; older browsers: an Accept of HTML)."""
    if scope.get("method") not in ("GET", "HEAD"):
        return False
    mode = _header(scope, b"sec-fetch-mode")
    if mode is not None:
        return mode == "navigate"
    return "text/html" in (_header(scope, b"accept") or "")


def has_cookie(scope: Scope) -> bool:
    """Whether the request carries `lineup_https=1` (a malformed Cookie header carries no cookie of ours)."""
    jar: SimpleCookie = SimpleCookie()
    for key, value in scope.get("headers", ()):
        if key == b"cookie":
            with contextlib.suppress(CookieError):
                jar.load(value.decode("latin-1"))
    return COOKIE in jar and jar[COOKIE].value == "1"


class HttpsWhenTrusted:
    """Outermost ASGI middleware of the hub's app (hub/server.py), while the hub serves https on its port."""

    def __init__(self, app: ASGIApp, https: LanHttps) -> None:
        self.app = app
        self.https = https

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.https.context is None or not is_navigation(scope):
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if scope.get("scheme") == "https":
            await self.app(scope, receive, with_cookie(send, SET))
            return
        if b"plain=1" in scope.get("query_string", b"") and parse_qs(scope["query_string"].decode("latin-1"))\
                .get("plain") == ["1"]:
            await self.app(scope, receive, with_cookie(send, CLEAR))
            return
        if host and has_cookie(scope) and self.https.covers(host_name(host)):
            path = scope.get("raw_path") or scope["path"].encode()
            query = scope.get("query_string", b"")
            location = f"https://{host}".encode("latin-1") + path + (b"?" + query if query else b"")
            await send({"type": "http.response.start", "status": 307, "headers": [
                (b"location", location), (b"content-length", b"0"), (b"cache-control", b"no-store"),
                (b"referrer-policy", b"no-referrer")]})
            await send({"type": "http.response.body", "body": b""})
            return
        await self.app(scope, receive, send)


def with_cookie(send: Send, cookie: bytes) -> Send:
    """`send` adding the Set-Cookie to an HTML answer (the app's page; never to a file or an API answer)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers):
                message["headers"] = [*headers, (b"set-cookie", cookie)]
        await send(message)

    return sending
