"""HTTP routes for setup, sign-in, devices, pairing codes, pairing and managing agents (PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import msgspec
import segno
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.auth.secrets import hash_password, normalize_pairing_code, verify_password
from hub.domain import accounts
from hub.protocol.errors import LapError
from hub.web import views
from hub.web.auth import client_is_loopback, client_key, json_body, require_user

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class SetupRequest(msgspec.Struct):
    username: Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$")]
    displayName: Name
    password: Annotated[str, msgspec.Meta(min_length=8, max_length=1024)]
    workspaceName: Name
    setupCode: str | None = None
    deviceName: Name = "browser"


class LoginRequest(msgspec.Struct):
    username: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    password: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)]
    deviceName: Name = "browser"


class PairingCodeRequest(msgspec.Struct):
    name: Name | None = None


class PairRequest(msgspec.Struct):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
    name: Name = "agent"
    runtime: Annotated[str, msgspec.Meta(max_length=64)] = "generic"
    agentVersion: Annotated[str, msgspec.Meta(max_length=64)] = ""


class RedeemRequest(msgspec.Struct):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    deviceName: Name = "phone"


class RenameRequest(msgspec.Struct):
    name: Name


def _client_key(request: Request) -> str:
    return client_key(request)


# Checked when the username is unknown or has no password, so every wrong sign-in costs one scrypt: the time of
# the answer does not tell which usernames exist. (Any well-formed hash will do: it never matches.)
_NO_MATCH_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="


async def setup(request: Request) -> JSONResponse:
    hub = request.app.state.hub
    body = await json_body(request, SetupRequest)
    if hub.setup_code is None:
        raise LapError("forbidden", "This hub is already set up.", hint="Sign in with the owner's account.")
    if not client_is_loopback(request):
        key = "setup:" + _client_key(request)
        # Also hub-wide (many addresses guessing 8 digits together); the hub's own machine needs no code.
        if hub.sign_in_limiter.blocked(key) or hub.sign_in_limiter.blocked("setup:*"):
            raise LapError("rate_limited", "Too many wrong setup codes from this address.")
        if body.setupCode is None or body.setupCode.strip() != hub.setup_code:
            hub.sign_in_limiter.fail(key)
            hub.sign_in_limiter.fail("setup:*")
            raise LapError("unauthorized", "The setup code is missing or wrong.",
                           hint="Use the setup code the hub printed when it started, or open the app on the hub's "
                                "machine (http://127.0.0.1:PORT).")
    password_hash = await asyncio.to_thread(hash_password, body.password)
    command, _ = accounts.create_owner(body.username, body.displayName, password_hash, body.workspaceName,
                                       body.deviceName)
    result = await hub.execute(command)
    return JSONResponse(result, status_code=201)


async def login(request: Request) -> JSONResponse:
    hub = request.app.state.hub
    body = await json_body(request, LoginRequest)
    key = "login:" + _client_key(request)
    if hub.sign_in_limiter.blocked(key):
        raise LapError("rate_limited", "Too many failed sign-ins from this address; wait a few minutes.")
    user = await hub.read(lambda c: c.execute("SELECT * FROM users WHERE username = ?", (body.username,)).fetchone())
    stored = user["password_hash"] if user is not None and user["password_hash"].startswith("scrypt$") else None
    matches = await asyncio.to_thread(verify_password, body.password, stored or _NO_MATCH_HASH)
    ok = stored is not None and matches
    if not ok:
        hub.sign_in_limiter.fail(key)
        raise LapError("unauthorized", "Wrong username or password.")
    result = await hub.execute(accounts.sign_in_device(user["id"], body.deviceName))
    return JSONResponse(result, status_code=201)


async def me(request: Request) -> JSONResponse:
    actor = await require_user(request)
    hub = request.app.state.hub
    user = await hub.read(lambda c: c.execute("SELECT * FROM users WHERE id = ?", (actor.id,)).fetchone())
    workspace = await hub.read(lambda c: c.execute("SELECT * FROM workspaces WHERE id = ?",
                                                   (actor.workspace_id,)).fetchone())
    return JSONResponse({"userId": actor.id, "username": user["username"], "displayName": user["display_name"],
                         "role": user["role"], "deviceId": actor.device_id,
                         "workspace": {"id": workspace["id"], "name": workspace["name"]}})


async def list_devices(request: Request) -> JSONResponse:
    actor = await require_user(request)
    rows = await request.app.state.hub.read(lambda c: c.execute(
        "SELECT * FROM devices WHERE workspace_id = ? AND user_id = ? ORDER BY created_at", (actor.workspace_id, actor.id)
    ).fetchall())
    return JSONResponse({"devices": [views.device(r, actor.device_id) for r in rows]})


async def revoke_device(request: Request) -> JSONResponse:
    actor = await require_user(request)
    await json_body(request, dict)
    await request.app.state.hub.execute(accounts.revoke_device(actor, request.path_params["device_id"]))
    return JSONResponse({"revoked": True})


async def create_pairing_code(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, PairingCodeRequest)
    hub = request.app.state.hub
    command, code = accounts.create_pairing_code(actor, body.name, hub.settings.pairing_code_ttl_s)
    result = await hub.execute(command)
    base = str(request.base_url).rstrip("/")
    return JSONResponse({"code": code, "expiresAt": result["expiresAt"], "codeId": result["codeId"],
                         "command": f"lineup demo-agent --hub {base} --code {code}"
                                    + (f" --fingerprint {hub.tls_fingerprint}" if hub.tls_fingerprint else "")},
                        status_code=201)


async def pair(request: Request) -> JSONResponse:
    hub = request.app.state.hub
    body = await json_body(request, PairRequest)
    key = "pair:" + _client_key(request)
    # Guessing is limited per address and for the whole hub: 40 bits of code against 20 tries a minute.
    # The hub-wide limit never blocks the hub's own machine, so nobody can stop the owner pairing there.
    if hub.pairing_limiter.blocked(key) or (hub.pairing_limiter.blocked("pair:*") and not client_is_loopback(request)):
        raise LapError("rate_limited", "Too many wrong pairing codes; wait a minute.")
    command, credential = accounts.pair_agent(normalize_pairing_code(body.code), body.name, body.runtime,
                                              body.agentVersion)
    try:
        result = await hub.execute(command)
    except LapError as exc:
        if exc.code in ("unauthorized", "expired"):
            hub.pairing_limiter.fail(key)
            hub.pairing_limiter.fail("pair:*")
        raise
    return JSONResponse({"agentId": result["agentId"], "workspaceId": result["workspaceId"],
                         "credential": credential}, status_code=201)


async def list_agents(request: Request) -> JSONResponse:
    actor = await require_user(request)
    rows = await request.app.state.hub.read(lambda c: c.execute(
        "SELECT * FROM agents WHERE workspace_id = ? ORDER BY created_at", (actor.workspace_id,)).fetchall())
    return JSONResponse({"agents": [views.agent(r) for r in rows]})


async def revoke_agent(request: Request) -> JSONResponse:
    actor = await require_user(request)
    await json_body(request, dict)
    await request.app.state.hub.execute(accounts.revoke_agent(actor, request.path_params["agent_id"]))
    return JSONResponse({"revoked": True})


async def rename_agent(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, RenameRequest)
    await request.app.state.hub.execute(accounts.rename_agent(actor, request.path_params["agent_id"], body.name))
    return JSONResponse({"renamed": True})


async def create_sign_in_link(request: Request) -> JSONResponse:
    """A one-time link (10 minutes) that signs a phone in as the caller; the code rides in the URL fragment,
    which browsers never send to a server or write to a log."""
    actor = await require_user(request)
    await json_body(request, dict)
    hub = request.app.state.hub
    command, code = accounts.create_sign_in_link(actor, hub.settings.pairing_code_ttl_s)
    result = await hub.execute(command)
    base = str(request.base_url).rstrip("/")
    url = f"{base}/#signin={code}"
    qr_svg = segno.make(url, error="m").svg_inline(scale=4, dark="#1b1f24", light="#ffffff")
    return JSONResponse({"url": url, "expiresAt": result["expiresAt"], "linkId": result["linkId"], "qrSvg": qr_svg},
                        status_code=201)


async def redeem_sign_in_link(request: Request) -> JSONResponse:
    hub = request.app.state.hub
    body = await json_body(request, RedeemRequest)
    key = "link:" + _client_key(request)
    if hub.sign_in_limiter.blocked(key):
        raise LapError("rate_limited", "Too many invalid sign-in links from this address; wait a few minutes.")
    try:
        result = await hub.execute(accounts.redeem_sign_in_link(body.code.strip(), body.deviceName))
    except LapError as exc:
        if exc.code in ("unauthorized", "expired"):
            hub.sign_in_limiter.fail(key)
        raise
    return JSONResponse(result, status_code=201)


async def rename_hub(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, RenameRequest)
    hub = request.app.state.hub
    await hub.execute(accounts.rename_hub(actor, body.name))
    return JSONResponse({"name": hub.name})


async def setup_status(request: Request) -> JSONResponse:
    """Whether the first-run setup is still open, and whether this client needs the setup code for it."""
    hub = request.app.state.hub
    return JSONResponse({"needsSetup": hub.setup_code is not None,
                         "setupCodeRequired": hub.setup_code is not None and not client_is_loopback(request)})


routes = [
    Route("/api/setup", setup, methods=["POST"]),
    Route("/api/setup", setup_status, methods=["GET"]),
    Route("/api/login", login, methods=["POST"]),
    Route("/api/me", me),
    Route("/api/devices", list_devices),
    Route("/api/devices/{device_id}/revoke", revoke_device, methods=["POST"]),
    Route("/api/pairing-codes", create_pairing_code, methods=["POST"]),
    Route("/api/sign-in-links", create_sign_in_link, methods=["POST"]),
    Route("/api/sign-in-links/redeem", redeem_sign_in_link, methods=["POST"]),
    Route("/api/pair", pair, methods=["POST"]),
    Route("/api/hub/rename", rename_hub, methods=["POST"]),
    Route("/api/agents", list_agents),
    Route("/api/agents/{agent_id}/revoke", revoke_agent, methods=["POST"]),
    Route("/api/agents/{agent_id}/rename", rename_agent, methods=["POST"]),
]
