"""The hub's VAPID key pair (RFC 8292): made on first use in the data folder (0600), its public half for the app."""

from __future__ import annotations

import base64
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

KEY_FILE = "vapid_private.pem"
_lock = threading.Lock()  # two first pushes at once make one key, not two


@dataclass(frozen=True)
class VapidKeys:
    private_pem: bytes = b""
    public_key: str = ""  # the uncompressed P-256 point, base64url without padding: PushManager's applicationServerKey

    def __repr__(self) -> str:  # the private half never reaches a log line or a traceback's locals
        return f"VapidKeys(public_key={self.public_key!r})"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _public(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint))


def _write_new(path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    # O_EXCL: a key another hub process wrote meanwhile is kept (the phones subscribed with it), never replaced.
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)


def load_or_create(data_dir: Path) -> VapidKeys:
    """The key pair, made now if the data folder has none. The file is narrowed to 0600 if it was found wider."""
    path = data_dir / KEY_FILE
    with _lock:
        if not path.exists():
            data_dir.mkdir(parents=True, exist_ok=True)
            _write_new(path)
        if os.name != "nt" and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        pem = path.read_bytes()
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError(f"{path} is not a P-256 private key; move it away and the hub makes a new one")
    return VapidKeys(pem, _public(key))
