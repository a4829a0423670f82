"""What type a stored file is, judged from its bytes, never taken from the sender as it is.

An image is one of png, jpeg, gif or webp by its first bytes (whatever the sender called it); a PDF starts with `%PDF-`
(even when all its bytes are ASCII); text is UTF-8 without a NUL byte, stored as text/plain unless it is Markdown, CSV
or JSON; anything else is application/octet-stream. So an upload never becomes a type a browser would run as a page:
an svg, an html page, an xml or a script the sender declares is stored as text/plain (its source, shown as text) or
application/octet-stream, and served with a sandboxing CSP and `nosniff` all the same (docs/security.md "Files").
"""

from __future__ import annotations

import re
import unicodedata

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/csv", "application/json"})
# What the app previews inline (the rest is a download): the images and the text types above.
PREVIEWED = IMAGE_TYPES | TEXT_TYPES
SNIFF_BYTES = 16  # how much of the start of a file the image and PDF checks need

_BY_EXTENSION = {".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv", ".json": "application/json"}
MAX_NAME = 255


def image_type(head: bytes) -> str | None:
    """png, jpeg, gif or webp by the file's first bytes, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def stored_type(head: bytes, is_text: bool, declared: str | None, name: str) -> str:
    """The type a file is stored and served as: `head` its first bytes, `is_text` whether all of it is UTF-8
    without NUL, `declared` what the sender said (Content-Type), `name` its file name."""
    found = image_type(head)
    if found is not None:
        return found
    if head.startswith(b"%PDF-"):  # before the text check: a PDF of ASCII bytes only is valid UTF-8 too
        return "application/pdf"
    if is_text:
        base = (declared or "").split(";", 1)[0].strip().lower()
        if base in TEXT_TYPES and base != "text/plain":
            return base
        dot = name.rfind(".")
        return _BY_EXTENSION.get(name[dot:].lower(), "text/plain") if dot >= 0 else "text/plain"
    return "application/octet-stream"


def served_type(mime_type: str) -> str:
    """The Content-Type of a stored file's bytes: text says its charset."""
    return f"{mime_type}; charset=utf-8" if mime_type in TEXT_TYPES else mime_type


def clean_name(name: str) -> str:
    """A file name as it is kept and shown: the last part of a path, no control or format characters, at most 255
    characters; "file" when nothing is left."""
    name = re.split(r"[/\\]", name)[-1]
    name = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in name).strip()
    name = name.strip(".") and name  # "..", "." are no names
    return name[:MAX_NAME] or "file"
