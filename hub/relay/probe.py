"""Which JSON-RPC line a WuKongIM server speaks, told from how it answers `connect` and `ping`."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import websockets

from hub.relay import wire


@dataclass(frozen=True)
class ProbeResult:
    line: str | None        # "compat", "v2", or None: the server answered neither way
    evidence: str           # what was seen, for the diagnostic
    auth_code: int | None = None  # the reason code of a refused connect (the line is still told apart)


async def probe(url: str, uid: str, token: str, device_id: str, device_flag: int, timeout_s: float) -> ProbeResult:
    """Connect, ping once, close. The compat line answers ping with `result: null` and refuses a connect with
    `error`; the v2 line answers ping without `result` (or with a `pong` notification) and refuses a connect
    with `result.reasonCode`."""
    try:
        async with asyncio.timeout(timeout_s):
            ws = await websockets.connect(url, ping_interval=None, compression=None, proxy=None,
                                          max_size=1024 * 1024)
    except (TimeoutError, OSError, websockets.InvalidHandshake, websockets.InvalidURI) as exc:
        raise ConnectionError(f"cannot open {url}: {exc}") from None
    try:
        async with asyncio.timeout(timeout_s):
            return await _conversation(ws, uid, token, device_id, device_flag)
    except TimeoutError:
        return ProbeResult(None, f"no JSON-RPC answer within {timeout_s:g} s")
    except websockets.ConnectionClosed as exc:
        return ProbeResult(None, f"the server closed the socket ({exc.rcvd.code if exc.rcvd else 'no close frame'})")
    finally:
        try:
            async with asyncio.timeout(2.0):
                await ws.close()
        except (TimeoutError, OSError):
            ws.transport.abort()


async def _answer(ws: Any, request_id: str) -> dict[str, Any] | str:
    """The next frame that answers `request_id` (or a pong notification); skips pushed notifications."""
    while True:
        raw = await ws.recv()
        try:
            frame = json.loads(raw)
        except (ValueError, TypeError):
            return f"a frame that is not JSON ({str(raw)[:60]!r})"
        if not isinstance(frame, dict):
            return "a JSON value that is not an object"
        if frame.get("id") == request_id or frame.get("method") == "pong":
            return frame
        if frame.get("method") in ("recv", "event"):
            continue  # a message pushed at once: it is delivered again on the real session
        return f"an unexpected frame ({json.dumps(frame)[:80]})"


async def _conversation(ws: Any, uid: str, token: str, device_id: str, device_flag: int) -> ProbeResult:
    connect_id = f"probe-{uuid.uuid4()}"
    await ws.send(json.dumps({"method": "connect", "id": connect_id, "params": {
        "uid": uid, "token": token, "deviceId": device_id, "deviceFlag": device_flag,
        "clientTimestamp": int(time.time() * 1000)}}))
    answer = await _answer(ws, connect_id)
    if isinstance(answer, str):
        return ProbeResult(None, f"connect was answered with {answer}")
    if isinstance(answer.get("error"), dict) and type(answer["error"].get("code")) is int:
        return ProbeResult("compat", "connect refused with a JSON-RPC error (compat line)", answer["error"]["code"])
    result = answer.get("result")
    if not isinstance(result, dict) or type(result.get("reasonCode")) is not int:
        return ProbeResult(None, "connect was answered without result.reasonCode")
    if result["reasonCode"] != wire.SUCCESS:
        # Only the v2 line puts a refusal in `result`; the compat line answers a refusal with `error`.
        return ProbeResult("v2", "connect refused inside `result` (v2 line)", result["reasonCode"])
    ping_id = f"probe-{uuid.uuid4()}"
    await ws.send(json.dumps({"method": "ping", "id": ping_id}))
    pong = await _answer(ws, ping_id)
    if isinstance(pong, str):
        return ProbeResult(None, f"ping was answered with {pong}")
    if pong.get("method") == "pong":
        return ProbeResult("v2", "ping answered by a `pong` notification (early v2 builds)")
    if "result" in pong:
        return ProbeResult("compat", "ping answered with `result: null` (compat line)")
    if "error" in pong:
        return ProbeResult(None, f"ping answered with an error {pong['error']}")
    return ProbeResult("v2", "ping answered without `result` (released v2.x line)")


AUTH_OFF_STEP = ("Turn WuKongIM's token authentication on (wk.yaml `tokenAuthOn: true`, or WK_TOKENAUTHON=true) "
                 "and restart it; until then anyone who reaches the server can sign in as any uid, including "
                 "your [relay] people, and act as the LineUp user they stand for (docs/relay.md, trust model).")


async def token_auth_off(url: str, timeout_s: float) -> bool | None:
    """Sign in as a throwaway uid with a token nobody registered: True when the server accepts it (its token
    authentication is off), False when it refuses, None when it cannot be told. A throwaway uid, so no real
    session (the hub's, a person's) is kicked."""
    uid = f"lineup-authcheck-{uuid.uuid4().hex[:12]}"
    try:
        found = await probe(url, uid, f"wrong-{uuid.uuid4().hex}", "lineup-authcheck", 1, timeout_s)
    except ConnectionError:
        return None
    if found.line is None:
        return None
    return found.auth_code is None
