"""Settings → Sessions over HTTP: the folders sessions may use, read and set by the hub's owner (docs/sessions.md).

Reading them is the owner's (`GET /api/settings/sessions`). Setting them lets the hub's agents run programs in those
folders, so a stolen or left-open session token alone is not enough: the owner asks from the hub's own machine (a
loopback peer that asked for a loopback name), or re-enters their password, checked like a sign-in and counted
against the same guess limits (hub/auth/limits.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.auth.limits import HashingBusy
from hub.auth.secrets import no_match_hash, verify_password
from hub.protocol.errors import APP_SIGN_IN_HINT, LapError
from hub.sessions import roots as session_roots
from hub.settings import CONFIG_FILE
from hub.store.queries import accounts as people
from hub.web.accounts import hashing_busy, too_many
from hub.web.auth import client_is_loopback, client_key, json_body
from hub.web.port import hub_of
from hub.web.sessions import host_of, require_owner

Root = Annotated[str, msgspec.Meta(max_length=session_roots.MAX_ROOT_CHARS)]


class RootsRequest(msgspec.Struct, forbid_unknown_fields=True):
    roots: Annotated[list[Root], msgspec.Meta(max_length=session_roots.MAX_ROOTS)]
    password: Annotated[str, msgspec.Meta(max_length=1024)] | None = None


def _shown(request: Request) -> dict[str, object]:
    host = host_of(request)
    data_dir = hub_of(request).settings.data_dir
    return {"roots": [str(root) for root in host.settings.roots], "enabled": host.enabled,
            "passwordNeeded": not client_is_loopback(request), "home": str(Path.home()),
            "file": str(data_dir / CONFIG_FILE)}


async def read_roots(request: Request) -> JSONResponse:
    await require_owner(request)
    return JSONResponse(_shown(request))


async def set_roots(request: Request) -> JSONResponse:
    """Check the roots, write them into lineup.toml and hand them to the session host: no restart."""
    actor = await require_owner(request)
    body = await json_body(request, RootsRequest)
    if not client_is_loopback(request):
        refused = await _check_password(request, actor.id, body.password)
        if refused is not None:
            return refused
    hub = hub_of(request)
    checked = await asyncio.to_thread(session_roots.check_roots, body.roots, hub.settings.data_dir)
    written = await asyncio.to_thread(session_roots.write_roots, hub.settings.data_dir, checked)
    ended = await session_roots.apply(host_of(request), written)
    return JSONResponse({**_shown(request), "sessionsEnded": ended})


async def _check_password(request: Request, user_id: str, password: str | None) -> JSONResponse | None:
    """The owner's password, typed again: None when right; a 429 when guesses must wait; `forbidden` when missing or
    wrong (not 401: the token is good, and the app takes a 401 for a revoked device and signs out)."""
    hub = hub_of(request)
    if not password:
        raise LapError("forbidden", "Type your password to change the folders sessions may use.",
                       hint="Or change them in the app on the hub's own machine.",
                       details={"reason": "password_needed"})
    user = await hub.read(lambda c: people.user_by_id(c, user_id))
    if user is None:  # the owner's account went while it asked
        raise LapError("unauthorized", "This device's account no longer exists.", hint=APP_SIGN_IN_HINT)
    source = client_key(request)
    attempt = hub.login_limits.attempt(source, user.username, False)
    if attempt is None:
        wait_s = hub.login_limits.wait_s(source, user.username, False)
        return too_many("Too many wrong passwords; wait a few minutes.", wait_s)
    try:
        with attempt.settled(wrong=("forbidden",)):
            stored = user.password_hash if user.password_hash.startswith("scrypt$") else None
            matches = await hub.login_limits.hashing.run(verify_password, password, stored or no_match_hash())
            if stored is None or not matches:
                raise LapError("forbidden", "That password is not right.", hint="Type your password again.",
                               details={"reason": "wrong_password"})
    except HashingBusy:
        return hashing_busy()
    return None


routes = [
    Route("/api/settings/sessions", read_roots, methods=["GET"]),
    Route("/api/settings/sessions", set_roots, methods=["POST"]),
]
