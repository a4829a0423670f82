"""Certificate pinning for hubs with a self-signed certificate: trust exactly the fingerprint the hub showed."""

from __future__ import annotations

import hashlib
import ssl

from hub.sdk.errors import SdkError


def normalise(fingerprint: str) -> str:
    hexdigits = fingerprint.replace(":", "").replace(" ", "").upper()
    if len(hexdigits) != 64 or any(c not in "0123456789ABCDEF" for c in hexdigits):
        raise SdkError("A TLS fingerprint is 64 hex digits (SHA-256), as the hub prints it.")
    return ":".join(hexdigits[i:i + 2] for i in range(0, 64, 2))


def client_context(fingerprint: str | None) -> ssl.SSLContext:
    """With a pin: encryption without CA checks (the pin is checked after the handshake). Without: normal CA checks."""
    if fingerprint is None:
        return ssl.create_default_context()
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def check_peer(ssl_object: ssl.SSLObject | ssl.SSLSocket | None, fingerprint: str | None) -> None:
    """Refuse the connection unless the server's certificate has the pinned fingerprint."""
    if fingerprint is None or ssl_object is None:
        return
    der = ssl_object.getpeercert(binary_form=True)
    seen = hashlib.sha256(der or b"").hexdigest().upper()
    if ":".join(seen[i:i + 2] for i in range(0, 64, 2)) != normalise(fingerprint):
        raise PinMismatch("The hub's TLS certificate does not match the pinned fingerprint: someone may be "
                          "intercepting the connection, or the hub's certificate changed. Check the fingerprint "
                          "the hub prints and pair again.")


class PinMismatch(SdkError):
    """The server presented another certificate than the pinned one; never retried."""


def served_fingerprint(url: str, timeout_s: float = 10.0) -> str:
    """The fingerprint of the certificate the server at `url` (https) shows now, unverified: for trust on first
    use, when a hub was found on the LAN and no fingerprint was given."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.hostname is None:
        raise SdkError(f"No host in {url!r}.")
    context = client_context("any")  # no CA check: the fingerprint is what is trusted from here on
    try:
        with socket.create_connection((parts.hostname, parts.port or 443), timeout=timeout_s) as raw, \
                context.wrap_socket(raw, server_hostname=parts.hostname) as tls:
            der = tls.getpeercert(binary_form=True) or b""
    except OSError as exc:
        raise SdkError(f"Cannot reach the hub's TLS listener at {url}: {exc}") from None
    return normalise(hashlib.sha256(der).hexdigest())
