"""LapError: the closed list of codes, each with its HTTP status and a human hint."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hub.protocol.errors import ERROR_CODES, LapError

# The repository's own protocol page, whose "Errors" section is the list clients are promised.
PROTOCOL_MD = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"
# docs/protocol.md#errors: the codes clients are promised.
PROTOCOL_CODES = ["invalid_json", "invalid_envelope", "unsupported_version", "invalid_payload", "unauthorized",
                  "forbidden", "not_found", "conflict", "illegal_transition", "already_resolved", "expired",
                  "rate_limited", "storage_full", "internal"]
EXPECTED_STATUS = {"invalid_json": 400, "invalid_envelope": 400, "unsupported_version": 400, "invalid_payload": 422,
                   "unauthorized": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
                   "illegal_transition": 409, "already_resolved": 409, "expired": 410, "rate_limited": 429,
                   "storage_full": 507, "internal": 500}


def test_the_codes_are_exactly_the_protocol_list() -> None:
    assert list(ERROR_CODES) == PROTOCOL_CODES


def test_protocol_document_lists_the_same_codes_and_statuses() -> None:
    """docs/protocol.md's "Errors" section names every code with its HTTP status, in the same order."""
    text = PROTOCOL_MD.read_text()
    section = re.search(r"^### Errors\n(.*?)^#", text, re.S | re.M)
    assert section is not None, "docs/protocol.md has no \"### Errors\" section"
    listed = re.search(r"one of this closed list .*?: (.*?)\. `storage_full`", section.group(1), re.S)
    assert listed is not None, "the Errors section no longer lists the codes"
    pairs = re.findall(r"`(\w+)` \((\d{3})\)", listed.group(1))
    assert [code for code, _ in pairs] == PROTOCOL_CODES
    assert {code: int(status) for code, status in pairs} == EXPECTED_STATUS


@pytest.mark.parametrize("code", PROTOCOL_CODES)
def test_every_code_has_its_status_and_a_hint(code: str) -> None:
    error = LapError(code, "what happened")
    assert error.status == EXPECTED_STATUS[code]
    assert error.hint == ERROR_CODES[code][1] and len(error.hint) > 20
    assert error.retryable == (code in ("storage_full", "internal", "rate_limited"))
    assert str(error) == "what happened"


def test_an_unknown_code_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="no_such_code"):
        LapError("no_such_code", "x")


def test_a_specific_hint_replaces_the_default() -> None:
    error = LapError("unauthorized", "bad code", hint="Create a new pairing code.")
    assert error.hint == "Create a new pairing code."
    assert LapError("unauthorized", "bad code", hint="").hint == ERROR_CODES["unauthorized"][1]


def test_as_payload_is_the_system_error_body() -> None:
    error = LapError("conflict", "id reused")
    assert error.as_payload() == {"code": "conflict", "message": "id reused", "hint": ERROR_CODES["conflict"][1]}
    with_id = error.as_payload("e1")
    assert list(with_id) == ["id", "code", "message", "hint"] and with_id["id"] == "e1"


def test_storage_full_hint_says_nothing_was_stored_and_to_resend() -> None:
    hint = LapError("storage_full", "disk full").hint
    assert "nothing was stored" in hint and "resend" in hint.lower()
