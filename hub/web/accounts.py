"""HTTP routes for setup, sign-in, devices, pairing codes, pairing and managing agents (docs/protocol.md#endpoints)."""

from __future__ import annotations

import hmac
from typing import Annotated

import msgspec
import segno
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.auth.limits import HashingBusy
from hub.auth.secrets import hash_password, no_match_hash, normalize_pairing_code, verify_password
from hub.cli_invocation import program as cli_program
from hub.domain import accounts
from hub.gateway.admission import plain_agent_refusal
from hub.protocol.errors import APP_SIGN_IN_HINT, LapError
from hub.store.queries import accounts as people
from hub.store.queries import agents as agent_rows
from hub.web import addresses, relay_access, views
from hub.web.auth import client_is_loopback, client_key, json_body, require_user
from hub.web.errors import error_response
from hub.web.port import hub_of

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
    replacesAgentId: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None


class PairRequest(msgspec.Struct):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
    name: Name = "agent"
    runtime: Annotated[str, msgspec.Meta(max_length=64)] = "generic"
    agentVersion: Annotated[str, msgspec.Meta(max_length=64)] = ""
    # The credential this agent held until now (the SDK's stored one): the same agent pairs again, keeping its id.
    replaces: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None


class RedeemRequest(msgspec.Struct):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    deviceName: Name = "phone"


class RenameRequest(msgspec.Struct):
    name: Name


def _client_key(request: Request) -> str:
    return client_key(request)


def too_many(message: str, wait_s: int, hint: str | None = None, limit: str | None = None) -> JSONResponse:
    """429 `rate_limited` with Retry-After: nothing was checked or counted (hub/auth/limits.py)."""
    refused = error_response(LapError("rate_limited", message, hint=hint or f"Try again in {wait_s} s.",
                                      details={"limit": limit} if limit else None))
    refused.headers["Retry-After"] = str(wait_s)
    return refused


def hashing_busy() -> JSONResponse:
    """Every password-hash slot and the short queue behind them are taken (hub/auth/limits.py PasswordHashing)."""
    return too_many("The hub is busy checking other sign-ins; nothing was checked.", HashingBusy.retry_after_s,
                    hint=f"Try again in {HashingBusy.retry_after_s} s.", limit="hashing")


async def setup(request: Request) -> JSONResponse:
    hub = hub_of(request)
    body = await json_body(request, SetupRequest)
    if hub.setup_code is None:
        raise LapError("forbidden", "This hub is already set up.", hint="Sign in with the owner's account.")
    if not client_is_loopback(request):
        key = "setup:" + _client_key(request)
        # Per address only (docs/security.md#guessing): a hub-wide count let anyone's wrong codes refuse the owner's
        # right one. The hub's own machine needs no code at all. Counted before it is compared (hub/auth/limits.py).
        attempt = hub.sign_in_limiter.attempt(key)
        if attempt is None:
            return too_many("Too many wrong setup codes from this address.", hub.sign_in_limiter.retry_after(key))
        with attempt.settled():
            given = (body.setupCode or "").strip().encode()
            if body.setupCode is None or not hmac.compare_digest(given, hub.setup_code.encode()):
                port = (request.scope.get("server") or ("", 0))[1]  # the port this socket really listens on
                raise LapError("unauthorized", "The setup code is missing or wrong.",
                               hint="Use the setup code the hub printed when it started, or open the app on the "
                                    f"hub's machine (http://127.0.0.1:{port}).")
    try:
        password_hash = await hub.login_limits.hashing.run(hash_password, body.password)
    except HashingBusy:
        return hashing_busy()
    command, _ = accounts.create_owner(body.username, body.displayName, password_hash, body.workspaceName,
                                       body.deviceName)
    result = await hub.execute(command)
    return JSONResponse(result, status_code=201)


async def login(request: Request) -> JSONResponse:
    hub = hub_of(request)
    body = await json_body(request, LoginRequest)
    source, local = _client_key(request), client_is_loopback(request)
    # Counted per address, per account and hub-wide before the password is checked, and given back if it is right
    # (hub/auth/limits.py): sign-ins arriving together cannot all be checked before one is counted.
    attempt = hub.login_limits.attempt(source, body.username, local)
    if attempt is None:
        wait_s = hub.login_limits.wait_s(source, body.username, local)
        return too_many("Too many failed sign-ins; wait a few minutes.", wait_s,
                        hint=f"Try again in {wait_s} s." + (
                            " On this machine, `lineup token` prints a sign-in without the password."
                            if local else " Or sign in on the hub's own machine."))
    try:
        with attempt.settled():
            user = await hub.read(lambda c: people.user_by_username(c, body.username))
            stored = user.password_hash if user is not None and user.password_hash.startswith("scrypt$") else None
            matches = await hub.login_limits.hashing.run(verify_password, body.password, stored or no_match_hash())
            if user is None or stored is None or not matches:
                raise LapError("unauthorized", "Wrong username or password.",
                               hint="Check both and try again.")  # not the default hint, which is about pairing agents
    except HashingBusy:
        return hashing_busy()
    result = await hub.execute(accounts.sign_in_device(user.id, body.deviceName))
    return JSONResponse(result, status_code=201)


