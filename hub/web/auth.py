"""Who is calling an HTTP endpoint: the bearer device token, checked on every request."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request

from hub.auth.lookup import app_actor
from hub.domain.actors import Actor
from hub.protocol.errors import LapError
from hub.web.origin import origin_allowed


async def require_user(request: Request) -> Actor:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise LapError("unauthorized", "Sign in first: send `Authorization: Bearer <token>`.")
    actor = await app_actor(request.app.state.hub, token.strip())
    if actor is None:
        raise LapError("unauthorized", "The token is unknown or has been revoked.")
    return actor


def check_origin(request: Request) -> None:
    if not origin_allowed(request.headers):
        raise LapError("forbidden", "Requests from another site are refused.",
                       hint="Open the app from the hub's own address.")


async def json_body(request: Request, kind: type[Any]) -> Any:
    """Decode and validate a JSON body; a bad one is `invalid_payload` naming the field."""
    check_origin(request)
    body = await request.body()
    if len(body) > 64 * 1024:
        raise LapError("invalid_payload", "The request body is too large.")
    try:
        return msgspec.json.decode(body or b"{}", type=kind)
    except msgspec.ValidationError as exc:
        raise LapError("invalid_payload", f"Invalid request: {exc}") from None
    except msgspec.DecodeError:
        raise LapError("invalid_json", "The request body is not valid JSON.") from None


def client_is_loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    return host in ("127.0.0.1", "::1", "localhost") or host.startswith("127.")
