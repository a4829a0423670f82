"""Addresses an agent puts into the hub (an artifact's `url`, a review attachment's `url`): judged on the parsed URL,
when stored, so the app never has to guess what a string means (security issue item 10).

What is stored, and what the app does with it (ui/lib/artifacts.js judges again, on the browser's own parse):

- `http://` and `https://` with a host: another site's page, opened in a new tab naming that site's host, or this
  hub's page when the parsed origin is the hub's. No user name or password in it (`https://hub@evil.example/`
  reads as the hub and opens evil.example).
- `data:` of an allowed type (DATA_TYPES: text, JSON, PDF, png/jpeg/gif/webp images), base64 or percent-encoded:
  small results carried whole (LineUp's Claude Code hook sends written files as `data:text/plain;charset=utf-8,…`,
  `lineup mcp` sends `publish_artifact` content as `data:<type>;base64,…`). The app downloads it or shows it as text
  or an image, never as a page.
- `file:///…` (a path on the agent's machine, LineUp's hook names files too big for a data: URL this way): stored so
  the person sees which file, never made a link (the app shows the path as text).
- `/…`, a path on this hub (not `//`, which is another host): opened as this hub's page; an image there may be
  previewed.

Everything else (`javascript:`, `vbscript:`, `blob:`, relative paths, `//host`) is refused, and so is any value with
a control character, a space or other invisible character anywhere (` javascript:`, `java\\nscript:` and
`/\\t/evil.example` read differently to a string check than to a browser, which drops them), or a backslash
(browsers read `\\` as `/`; Python's parser does not).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import SplitResult, urlsplit

from hub.protocol.errors import LapError

MAX_LINK_CHARS = 4000  # as an artifact's url (hub/protocol/payloads.py)

# The types a data: URL may carry: what the app shows as text, an image or a PDF (anything else it would download
# as an opaque file named by the agent).
DATA_TYPES = frozenset({
    "text/plain", "text/markdown", "text/x-markdown", "text/csv", "text/tab-separated-values", "text/x-diff",
    "text/x-patch", "application/json", "application/pdf",
    "image/png", "image/jpeg", "image/gif", "image/webp",
})

ALLOWED = ("http:// or https:// with a host, data: of type " + ", ".join(sorted(DATA_TYPES))
           + " (code and other text as text/plain), file:/// (shown as a path, never opened), or a path on this hub "
           "starting with a single /")

_TOKEN = re.compile(r"[A-Za-z0-9!#$&^_.+-]+")  # RFC 2045 token characters (a parameter's name and value)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")  # a % not followed by two hex digits
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
# Unicode categories that never belong in an address as written: controls, format characters (zero-width, bidi
# overrides, soft hyphen), separators (every kind of space), unassigned and private-use code points, surrogates.
_INVISIBLE = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Zs", "Zl", "Zp"})


def _refuse(field: str, why: str) -> LapError:
    return LapError("invalid_payload", f"{field} {why}. Allowed: {ALLOWED}.",
                    hint="Send the address as the browser would show it, percent-encoding spaces and other "
                         "special characters.", details={"field": field})


def check_link(value: str, field: str) -> str:
    """`value` if it is an address the hub stores (see the module's docstring), else LapError(invalid_payload) naming
    `field` and saying what is allowed. The value is returned as given, never rewritten."""
    if not isinstance(value, str) or not value:
        raise _refuse(field, "must be a non-empty string")
    if len(value) > MAX_LINK_CHARS:
        raise _refuse(field, f"is longer than {MAX_LINK_CHARS} characters")
    for index, char in enumerate(value):
        if char.isspace() or unicodedata.category(char) in _INVISIBLE:
            raise _refuse(field, f"contains a space or an invisible or control character (U+{ord(char):04X} at "
                                 f"position {index})")
    if "\\" in value:
        raise _refuse(field, "contains a backslash (browsers read it as /)")
    scheme, colon, _ = value.partition(":")
    if value.startswith("/"):
        _check_hub_path(value, field)
    elif not colon or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        raise _refuse(field, "is not an absolute address (it has no scheme such as https:)")
    elif scheme.lower() in ("http", "https"):
        _check_web(value, field)
    elif scheme.lower() == "data":
        _check_data(value, field)
    elif scheme.lower() == "file":
        _check_file(value, field)
    else:
        raise _refuse(field, f"uses the scheme {scheme.lower()}:, which is not allowed")
    return value


def _split(value: str, field: str) -> SplitResult:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - a port that is not a number in range raises here
    except ValueError as exc:
        raise _refuse(field, f"is not a valid address ({exc})") from None
    return parts


def _check_web(value: str, field: str) -> None:
    parts = _split(value, field)
    if not value[len(parts.scheme) + 1:].startswith("//") or not parts.hostname:
        raise _refuse(field, "has no host (write https://host/…)")
    if "@" in parts.netloc:
        raise _refuse(field, "contains a user name or password before the host (https://name@host/ reads as "
                             "`name` and opens `host`)")
    host = parts.hostname
    if parts.netloc.startswith("["):
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            raise _refuse(field, f"has an invalid IPv6 host [{host}]") from None
    elif not all(char in _HOST_CHARS or (not char.isascii() and char.isalnum()) for char in host):
        raise _refuse(field, f"has a host with characters a host name cannot hold ({host})")


def _check_data(value: str, field: str) -> None:
    meta, comma, body = value[len("data:"):].partition(",")
    if not comma:
        raise _refuse(field, "is a data: URL without the comma before its content")
    params = meta.split(";")
    mime = params[0].lower() or "text/plain"
    base64 = len(params) > 1 and params[-1].lower() == "base64"
    for param in params[1:-1] if base64 else params[1:]:
        name, equals, param_value = param.partition("=")
        if not equals or not _TOKEN.fullmatch(name) or not _TOKEN.fullmatch(param_value):
            raise _refuse(field, f"is a data: URL with a malformed parameter `{param[:60]}`")
    if mime not in DATA_TYPES:
        raise _refuse(field, f"is a data: URL of type {mime[:60]}, which is not allowed")
    if base64 and not _BASE64.fullmatch(body):
        raise _refuse(field, "is a data: URL marked base64 whose content is not base64")
    if not base64 and _PERCENT.search(body):
        raise _refuse(field, "is a data: URL with a % that is not followed by two hexadecimal digits")


def _check_file(value: str, field: str) -> None:
    parts = _split(value, field)
    if not value[len("file:"):].startswith("//") or not parts.path.startswith("/") or parts.query or parts.fragment:
        raise _refuse(field, "is a file: URL that is not file:///path (percent-encode ? and #)")
    if parts.netloc.lower() not in ("", "localhost"):
        raise _refuse(field, "is a file: URL of another machine (only file:///path, on the agent's own machine)")


def _check_hub_path(value: str, field: str) -> None:
    if value.startswith("//"):
        raise _refuse(field, "starts with // (another host, not a path on this hub)")
    _split(value, field)
