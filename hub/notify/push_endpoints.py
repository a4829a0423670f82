"""Which push services the hub posts to: the browsers' own, over https, and the origins `lineup.toml` adds.

A subscription's endpoint comes from a signed-in device, and the hub then POSTs to it: without a list, any device
could make the hub post to an address on its LAN or its own machine. So only the push services browsers use are
taken (Chrome's FCM, Firefox's autopush, Safari's Apple push, Edge's WNS), and whatever origins `[notify.webpush]
endpoints` names (a self-hosted autopush; the tests' push service on loopback).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

# Host names, or `.suffix` for every host under it.
KNOWN_HOSTS = ("fcm.googleapis.com", "android.googleapis.com", "updates.push.services.mozilla.com",
               ".push.apple.com", ".notify.windows.com")


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def allowed(endpoint: str, extra_origins: Sequence[str] = ()) -> bool:
    """Whether the hub may post to `endpoint`: a known push service over https, or an origin configured."""
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
    except ValueError:
        return False
    if parts.username or parts.password or not host:
        return False
    if origin(endpoint) in {origin(o) for o in extra_origins if isinstance(o, str)}:
        return True
    if parts.scheme != "https" or parts.port not in (None, 443):
        return False
    return any(host.endswith(known) if known.startswith(".") else host == known for known in KNOWN_HOSTS)