async def me(request: Request) -> JSONResponse:
    actor = await require_user(request)
    hub = hub_of(request)
    user = await hub.read(lambda c: people.user_by_id(c, actor.id))
    workspace = await hub.read(lambda c: people.workspace_by_id(c, actor.workspace_id))
    if user is None or workspace is None:  # the device's account went while it asked
        raise LapError("unauthorized", "This device's account no longer exists.", hint=APP_SIGN_IN_HINT)
    return JSONResponse({"userId": actor.id, "username": user.username, "displayName": user.display_name,
                         "role": user.role, "deviceId": actor.device_id,
                         "workspace": {"id": workspace.id, "name": workspace.name}})


async def list_devices(request: Request) -> JSONResponse:
    actor = await require_user(request)
    rows = await hub_of(request).read(lambda c: people.devices_of_user(c, actor.workspace_id, actor.id))
    return JSONResponse({"devices": [views.device(r, actor.device_id) for r in rows]})


async def revoke_device(request: Request) -> JSONResponse:
    """Revoke a device of the workspace; `current` is the caller's own, which is how the app signs out: the token
    that made the request answers 401 from now on and its sockets close (4401). The relay access the device holds
    goes with it (hub/web/relay_access.py); if WuKongIM cannot be told, the device is revoked all the same and the
    answer says so (`relayAccess: "failed"`, `relayError`)."""
    actor = await require_user(request)
    await json_body(request, dict)
    wanted = request.path_params["device_id"]
    device_id = actor.device_id if wanted == "current" and actor.device_id else wanted
    revoked = await hub_of(request).execute(accounts.revoke_device(actor, device_id))
    relay, problem = await relay_access.end_for_device(request, revoked["userId"], device_id)
    answer: dict[str, object] = {"revoked": True, "deviceId": device_id, "relayAccess": relay}
    if problem is not None:
        answer["relayError"] = problem
    return JSONResponse(answer)


async def create_pairing_code(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, PairingCodeRequest)
    hub = hub_of(request)
    command, code = accounts.create_pairing_code(actor, body.name, hub.settings.pairing_code_ttl_s,
                                                 body.replacesAgentId)
    result = await hub.execute(command)
    # The agent may run on another machine: never a loopback address when the hub has another.
    # Its TLS listener when it has one, an https public_url, never an http one past TLS (hub/web/addresses.py).
    where = addresses.for_agents(request)
    commands = agent_commands(where.url, code, where.fingerprint, plain=where.transport == "plain")
    return JSONResponse({"code": code, "expiresAt": result["expiresAt"], "codeId": result["codeId"],
                         "hubUrl": where.url, "otherDevices": where.other_devices, "fingerprint": where.fingerprint,
                         "agentTransport": where.transport, "command": commands["demo"], "commands": commands,
                         "replacesAgentId": body.replacesAgentId}, status_code=201)


# What "Connect my agent" offers, each as the one command to run where the agent runs (docs/agents.md).
CONNECT_COMMANDS = {
    "demo": "demo-agent",
    "claude-code": "connect claude-code --dir ~/code/my-project",
    "codex": "connect codex --user",  # --user: only there does Codex take LineUp's approval hook (docs/agents.md)
    "gemini": "connect gemini --dir ~/code/my-project",
    "hermes": "connect hermes",  # LineUp as a messaging platform of the person's `hermes gateway`
    "openclaw": "connect openclaw",  # LineUp as a channel of the person's OpenClaw Gateway
}
SDK_PROGRAM_EXAMPLE = "python my_agent.py"


def agent_commands(base: str, code: str, fingerprint: str | None, plain: bool = False) -> dict[str, str]:
    pin = f" --fingerprint {fingerprint}" if fingerprint else ""
    program = cli_program()
    # A plain http:// hub beyond the agent's machine (agent_tls = "off"): the SDK sends a credential there only
    # when told to (hub/sdk/cleartext.py), and the command says so.
    allow = "LINEUP_ALLOW_INSECURE_HUB=1 " if plain else ""
    commands = {kind: f"{allow}{program} {words} --hub {base} --code {code}{pin}"
                for kind, words in CONNECT_COMMANDS.items()}
    # The person's own program on the SDK, under the keeper that starts it again after a crash: the one line to copy,
    # whose program part alone is theirs (the keeper hands the hub and the code on as LINEUP_HUB and LINEUP_CODE).
    commands["sdk"] = f"{allow}{program} keep --hub {base} --code {code}{pin} -- {SDK_PROGRAM_EXAMPLE}"
    return commands


