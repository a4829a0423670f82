"""No credential in clear beyond this machine: a plain http:// or ws:// hub elsewhere is refused unless allowed.

The agent's credential (its hello, its uploads) and a pairing code (which becomes one) would cross the network
readable by anyone on the way. The hub's own machine (127.0.0.0/8, ::1, localhost) is fine; another address needs
https (a hub on the LAN offers agents TLS, with a pinned certificate), or the person's explicit choice:
`allow_insecure=True`, or LINEUP_ALLOW_INSECURE_HUB=1 for the lineup commands; a credential paired that way keeps
the choice in its file (docs/security.md#agents-transport).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from hub.netaddr import is_loopback_host
from hub.sdk.errors import SdkError

ENV = "LINEUP_ALLOW_INSECURE_HUB"


class InsecureHub(SdkError):
    """A credential would go to a hub beyond this machine in clear."""


def allowed_by_environment() -> bool:
    return os.environ.get(ENV, "").strip().lower() in ("1", "true", "yes")


def refuse_cleartext(url: str, allow_insecure: bool, what: str) -> None:
    """Raise InsecureHub if `what` (a credential, a pairing code) would go to `url` in clear beyond this machine."""
    parts = urlsplit(url)
    if parts.scheme in ("https", "wss") or is_loopback_host(parts.hostname) or allow_insecure:
        return
    host = parts.hostname or "HOST"
    shown = f"[{host}]" if ":" in host else host
    port = parts.port or 80
    raise InsecureHub(
        f"Refusing to send {what} to {parts.scheme}://{shown}:{port} in clear: anyone on the network on the way could "
        f"read it. Use the hub's https:// address (by default https://{shown}:{port + 1}, the hub's port + 1, with "
        "the --fingerprint its pairing command shows). On a network you trust, allow plain http explicitly: "
        f"allow_insecure=True, or {ENV}=1 for the lineup commands.")
