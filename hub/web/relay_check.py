"""GET /api/relay/check: `lineup relay check`'s answers for Settings' "Use this phone away from home" walkthrough."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.relay.admin import check
from hub.web.auth import require_user


async def relay_check(request: Request) -> JSONResponse:
    """Whether this hub has a relay, and the same verdicts the command prints: [{verdict: ok|FAIL|note, text}]."""
    await require_user(request)
    uplink = request.app.state.hub.relay
    config = uplink.config
    if not config.enabled:
        return JSONResponse({"configured": False, "lines": []})
    # The running uplink's status: while its session is up the check does not sign in as the hub (WuKongIM would
    # kick the hub's own session).
    running = {"state": uplink.status.state, "code": uplink.status.code, "line": uplink.status.line}
    lines = await check(config, uplink.token, "lineup-check", running)
    return JSONResponse({"configured": True, "server": config.ws_url, "state": uplink.status.state,
                         "lines": [{"verdict": verdict, "text": text} for verdict, text in lines]})


routes = [Route("/api/relay/check", relay_check)]