async def pair(request: Request) -> JSONResponse:
    hub = hub_of(request)
    refusal = plain_agent_refusal(hub, request.scope)
    if refusal is not None:
        raise refusal
    body = await json_body(request, PairRequest)
    key = "pair:" + _client_key(request)
    # Guessing is limited per address (20 a minute against 40 bits of code that expires in minutes); not
    # hub-wide: then one address's wrong codes refused another host's right one (docs/security.md#guessing). The hub's
    # own machine and a loopback peer asking for another name (a rebound page) are two sources. Counted before the
    # code is checked (hub/auth/limits.py).
    attempt = hub.pairing_limiter.attempt(key)
    if attempt is None:
        return too_many("Too many wrong pairing codes; wait a minute.", hub.pairing_limiter.retry_after(key))
    command, credential = accounts.pair_agent(normalize_pairing_code(body.code), body.name, body.runtime,
                                              body.agentVersion, replaces=body.replaces)
    with attempt.settled():
        result = await hub.execute(command)
    # `replaced`: the agent paired again keeps its id (its credential rotated); `notReplaced` says why a credential
    # sent in `replaces` did not count (docs/protocol.md#endpoints).
    return JSONResponse({"credential": credential, **result}, status_code=201)


async def list_agents(request: Request) -> JSONResponse:
    actor = await require_user(request)
    rows, paired = await hub_of(request).read(
        lambda c: (agent_rows.agents_of_workspace(c, actor.workspace_id),
                   agent_rows.newest_pairings(c, actor.workspace_id)))
    # pairedAt: the newest pairing (an agent paired again keeps its id and createdAt, and gets a new credential).
    agents = [{**views.agent(r), "pairedAt": paired.get(r.id, r.created_at)} for r in rows]
    # The stored time changes only with the status (connect, disconnect): an online agent's last sign of life is
    # its newest heartbeat, kept in memory by presence (writing every heartbeat would be a write per ping).
    heartbeats = hub_of(request).presence.last_heartbeat_wall
    for agent in agents:
        if agent["status"] == "online" and agent["id"] in heartbeats:
            agent["lastHeartbeatAt"] = heartbeats[agent["id"]]
    return JSONResponse({"agents": agents})


async def revoke_agent(request: Request) -> JSONResponse:
    actor = await require_user(request)
    await json_body(request, dict)
    await hub_of(request).execute(accounts.revoke_agent(actor, request.path_params["agent_id"]))
    return JSONResponse({"revoked": True})


async def rename_agent(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, RenameRequest)
    await hub_of(request).execute(accounts.rename_agent(actor, request.path_params["agent_id"], body.name))
    return JSONResponse({"renamed": True})


async def create_sign_in_link(request: Request) -> JSONResponse:
    """A one-time link (10 minutes) that signs a phone in as the caller; the code rides in the URL fragment,
    which browsers never send to a server or write to a log."""
    actor = await require_user(request)
    await json_body(request, dict)
    hub = hub_of(request)
    # The phone needs an address it can reach, also when this app was opened on 127.0.0.1. A hub with
    # none (listening on loopback only) answers with `otherDevices: false` and no QR code: the app says so.
    base, source = addresses.for_other_devices(request)
    command, code = accounts.create_sign_in_link(actor, hub.settings.pairing_code_ttl_s)
    result = await hub.execute(command)
    url = f"{base or str(request.base_url).rstrip('/')}/#signin={code}"
    qr_svg = segno.make(url, error="m").svg_inline(scale=4, dark="#1b1f24", light="#ffffff") if base else None
    return JSONResponse({"url": url, "expiresAt": result["expiresAt"], "linkId": result["linkId"], "qrSvg": qr_svg,
                         "otherDevices": base is not None, "addressSource": source}, status_code=201)


async def redeem_sign_in_link(request: Request) -> JSONResponse:
    hub = hub_of(request)
    body = await json_body(request, RedeemRequest)
    key = "link:" + _client_key(request)
    attempt = hub.sign_in_limiter.attempt(key)  # counted before the code is checked (hub/auth/limits.py)
    if attempt is None:
        return too_many("Too many invalid sign-in links from this address; wait a few minutes.",
                        hub.sign_in_limiter.retry_after(key))
    with attempt.settled():
        result = await hub.execute(accounts.redeem_sign_in_link(body.code.strip(), body.deviceName))
    return JSONResponse(result, status_code=201)


async def rename_hub(request: Request) -> JSONResponse:
    actor = await require_user(request)
    body = await json_body(request, RenameRequest)
    hub = hub_of(request)
    await hub.execute(accounts.rename_hub(actor, body.name))
    return JSONResponse({"name": hub.name})


async def setup_status(request: Request) -> JSONResponse:
    """Whether the first-run setup is still open, and whether this client needs the setup code for it."""
    hub = hub_of(request)
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
