"""Origin checks for browser-facing endpoints: a page of another site may not drive the hub (CSRF, CSWSH)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit


def origin_allowed(headers: Mapping[str, str]) -> bool:
    """No Origin header (SDKs, curl) is fine; a browser's Origin must be the hub's own host and port."""
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host")
    if not host or origin == "null":
        return False
    return urlsplit(origin).netloc.lower() == host.lower()
