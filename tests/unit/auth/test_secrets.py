"""Secrets: scrypt password hashes, token hashes, pairing codes (scrypt is slow on purpose: few hashes here)."""

from __future__ import annotations

import hashlib
import re

import pytest

from hub.auth.secrets import (
    _CODE_ALPHABET,
    hash_password,
    new_pairing_code,
    new_setup_code,
    new_token,
    no_match_hash,
    normalize_pairing_code,
    token_hash,
    verify_password,
)


@pytest.fixture(scope="module")
def stored() -> str:
    return hash_password("correct horse battery")


def test_password_hash_is_salted_scrypt_and_not_the_password(stored: str) -> None:
    assert "correct horse battery" not in stored
    scheme, n, r, p, salt, digest = stored.split("$")
    assert (scheme, n, r, p) == ("scrypt", "32768", "8", "1")
    assert len(salt) == 24 and len(digest) == 44  # base64 of 16 and 32 bytes


def test_verify_accepts_the_password_and_rejects_another(stored: str) -> None:
    assert verify_password("correct horse battery", stored)
    assert not verify_password("correct horse batterY", stored)


def test_same_password_hashes_differently(stored: str) -> None:
    assert hash_password("correct horse battery") != stored


def test_the_no_match_hash_costs_what_a_real_hash_costs_and_matches_nothing(stored: str) -> None:
    """An unknown username is checked against it: same scheme and cost as a stored hash, so the answer's timing
    does not tell which usernames exist; and no password, not even an empty one, matches it."""
    assert no_match_hash().split("$")[:4] == stored.split("$")[:4]
    assert not verify_password("", no_match_hash()) and not verify_password("correct horse battery", no_match_hash())


def test_the_no_match_hash_follows_the_configured_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    from hub.auth import secrets

    monkeypatch.setattr(secrets, "_SCRYPT_N", 2**8)
    assert no_match_hash().split("$")[1] == "256" and hash_password("x").split("$")[1] == "256"


@pytest.mark.parametrize("bad", ["", "!", "plain", "bcrypt$12$abc$def$ghi$jkl", "scrypt$1$2$3"])
def test_verify_refuses_what_is_not_a_scrypt_hash(bad: str) -> None:
    # "!" is what `lineup token` stores for an owner without a password: nobody can sign in with it.
    assert not verify_password("", bad) and not verify_password("!", bad)


def test_token_hash_is_sha256_hex() -> None:
    assert token_hash("lu_dev_abc") == hashlib.sha256(b"lu_dev_abc").hexdigest()
    assert len(token_hash("x")) == 64 and token_hash("a") != token_hash("b")
    assert token_hash("lu_dev_abc") == token_hash("lu_dev_abc")


def test_tokens_are_prefixed_and_unique() -> None:
    tokens = {new_token("agt") for _ in range(200)}
    assert len(tokens) == 200
    assert all(re.fullmatch(r"lu_agt_[A-Za-z0-9_-]{43}", t) for t in tokens)  # 32 random bytes


def test_pairing_codes_use_the_readable_alphabet() -> None:
    assert not set("ILOU") & set(_CODE_ALPHABET) and len(_CODE_ALPHABET) == 32
    codes = [new_pairing_code() for _ in range(300)]
    assert all(re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", c) for c in codes)
    assert len(set(codes)) == 300


@pytest.mark.parametrize(("typed", "normalized"), [
    ("ABCD-EFGH", "ABCD-EFGH"),
    ("abcd-efgh", "ABCD-EFGH"),
    ("abcdefgh", "ABCD-EFGH"),
    (" ab cd ef gh ", "ABCD-EFGH"),
    ("O0o0-1IiL", "0000-1111"),
    ("oooo-iiii", "0000-1111"),
    ("llll llll", "1111-1111"),
    ("abc", "ABC"),          # the wrong length is left for the lookup to refuse
    ("abcd-efgh-j", "ABCDEFGHJ"),
])
def test_normalize_pairing_code(typed: str, normalized: str) -> None:
    assert normalize_pairing_code(typed) == normalized


def test_a_generated_code_survives_how_people_type_it() -> None:
    for _ in range(50):
        code = new_pairing_code()
        for typed in (code.lower(), code.replace("-", ""), code.replace("-", " "), f"  {code}  ",
                      code.replace("0", "O").replace("1", "l")):
            assert normalize_pairing_code(typed) == code


def test_setup_code_is_eight_digits() -> None:
    assert all(re.fullmatch(r"\d{8}", new_setup_code()) for _ in range(50))
