"""Who is calling an HTTP endpoint: the bearer device token, checked on every request."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import msgspec
from starlette.requests import Request

from hub.auth.lookup import app_actor
from hub.gateway.admission import origin_allowed
from hub.protocol.actors import Actor
from hub.protocol.errors import APP_SIGN_IN_HINT, LapError
from hub.web.errors import BodyTooLarge
from hub.web.port import hub_of


def relayed_caller(request: Request) -> Actor | None:
    """The device a request that came through the relay runs as (hub/relay/requests.py sets it on the ASGI scope,
    which no socket can); None for every request from the network."""
    actor = request.scope.get("lineup.relay_actor")
    return actor if isinstance(actor, Actor) else None


async def require_user(request: Request) -> Actor:
    relayed = relayed_caller(request)
    if relayed is not None:
        return relayed
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise LapError("unauthorized", "Sign in first: send `Authorization: Bearer <token>`.", hint=APP_SIGN_IN_HINT)
    actor = await app_actor(hub_of(request), token.strip())
    if actor is None:
        raise LapError("unauthorized", "The token is unknown or has been revoked.", hint=APP_SIGN_IN_HINT)
    return actor


def check_origin(request: Request) -> None:
    if not origin_allowed(request.headers):
        raise LapError("forbidden", "Requests from another site are refused.",
                       hint="Open the app from the hub's own address.")


async def json_body(request: Request, kind: type[Any]) -> Any:
    """Decode and validate a JSON body; a bad one is `invalid_payload` naming the field."""
    check_origin(request)
    # hub/web/bodylimit.py has refused a larger body before reading it; this check stays for any other server.
    limit = hub_of(request).settings.max_body_bytes
    body = await request.body()
    if len(body) > limit:
        raise BodyTooLarge(limit)
    try:
        return msgspec.json.decode(body or b"{}", type=kind)
    except msgspec.ValidationError as exc:
        raise LapError("invalid_payload", f"Invalid request: {exc}") from None
    except msgspec.DecodeError:
        raise LapError("invalid_json", "The request body is not valid JSON.") from None


FORWARDING_HEADERS = ("forwarded", "x-forwarded-for", "x-real-ip")


def _peer(request: Request) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(request.client.host if request.client else "")
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _loopback_name(host_header: str) -> bool:
    try:
        name = urlsplit("//" + host_header).hostname or ""
    except ValueError:
        return False
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def client_is_loopback(request: Request) -> bool:
    """The person at the hub's own machine: a loopback peer that asked for a loopback name.

    A web page whose DNS name was re-pointed at 127.0.0.1 (DNS rebinding) also connects from loopback, but with
    its own name in Host; a reverse proxy on this machine connects from loopback on behalf of others and says so
    in forwarding headers. Neither is the person at the machine.
    """
    peer = _peer(request)
    if peer is None or not peer.is_loopback or any(h in request.headers for h in FORWARDING_HEADERS):
        return False
    return _loopback_name(request.headers.get("host", ""))


def client_key(request: Request) -> str:
    """Whose guesses these are, for the guess limits: the person at the hub's machine is one guesser (any 127.x),
    a loopback peer asking for another name a second one, an IPv6 host is its /64 (it can take any address in
    it), an IPv4 host is its address."""
    peer = _peer(request)
    if peer is None:
        return "unknown"
    if peer.is_loopback:
        # The person at the machine (a loopback name in Host) is one guesser; a loopback peer that asked for
        # another name (a DNS-rebound page, a local proxy) is another, so its guesses never spend the owner's.
        return "loopback" if client_is_loopback(request) else "loopback-other"
    if isinstance(peer, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{peer}/64", strict=False))
    return str(peer)
