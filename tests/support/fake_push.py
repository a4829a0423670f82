"""A push service on loopback that speaks the Web Push protocol as the browsers' push services do.

It hands out subscriptions as a browser would post them (an endpoint here, the browser's P-256 public key and
16-byte auth secret, whose private halves it keeps), and for every POST to an endpoint it checks what a real push
service checks: the VAPID JWT (RFC 8292: ES256, signed by the `k` key it names, `aud` this service's origin, an
`exp` within 24 hours), the `TTL` header, and `Content-Encoding: aes128gcm`; then it decrypts the body (RFC 8291)
with the subscription's private key and auth secret, as the browser would, using http_ece. It answers 201, or
whatever a subscription is set to answer (404, 410: unsubscribed, expired). A request that fails a check is
answered 400/401/403 and recorded with its reason, so a test sees why.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Subscription:
    id: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    endpoint: str
    status: int = 201  # what the service answers a push to it

    def as_json(self) -> dict[str, Any]:
        """PushSubscription.toJSON(), as the app posts it to the hub."""
        public = self.private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                            serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}


@dataclass
class Pushed:
    subscription_id: str
    headers: dict[str, str]
    claims: dict[str, Any]
    payload: dict[str, Any]
    received_at: float  # time.time() when the request arrived
    answered: int


@dataclass
class Refused:
    path: str
    reason: str
    status: int


def _verify_vapid(headers: dict[str, str], audience: str) -> tuple[dict[str, Any] | None, str]:
    """The JWT's claims, or None and why not (RFC 8292, and the older `WebPush` + Crypto-Key form)."""
    authorization = headers.get("authorization", "")
    scheme, _, rest = authorization.partition(" ")
    if scheme.lower() == "vapid":
        params = dict(part.strip().split("=", 1) for part in rest.split(",") if "=" in part)
        token, key = params.get("t", ""), params.get("k", "")
    elif scheme.lower() == "webpush":
        token = rest.strip()
        crypto_key = dict(p.split("=", 1) for p in headers.get("crypto-key", "").replace(";", ",").split(",")
                          if "=" in p)
        key = crypto_key.get("p256ecdsa", "")
    else:
        return None, "no VAPID Authorization header"
    try:
        header_b64, claims_b64, signature_b64 = token.split(".")
        header = json.loads(unb64url(header_b64))
        claims = json.loads(unb64url(claims_b64))
        signature = unb64url(signature_b64)
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    except (ValueError, json.JSONDecodeError) as exc:
        return None, f"malformed VAPID token or key: {exc}"
    if header.get("alg") != "ES256" or len(signature) != 64:
        return None, "the JWT is not ES256"
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return None, "the JWT's signature does not verify with its key"
    if claims.get("aud") != audience:
        return None, f"aud is {claims.get('aud')!r}, not this push service's origin {audience!r}"
    exp = claims.get("exp")
    if not isinstance(exp, int) or not time.time() < exp <= time.time() + 24 * 3600:
        return None, f"exp {exp!r} is not within the next 24 hours"
    if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
        return None, "sub is neither mailto: nor https:"
    return claims, ""


@dataclass
class FakePushService:
    subscriptions: dict[str, Subscription] = field(default_factory=dict)
    pushed: list[Pushed] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)

    def __post_init__(self) -> None:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                received_at = time.time()
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status, reason, pushed = service._take(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                       raw, received_at)
                if pushed is None:
                    service.refused.append(Refused(self.path, reason, status))
                else:
                    service.pushed.append(pushed)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def subscribe(self) -> Subscription:
        """A new subscription: the keys a browser makes, an endpoint here."""
        subscription_id = b64url(os.urandom(12))
        made = Subscription(subscription_id, ec.generate_private_key(ec.SECP256R1()), os.urandom(16),
                            f"{self.origin}/push/{subscription_id}")
        self.subscriptions[subscription_id] = made
        return made

    def for_(self, subscription: Subscription) -> list[Pushed]:
        return [p for p in self.pushed if p.subscription_id == subscription.id]

    def _take(self, path: str, headers: dict[str, str], raw: bytes,
              received_at: float) -> tuple[int, str, Pushed | None]:
        subscription = self.subscriptions.get(path.rsplit("/", 1)[-1]) if path.startswith("/push/") else None
        if subscription is None:
            return 404, "no such subscription", None
        claims, why = _verify_vapid(headers, self.origin)
        if claims is None:
            return 401, why, None
        if "ttl" not in headers:
            return 400, "no TTL header", None
        if headers.get("content-encoding") != "aes128gcm":
            return 400, f"Content-Encoding is {headers.get('content-encoding')!r}, not aes128gcm", None
        try:
            plain = http_ece.decrypt(raw, private_key=subscription.private_key, auth_secret=subscription.auth,
                                     version="aes128gcm")
            payload = json.loads(plain)
        except Exception as exc:  # noqa: BLE001 - any failure to decrypt is the sender's fault, said in the record
            return 400, f"the body does not decrypt with the subscription's keys: {exc!r}", None
        return subscription.status, "", Pushed(subscription.id, headers, claims, payload, received_at,
                                               subscription.status)

    def wait_for(self, check: Any, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"the push service did not get it in {timeout} s; refused: {self.refused}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
