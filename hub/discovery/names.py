"""DNS-SD instance names: a person's hub name made safe for a 63-byte DNS label."""

from __future__ import annotations

import re

MAX_LABEL_BYTES = 63


def instance_name(name: str) -> str:
    """Printable, without dots or control characters, at most 63 bytes of UTF-8 (cut on a character)."""
    cleaned = re.sub(r"[\x00-\x1f\x7f.]+", " ", name).strip() or "LineUp hub"
    encoded = cleaned.encode("utf-8")[:MAX_LABEL_BYTES]
    return encoded.decode("utf-8", errors="ignore").strip() or "LineUp hub"
