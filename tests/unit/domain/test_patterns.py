"""Input patterns are checked by RE2 only (hub/domain/patterns.py): what is refused, and a stored pattern's answer."""

from __future__ import annotations

import random
import time

import pytest

from hub.domain.interactions import check_response
from hub.domain.patterns import MAX_PROGRAM_SIZE, check_pattern, matches
from hub.protocol.errors import LapError


@pytest.mark.parametrize("pattern", [r"[A-Z]{3}-\d+", r"\p{Han}{1,10}", r"(?i)yes|no", "(.|.)*Z", "(a+)+$"])
def test_re2_patterns_are_accepted(pattern: str) -> None:
    check_pattern(pattern)


@pytest.mark.parametrize(("pattern", "why"), [
    (r"(a)\1", "not a valid regular expression"), (r"(?=a)a", "not a valid regular expression"),
    ("a++", "not a valid regular expression"), ("([a-z", "not a valid regular expression"),
    (".*a.{900}", "too complex"), ("x" * 501, "longer than 500"),
])
def test_what_re2_cannot_run_cheaply_is_refused_naming_the_pattern(pattern: str, why: str) -> None:
    with pytest.raises(LapError) as info:
        check_pattern(pattern)
    assert info.value.code == "invalid_payload" and why in info.value.message
    assert pattern[:60] in info.value.message


def test_a_stored_pattern_re2_refuses_never_runs_and_the_answer_is_refused() -> None:
    """A question stored before patterns were checked by RE2 (Python's re accepted `(a)\\1`): no answer is taken
    against it, and it is never handed to a backtracking engine."""
    stored = {"id": "old", "type": "input", "title": "Code?", "pattern": r"(a)\1"}
    with pytest.raises(LapError) as info:
        check_response(stored, {"text": "aa"})
    assert info.value.code == "invalid_payload" and "cannot be checked safely" in info.value.message
    assert check_response(stored, {"declined": True})[0] == "declined"  # the person can still decline it


def test_a_catastrophic_pattern_is_checked_in_linear_time() -> None:
    spec = {"id": "evil", "type": "input", "title": "Code?", "pattern": "(.|.)*Z"}
    started = time.monotonic()
    for size in (30, 1000, 10_000):  # 30 already takes Python's re minutes
        with pytest.raises(LapError, match="requested format"):
            check_response(spec, {"text": "a" * size})
    assert time.monotonic() - started < 0.5
    assert matches("(.|.)*Z", "a" * 9_999 + "Z")


def test_the_worst_accepted_pattern_on_the_longest_checked_answer_stays_fast() -> None:
    """The bounds together: DFA-hostile patterns just under the size limit (RE2 falls back to its NFA, linear but
    (text × program size)), on a random 10,000-character answer."""
    rng = random.Random(7)
    text = "".join(rng.choice("ab") for _ in range(9_999)) + "c"
    for pattern in (".*a.{120}", "(?:.*a.{55}|.*b.{55})x"):
        check_pattern(pattern)
        started = time.monotonic()
        matches(pattern, text)
        assert time.monotonic() - started < 1.0, (pattern, MAX_PROGRAM_SIZE)
