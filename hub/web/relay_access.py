"""HTTP routes of the app's relay access: "use this phone away from home" (docs/relay.md, "The app in relay mode")."""
# On the LAN the signed-in app asks for what its relay client needs (uid, token, wss URL, hub ids) and stores it;
# away from home it reaches the hub through WuKongIM with it. WuKongIM keeps one token per uid and device flag,
# so issuing a fresh token replaces the previous one, and revoking registers a token nobody is given (and asks
# WuKongIM to sign the web device out). A LineUp device that is revoked (signed out, or from Settings → Devices)
# loses the relay access it holds the same way (`end_for_device`, called by hub/web/accounts.py).
# The keys that seal the device's relay payloads are agreed here too, on the LAN, never through WuKongIM: the page
# sends its P-256 public key with the request, the hub answers its own for that device (hub/relay/seal.py), and
# revoking, signing out or setting up again ends them.

from __future__ import annotations

import contextlib
import json
import secrets
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.protocol.actors import Actor
from hub.protocol.envelope import now_iso
from hub.protocol.errors import LapError
from hub.relay import devices, seal
from hub.relay.admin import pairing
from hub.relay.httpapi import ApiError, HttpApi
from hub.store.queries import accounts as people
from hub.store.queries import relay as relay_state
from hub.store.writer import Command, Tx
from hub.web.auth import json_body, require_user
from hub.web.port import hub_of

if TYPE_CHECKING:
    from hub.relay.config import RelayConfig

APP_DEVICE_FLAG = 1  # WuKongIM's web device flag: the hub itself signs in as PC (2)


def _access(request: Request, actor: Actor) -> tuple[str | None, dict[str, str] | None]:
    """The caller's relay uid, or why there is none: {reason, message, hint}."""
    uplink = hub_of(request).relay
    config = uplink.config
    if not (config.enabled and config.configured):
        return None, {"reason": "relay_off", "message": "This hub has no relay.",
                      "hint": "Set the [relay] table of lineup.toml on the hub (docs/relay.md), then restart it."}
    uid = next((u for u, (_, who) in uplink.people.items() if who.id == actor.id), None)
    if uid is None or not uplink.people[uid][0].lap:
        return None, {"reason": "not_in_people", "message": "You are not among the relay's people.",
                      "hint": 'Add {uid = "…", user = "<your username>"} to [relay] people on the hub, '
                              "then restart it."}
    if not (config.api_url and config.manager_token):
        return uid, {"reason": "no_manager_token", "message": "The hub cannot issue relay tokens.",
                     "hint": "Set [relay] api_url and manager_token, or sign in to the relay with a 唐僧叨叨 token."}
    return uid, None


def _api(request: Request) -> HttpApi:
    config = hub_of(request).relay.config
    return HttpApi(config.api_url, config.manager_token)


async def _paired(request: Request, uid: str) -> dict[str, Any] | None:
    raw = await hub_of(request).read(lambda c: relay_state.get_state(c, f"app_device:{uid}"))
    return json.loads(raw) if raw else None


async def _record(request: Request, uid: str, value: dict[str, Any] | None) -> None:
    def run(tx: Tx) -> None:
        if value is None:
            relay_state.forget_relay_state(tx.conn, f"app_device:{uid}")
        else:
            relay_state.set_state(tx, f"app_device:{uid}", json.dumps(value))
    await hub_of(request).execute(Command(run=run))


async def _end_keys(request: Request, uid: str) -> None:
    """The device's sealing keys end: what the hub sends from now on opens with no key it held."""
    await hub_of(request).execute(Command(run=lambda tx: devices.end(tx, uid)))


class SetUp(msgspec.Struct):
    publicKey: str | None = None  # the device's P-256 public key, raw, base64url (a page without WebCrypto: none)


async def _end_on_wukongim(config: RelayConfig, uid: str) -> None:
    """The uid's web-device token stops working: one nobody is given replaces it, and WuKongIM is asked to sign
    the web device out. Raises LapError when WuKongIM does not take the new token."""
    api = HttpApi(config.api_url, config.manager_token)
    try:
        await api.user_token(uid, secrets.token_urlsafe(24), APP_DEVICE_FLAG)
    except ApiError as exc:
        raise LapError("internal", f"WuKongIM did not take the change: {exc}",
                       hint="Check [relay] api_url and manager_token (`lineup relay check`), then try again.") from None
    # WuKongIM's "force a device out" (POST /user/device_quit); a server without it keeps the session.
    with contextlib.suppress(ApiError):
        await api.post("/user/device_quit", {"uid": uid, "device_flag": APP_DEVICE_FLAG})


