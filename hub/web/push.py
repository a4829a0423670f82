"""Web Push's routes: the hub's public VAPID key, this device's subscription, and the workspace's pushed devices."""

from __future__ import annotations

import asyncio
import base64
import binascii
from typing import Annotated

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.notify.push_endpoints import allowed
from hub.notify.vapid import load_or_create
from hub.protocol.errors import LapError
from hub.store.queries import push_subscriptions as push_store
from hub.store.writer import Command, Tx
from hub.web.auth import json_body, require_user
from hub.web.port import hub_of


class Keys(msgspec.Struct):
    p256dh: Annotated[str, msgspec.Meta(min_length=80, max_length=100)]
    auth: Annotated[str, msgspec.Meta(min_length=16, max_length=32)]


class SubscribeRequest(msgspec.Struct):
    """PushSubscription.toJSON() as the browser gives it."""

    endpoint: Annotated[str, msgspec.Meta(min_length=10, max_length=2000)]
    keys: Keys
    expirationTime: float | None = None  # the browser's own name


class StopRequest(msgspec.Struct):
    id: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


def _raw(value: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return b""


def _extra_endpoints(request: Request) -> list[str]:
    endpoints = hub_of(request).notifier.config.channel("webpush").options.get("endpoints") or []
    return [e for e in endpoints if isinstance(e, str)]


async def public_key(request: Request) -> JSONResponse:
    """The key the app hands PushManager.subscribe: made on first use (hub/notify/vapid.py)."""
    await require_user(request)
    hub = hub_of(request)
    keys = await asyncio.to_thread(load_or_create, hub.settings.data_dir)
    on = "webpush" in hub.notifier.channels
    return JSONResponse({"publicKey": keys.public_key, "enabled": on})


async def subscribe(request: Request) -> JSONResponse:
    """This device's subscription (one per signed-in device; a new one replaces it)."""
    actor = await require_user(request)
    body = await json_body(request, SubscribeRequest)
    if not allowed(body.endpoint, _extra_endpoints(request)):
        raise LapError("invalid_payload", "The hub posts only to the browsers' push services.",
                       hint="Subscribe from the app in Chrome, Firefox, Safari or Edge.")
    if len(_raw(body.keys.p256dh)) != 65 or _raw(body.keys.p256dh)[0] != 4 or len(_raw(body.keys.auth)) != 16:
        raise LapError("invalid_payload", "The subscription's keys are not a P-256 key and a 16-byte secret.")
    device_id = actor.device_id
    if device_id is None:  # a person's bearer token is always a device's; anything else subscribes nothing
        raise LapError("forbidden", "Only a signed-in device can get pushes.")

    def run(tx: Tx) -> str:
        return push_store.save(tx, device_id, actor.workspace_id, actor.id, body.endpoint,
                               body.keys.p256dh, body.keys.auth)
    subscription_id = await hub_of(request).execute(Command(run=run))
    return JSONResponse({"id": subscription_id, "deviceId": actor.device_id}, status_code=201)


async def devices(request: Request) -> JSONResponse:
    """The caller's devices that get pushes (Settings, beside their devices): names and times, never endpoints or
    keys."""
    actor = await require_user(request)
    rows = await hub_of(request).read(lambda c: push_store.of_user(c, actor.workspace_id, actor.id))
    return JSONResponse({"devices": [{"id": r.id, "deviceId": r.device_id, "name": r.device_name,
                                      "thisDevice": r.device_id == actor.device_id, "createdAt": r.created_at,
                                      "lastSentAt": r.last_sent_at, "lastError": r.last_error} for r in rows]})


async def stop(request: Request) -> JSONResponse:
    """Stop pushes to one of the caller's devices (its browser keeps a subscription the hub no longer uses)."""
    actor = await require_user(request)
    body = await json_body(request, StopRequest)

    def run(tx: Tx) -> bool:
        return push_store.drop(tx, body.id, actor.workspace_id, actor.id)
    if not await hub_of(request).execute(Command(run=run)):
        raise LapError("not_found", "None of your devices gets pushes under that id.")
    return JSONResponse({"stopped": body.id})


routes = [
    Route("/api/push/key", public_key),
    Route("/api/push/subscriptions", subscribe, methods=["POST"]),
    Route("/api/push/devices", devices),
    Route("/api/push/devices/stop", stop, methods=["POST"]),
]
