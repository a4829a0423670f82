"""Sealing relay payloads for one device: P-256 ECDH, HKDF-SHA256 and AES-256-GCM, as ui/lib/relay-seal.js does."""
# The construction (docs/relay.md, "The trust model"; docs/protocol.md, "Sealed relay payloads"):
# - agreement, on the LAN only (POST /api/relay/devices): the device sends its P-256 public key, the hub makes a
#   key pair for that device alone, and both run ECDH. The hub keeps only the two keys derived below: its private
#   key is never stored, so nothing on disk recomputes them for another device.
# - two AES-256-GCM keys, one per direction, from HKDF-SHA256 over the shared secret with the two public keys as
#   salt and an info string naming the direction, the hub, the uid, the LineUp device and the key id: a key made
#   for one device, direction or hub opens nothing of another.
# - each payload: a fresh random 96-bit nonce; associated data binding direction, uid, key id and the sender's
#   counter, which the receiver accepts only when it is higher than every one it has accepted (a replayed or
#   reordered message is refused even though its tag is good).
# WebCrypto offers exactly these everywhere; there is no cipher of our own.

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hub.relay import wire

VERSION = 1
LABEL = "lineup-relay-seal/1"
TO_DEVICE = "hub-to-device"
TO_HUB = "device-to-hub"
MAX_COUNTER = 2 ** 53 - 1  # the page reads counters as JavaScript numbers
ALGORITHM = "P-256 ECDH, HKDF-SHA256, AES-256-GCM"


class SealError(Exception):
    """A sealed payload that is refused. `reason`: malformed | unknown_key | tampered | replayed."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class DeviceKeys:
    """What both ends hold for one device: its key id and one AES-256 key per direction."""

    kid: str
    uid: str
    to_device: bytes
    to_hub: bytes

    def __repr__(self) -> str:  # never print a key (a traceback, a debug log)
        return f"DeviceKeys(kid={self.kid!r}, uid={self.uid!r})"

    def key(self, direction: str) -> bytes:
        return self.to_device if direction == TO_DEVICE else self.to_hub


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    if not isinstance(text, str) or len(text) > 1_500_000:
        raise ValueError("not base64url text")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def info(direction: str, hub_id: str, uid: str, device_id: str, kid: str) -> bytes:
    return json.dumps([LABEL, direction, hub_id, uid, device_id, kid], separators=(",", ":")).encode()


def derive(shared: bytes, device_public: bytes, hub_public: bytes, *, hub_id: str, uid: str, device_id: str,
           kid: str) -> DeviceKeys:
    """The two direction keys from an ECDH secret (either end: the device computes the same in the page)."""
    def one(direction: str) -> bytes:
        return HKDF(hashes.SHA256(), 32, device_public + hub_public,
                    info(direction, hub_id, uid, device_id, kid)).derive(shared)
    return DeviceKeys(kid, uid, one(TO_DEVICE), one(TO_HUB))


def public_raw(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def agree(device_public_b64: str, *, hub_id: str, uid: str, device_id: str) -> tuple[DeviceKeys, str]:
    """The hub's half of the agreement: (the device's keys, the hub's public key for it, base64url).
    Raises ValueError for a public key that is not a P-256 point."""
    try:
        device_public = unb64(device_public_b64)
        peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), device_public)
    except (ValueError, binascii.Error, TypeError):
        raise ValueError("publicKey is not a P-256 public key (uncompressed point, base64url)") from None
    private = ec.generate_private_key(ec.SECP256R1())  # for this device only, dropped when this returns
    hub_public = public_raw(private)
    kid = b64(os.urandom(9))
    keys = derive(private.exchange(ec.ECDH(), peer), device_public, hub_public, hub_id=hub_id, uid=uid,
                  device_id=device_id, kid=kid)
    return keys, b64(hub_public)


def associated(direction: str, uid: str, kid: str, counter: int) -> bytes:
    return json.dumps([LABEL, direction, uid, kid, counter], separators=(",", ":")).encode()


def seal(keys: DeviceKeys, direction: str, payload: dict[str, Any], counter: int) -> dict[str, Any]:
    """One payload sealed for the device's other end: what WuKongIM carries instead of it."""
    if not 0 < counter <= MAX_COUNTER:
        raise ValueError("counter out of range")
    nonce = os.urandom(12)
    plain = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    sealed = AESGCM(keys.key(direction)).encrypt(nonce, plain, associated(direction, keys.uid, keys.kid, counter))
    return {"type": wire.SEALED, "v": VERSION, "kid": keys.kid, "n": counter, "iv": b64(nonce), "ct": b64(sealed)}


def open_sealed(keys: DeviceKeys | None, direction: str, sealed: dict[str, Any], last_counter: int
                ) -> tuple[dict[str, Any], int]:
    """(the payload, its counter) when the tag holds and the counter is above `last_counter`; else SealError."""
    counter = sealed.get("n")
    if sealed.get("v") != VERSION or type(counter) is not int or not 0 < counter <= MAX_COUNTER:
        raise SealError("malformed", "not a sealed payload of version 1")
    if keys is None or sealed.get("kid") != keys.kid:
        raise SealError("unknown_key", "sealed with a key this end does not hold (revoked, replaced or foreign)")
    try:
        nonce, body = unb64(sealed.get("iv")), unb64(sealed.get("ct"))  # type: ignore[arg-type]
        if len(nonce) != 12:
            raise ValueError("nonce")
        plain = AESGCM(keys.key(direction)).decrypt(nonce, body, associated(direction, keys.uid, keys.kid, counter))
    except (ValueError, binascii.Error, InvalidTag):
        raise SealError("tampered", "the tag does not hold: changed on the way, or not sealed by the other end") \
            from None
    if counter <= last_counter:
        raise SealError("replayed", f"counter {counter} is not above {last_counter}: replayed or out of order")
    try:
        payload = json.loads(plain)
    except ValueError:
        raise SealError("malformed", "the sealed content is not JSON") from None
    if not isinstance(payload, dict):
        raise SealError("malformed", "the sealed content is not a JSON object")
    return payload, counter