async def end_for_device(request: Request, user_id: str, device_id: str) -> tuple[str, dict[str, str] | None]:
    """A revoked LineUp device keeps no relay access: if it holds its person's (the device recorded when the access
    was issued), revoke that too. ("none" | "revoked" | "failed", and for "failed" the error the person reads.)

    The relay has no session per LineUp device of its own: WuKongIM keeps one token per uid and device flag, issued
    to the device recorded in relay_state, so that token is what the device holds on the hub's side."""
    uplink = hub_of(request).relay
    config = uplink.config
    if not (config.enabled and config.configured):
        return "none", None
    uid = next((u for u, (_, who) in uplink.people.items() if who.id == user_id), None)
    paired = await _paired(request, uid) if uid else None
    if uid is None or paired is None or paired.get("deviceId") != device_id:
        return "none", None
    await _end_keys(request, uid)  # at once, whatever WuKongIM says below
    if not (config.api_url and config.manager_token):
        problem = LapError("internal", "This device's relay access could not be revoked: the hub has no WuKongIM "
                                       "manager token.", hint="Set [relay] api_url and manager_token, then revoke it "
                                                              "in Settings → “Use this phone away from home”.")
        return "failed", {"message": problem.message, "hint": problem.hint}
    try:
        await _end_on_wukongim(config, uid)
    except LapError as exc:
        # The record stays: settings keep showing which device holds the access, so it can be revoked again.
        return "failed", {"message": f"The device was signed out, but its relay access was not revoked: "
                                     f"{exc.message}", "hint": exc.hint}
    await _record(request, uid, None)
    return "revoked", None


async def describe(request: Request) -> JSONResponse:
    """Whether the caller may use the relay, its state, and which of their devices holds the access."""
    actor = await require_user(request)
    uplink = hub_of(request).relay
    uid, problem = _access(request, actor)
    paired = await _paired(request, uid) if uid else None
    if paired is not None:
        paired["current"] = paired["deviceId"] == actor.device_id
    status = uplink.status
    device = await hub_of(request).read(lambda c: devices.device(c, uid)) if uid else None
    person = uplink.people[uid][0] if uid else None
    sealing = {"sealed": bool(device and device.keys), "ended": bool(device and device.ended),
               "text": person.texts(bool(device and device.sealed)) if person else None,
               "algorithm": seal.ALGORITHM}
    return JSONResponse({"available": problem is None, **(problem or {}), "uid": uid, "paired": paired,
                         "sealing": sealing,
                         "status": {"state": status.state, "code": status.code, "line": status.line,
                                    "warnings": list(status.warnings)}})


async def issue(request: Request) -> JSONResponse:
    """A fresh WuKongIM token for the caller's uid (web device flag) and the pairing data of docs/relay.md."""
    actor = await require_user(request)
    body = await json_body(request, SetUp)
    hub = hub_of(request)
    uid, problem = _access(request, actor)
    if uid is None or problem is not None:
        assert problem is not None
        raise LapError("not_found", problem["message"], hint=problem["hint"])
    keys, hub_public = None, None
    device_id = actor.device_id or ""  # the hub's own token (`lineup token`) is no device of its own
    if body.publicKey is not None:
        try:
            keys, hub_public = seal.agree(body.publicKey, hub_id=hub.hub_id, uid=uid, device_id=device_id)
        except ValueError as exc:
            raise LapError("invalid_payload", str(exc), hint="Send the page's ECDH P-256 public key, raw, "
                                                             "base64url.") from None
    token = secrets.token_urlsafe(24)
    try:
        await _api(request).user_token(uid, token, APP_DEVICE_FLAG)
    except ApiError as exc:
        raise LapError("internal", f"WuKongIM did not take the token: {exc}",
                       hint="Check [relay] api_url and manager_token (`lineup relay check`), then try again.") from None
    name = await hub.read(lambda c: people.device_name(c, actor.device_id))
    await _record(request, uid, {"deviceId": actor.device_id, "deviceName": name if name is not None else "",
                                 "pairedAt": now_iso()})
    # The previous device's keys end here as well: one device per person holds the access.
    await hub.execute(Command(run=lambda tx: devices.set_up(tx, uid, device_id, keys)))
    data = pairing(hub.relay.config, uid, actor.workspace_id, token)
    sealing = None if keys is None else {"v": seal.VERSION, "kid": keys.kid, "hubPublicKey": hub_public,
                                         "deviceId": device_id, "algorithm": seal.ALGORITHM}
    return JSONResponse({**data, "deviceFlag": APP_DEVICE_FLAG, "hubId": hub.hub_id, "seal": sealing},
                        status_code=201)


async def revoke(request: Request) -> JSONResponse:
    """Make the issued token useless: register one nobody is given, and sign the web device out of WuKongIM."""
    actor = await require_user(request)
    await json_body(request, dict)
    uid, problem = _access(request, actor)
    if uid is None or (problem is not None and problem["reason"] != "no_manager_token"):
        assert problem is not None
        raise LapError("not_found", problem["message"], hint=problem["hint"])
    await _end_keys(request, uid)
    if problem is None:
        await _end_on_wukongim(hub_of(request).relay.config, uid)
    await _record(request, uid, None)
    return JSONResponse({"revoked": True})


routes = [
    Route("/api/relay", describe),
    Route("/api/relay/devices", issue, methods=["POST"]),
    Route("/api/relay/devices/revoke", revoke, methods=["POST"]),
]
