"""GET /api/relay/check: `lineup relay check`'s answers for Settings' "Use this phone away from home" walkthrough."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.relay.admin import check
from hub.web.auth import require_user
from hub.web.port import hub_of

# Each line `check` prints, by the words it starts with: a code the app words in the person's language (away.verdict.*
# in ui/lib/strings-*.js) and the values those words name. The command's English stays in `text` (shown when no code
# matches, and kept for the technical detail). tests/unit/test_relay_check_codes.py holds every line check makes
# to this table, so a line reworded in hub/relay/admin.py cannot lose its words in the app unnoticed.
CODES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple((verdict, code, re.compile(pattern, re.DOTALL)) for
                                                             verdict, code, pattern in (
    ("FAIL", "not_configured", r"\[relay\] needs ws_url"),
    ("ok", "hub_signed_in", r"WebSocket: the running hub is signed in as '(?P<uid>[^']*)' on the (?P<line>\w+) line"),
    ("FAIL", "not_wukongim", r"WebSocket: (?P<server>\S+) answers neither WuKongIM JSON-RPC line: (?P<detail>.*)"),
    ("ok", "server_line", r"WebSocket: the server speaks the (?P<line>\w+) line \((?P<detail>.*)\); the hub uses"),
    ("FAIL", "wrong_line", r"WebSocket: the server speaks the (?P<line>\w+) line \((?P<detail>.*)\); the hub uses"),
    ("FAIL", "unreachable", r"WebSocket: (?P<detail>.*)"),
    ("FAIL", "hub_refused", r"the hub's uid '(?P<uid>[^']*)' and token were refused \((?P<detail>[^)]*)\)"),
    ("ok", "hub_signs_in", r"the hub signs in as '(?P<uid>[^']*)'"),
    ("note", "token_auth_unknown", r"could not tell whether WuKongIM checks tokens"),
    ("FAIL", "token_auth_off", r"WuKongIM accepted a sign-in with a WRONG token"),
    ("ok", "token_auth_on", r"WuKongIM refuses a wrong token"),
    ("ok", "api_ok", r"HTTP API (?P<server>\S+) answers"),
    ("FAIL", "api_manager_token", r"HTTP API: (?P<detail>.*) — set \[relay\] manager_token$"),
    ("FAIL", "api_failed", r"HTTP API: (?P<detail>.*)"),
    ("note", "no_api_url", r"no \[relay\] api_url"),
    ("note", "no_people", r"nobody is served yet"),
    ("FAIL", "whitelist_refused", r"delivery is refused with reason 13"),
    ("note", "whitelist_note", r"If messages fail with reason 13"),
))


def coded(verdict: str, text: str) -> dict[str, Any]:
    """One line of the check for the app: {verdict, text} and, when the table knows it, {code, params}."""
    for known, code, pattern in CODES:
        found = pattern.match(text) if known == verdict else None
        if found:
            params = {k: v for k, v in found.groupdict().items() if v is not None}
            return {"verdict": verdict, "code": code, "params": params, "text": text}
    return {"verdict": verdict, "text": text}


async def relay_check(request: Request) -> JSONResponse:
    """Whether this hub has a relay, and the same verdicts the command prints: [{verdict: ok|FAIL|note, code?,
    params?, text}]."""
    await require_user(request)
    uplink = hub_of(request).relay
    config = uplink.config
    if not config.enabled:
        return JSONResponse({"configured": False, "lines": []})
    # The running uplink's status: while its session is up the check does not sign in as the hub (WuKongIM would
    # kick the hub's own session).
    running = {"state": uplink.status.state, "code": uplink.status.code, "line": uplink.status.line}
    lines = await check(config, uplink.token, "lineup-check", running)
    return JSONResponse({"configured": True, "server": config.ws_url, "state": uplink.status.state,
                         "lines": [coded(verdict, text) for verdict, text in lines]})


routes = [Route("/api/relay/check", relay_check)]
