"""The uplink's state for people and tools: connected / reconnecting / error, with a code and the next step."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from hub.protocol.envelope import now_iso
from hub.relay import wire
from hub.relay.transport import TransportError

WHITELIST_STEP = (
    "唐僧叨叨 deployments whitelist person-to-person messages (WK_WHITELISTOFFOFPERSON=false). Register the hub's "
    "uid as a system user — `lineup relay provision` does it when [relay] manager_token is set (POST "
    "/user/systemuids_add) — or whitelist the hub and the person for each other (POST /channel/whitelist_add), "
    "or make them friends in 唐僧叨叨.")


@dataclass
class RelayStatus:
    state: str = "disabled"        # disabled | connecting | connected | reconnecting | error
    code: str | None = None        # a diagnostic code (relay_*), when something needs attention
    message: str = ""
    next_step: str = ""
    line: str | None = None        # the server line in use: compat (official SDK) or v2
    server: str = ""
    since: str = field(default_factory=now_iso)
    attempt: int = 0               # reconnect attempts since the last good session
    retry_in_s: float | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {"state": data["state"], "code": data["code"], "message": data["message"],
                "nextStep": data["next_step"], "line": data["line"], "server": data["server"],
                "since": data["since"], "attempt": data["attempt"], "retryInS": data["retry_in_s"],
                "warnings": data["warnings"]}


def diagnose(error: TransportError, *, line: str | None, uid: str) -> tuple[str, str, str]:
    """(code, message, next step) for a failed connection or request."""
    if error.kind == "auth":
        return ("relay_auth_failed",
                f"WuKongIM refused the hub's uid {uid!r} and token ({wire.reason_name(error.code)}).",
                "Check [relay] token, or set [relay] manager_token so the hub registers its own token "
                "(`lineup relay provision`). With tokenAuthOn the token must be registered through /user/token.")
    if error.kind == "missing":
        return ("relay_sdk_missing", str(error),
                'Install the hub with its dependencies (they include wukong-easy-sdk), or set server_line = "v2" '
                "if the server speaks the v2 line.")
    if error.kind == "kicked":
        return ("relay_kicked", f"Another client signed in as {uid!r} with the same device flag and WuKongIM "
                                "disconnected the hub (reason 12 ConnectKick).",
                "Give the hub a uid of its own ([relay] uid) or another [relay] device_flag, then restart the hub.")
    if error.kind == "protocol":
        if line == "compat":
            return ("relay_protocol_mismatch",
                    f"The server's JSON-RPC does not follow the compat line the official SDK speaks ({error}): "
                    "a ping answer without `result` or a message without `header` is the released v2.x line.",
                    'Set [relay] server_line = "v2" (or "auto") and restart the hub.')
        return ("relay_unsupported_server", f"The server's answers do not follow WuKongIM's JSON-RPC ({error}).",
                "Check that [relay] ws_url is WuKongIM's WebSocket address (port 5200 by default).")
    if error.kind == "rejected" and error.code == wire.NOT_IN_WHITELIST:
        return ("relay_not_in_whitelist", "WuKongIM refused to deliver: reason 13 NotInWhitelist.", WHITELIST_STEP)
    if error.kind == "rejected":
        return ("relay_send_refused", f"WuKongIM refused the message ({wire.reason_name(error.code)}).",
                "Check the person's channel on the WuKongIM side (blacklist, ban, rate limit).")
    return ("relay_unreachable", f"The WuKongIM connection failed: {error}.",
            "The hub keeps trying with growing pauses; check the network and [relay] ws_url.")
