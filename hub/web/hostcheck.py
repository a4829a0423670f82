"""Refuse requests whose Host is not one of the hub's own names: the defence against DNS rebinding."""

from __future__ import annotations

import ipaddress
import json
import socket
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from hub.netaddr import configured_public_url
from hub.web.port import WebHub, hub_in_scope


def host_name(host_header: str) -> str | None:
    """The name (or address) in a Host header, lower case, without port or trailing dot; None if malformed."""
    try:
        name = urlsplit("//" + host_header).hostname
    except ValueError:
        return None
    return name.rstrip(".").lower() if name else None


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def own_names(hub: WebHub | None) -> set[str]:
    """The names a person or agent may use for this hub: localhost, the machine's name (plain and `.local`), the
    name it advertises over mDNS, the host it was told to listen on, and the configured `public_url`."""
    names = {"localhost"}
    machine = socket.gethostname().rstrip(".").lower()
    if machine:
        short = machine.split(".")[0]
        names |= {machine, short, f"{short}.local"}
    if hub is None:
        return names
    info = hub.advertiser.info if hub.advertiser is not None else None
    if info is not None and info.server:
        names.add(info.server.rstrip(".").lower())
    for url in (configured_public_url(hub), hub.public_url, hub.url):
        name = urlsplit(url).hostname if url else None
        if name:
            names.add(name.rstrip(".").lower())
    if hub.settings.host:
        names.add(hub.settings.host.rstrip(".").lower())
    return names


def host_allowed(host_header: str | None, hub: WebHub | None) -> bool:
    """Every IP literal is allowed, names only from `own_names`.

    DNS rebinding needs a *name* the attacker controls (the browser sends that name as Host, since it believes
    it is talking to the attacker's site); a page cannot make a browser send an IP literal of the hub's machine
    as Host without being at that address, and then it is the hub's own origin. So any IP literal is safe, and
    allowing them all keeps working every address the hub is reached at (LAN addresses, network namespaces,
    127.0.0.2, addresses added after start) without tracking the machine's interfaces.
    """
    if not host_header:
        return True  # HTTP/1.0 clients without Host; a browser always sends one
    name = host_name(host_header)
    if name is None:
        return False
    return is_ip_literal(name) or name in own_names(hub)


class HostCheck:
    """Plain ASGI middleware: HTTP with a foreign Host gets 421, a WebSocket handshake is refused (403)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        hosts = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"]
        hub = hub_in_scope(scope)
        # Two Host headers are refused (RFC 9112 §3.2: 400): a proxy and the hub could each read another one.
        if len(hosts) <= 1 and host_allowed(hosts[0] if hosts else None, hub):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": {
            "code": "forbidden", "message": "This hub does not answer to that name.",
            "hint": "Open the hub at its own address (its IP address, localhost, its .local name or public_url)."}
        }).encode()
        await send({"type": "http.response.start", "status": 421, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
