"""HTTP routes of notifications: the delivery log, the test button, and action links from notifications."""

from __future__ import annotations

from typing import Annotated

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.notify.actions import use_action_link
from hub.protocol.errors import LapError
from hub.web.accounts import too_many
from hub.web.auth import client_key, json_body, require_user
from hub.web.port import hub_of


class TestRequest(msgspec.Struct):
    channel: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class ActionRequest(msgspec.Struct):
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


async def delivery_log(request: Request) -> JSONResponse:
    actor = await require_user(request)
    return JSONResponse(await hub_of(request).notifier.delivery_log(actor.workspace_id))


async def send_test(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, TestRequest)
    unknown = await hub_of(request).notifier.send_test(actor.workspace_id, body.channel)
    if unknown:
        raise LapError("not_found", f"No notification channel {unknown[0]!r} is configured.",
                       hint="Configure it in the [notify] table of lineup.toml and restart the hub.")
    return JSONResponse({"queued": True}, status_code=202)


async def use_action(request: Request) -> JSONResponse:
    """A notification's button: the single-use token is the authorisation (it travels in the body only)."""
    hub = hub_of(request)
    key = "action:" + client_key(request)
    attempt = hub.sign_in_limiter.attempt(key)  # counted before the token is checked (hub/auth/limits.py)
    if attempt is None:
        return too_many("Too many invalid action links from this address; wait a few minutes.",
                        hub.sign_in_limiter.retry_after(key))
    with attempt.settled(wrong={"unauthorized"}):  # a used or expired link was a real one: not a guess
        body = await json_body(request, ActionRequest)
        result = await hub.execute(use_action_link(body.token))
    return JSONResponse({"done": True, **result})


routes = [
    Route("/api/notifications", delivery_log),
    Route("/api/notifications/test", send_test, methods=["POST"]),
    Route("/api/actions", use_action, methods=["POST"]),
]
