"""Making and checking secrets: scrypt for passwords, SHA-256 for high-entropy tokens, pairing codes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

# scrypt is memory-hard (RFC 7914); n=2**15, r=8 needs 32 MiB per hash, ~50-100 ms on a laptop.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**15, 8, 1
_SCRYPT_MAXMEM = 64 * 1024 * 1024
# Crockford's base32 without I, L, O, U: easy to read aloud and to type on a phone.
_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P,
                            maxmem=_SCRYPT_MAXMEM, dklen=32)
    encoded_salt, encoded_digest = base64.b64encode(salt).decode(), base64.b64encode(digest).decode()
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${encoded_salt}${encoded_digest}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_b64, digest_b64 = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    digest = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt_b64), n=int(n), r=int(r), p=int(p),
                            maxmem=_SCRYPT_MAXMEM, dklen=32)
    return hmac.compare_digest(digest, base64.b64decode(digest_b64))


def no_match_hash() -> str:
    """A well-formed hash no password matches, at today's cost: checked when a username is unknown or has no
    password, so every wrong sign-in costs one scrypt of the same cost and the time of the answer does not tell
    which usernames exist."""
    zeros = base64.b64encode(bytes(16)).decode()
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${zeros}${base64.b64encode(bytes(32)).decode()}"


def new_token(kind: str) -> str:
    """A bearer secret with 256 bits of entropy and a readable prefix (`lu_dev_…`, `lu_agt_…`)."""
    return f"lu_{kind}_{secrets.token_urlsafe(32)}"


def token_hash(token: str) -> str:
    """Tokens are random, so a plain SHA-256 is enough to keep them unusable if the database leaks."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_pairing_code() -> str:
    """Eight characters (40 bits) shown as XXXX-XXXX; single use, 10 minutes, guesses rate-limited."""
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normalize_pairing_code(code: str) -> str:
    """Accept what a person types: lower case, spaces, O for 0, I/L for 1, with or without the dash."""
    cleaned = code.strip().upper().replace(" ", "").replace("-", "")
    cleaned = cleaned.translate(str.maketrans("OIL", "011"))
    return f"{cleaned[:4]}-{cleaned[4:]}" if len(cleaned) == 8 else cleaned


def new_setup_code() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(8))
