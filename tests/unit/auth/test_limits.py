"""GuessLimiter: at most N failures per key within a sliding window."""

from __future__ import annotations

import types

import pytest

from hub.auth import limits
from hub.auth.limits import GuessLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(limits, "time", types.SimpleNamespace(monotonic=fake.monotonic))
    return fake


def test_blocks_after_the_allowed_failures(clock: Clock) -> None:
    limiter = GuessLimiter(attempts=3, window_s=60)
    for _ in range(2):
        limiter.fail("ip:1")
        assert not limiter.blocked("ip:1")
    limiter.fail("ip:1")
    assert limiter.blocked("ip:1")
    assert not limiter.blocked("ip:2")  # per key


def test_failures_slide_out_of_the_window(clock: Clock) -> None:
    limiter = GuessLimiter(attempts=3, window_s=60)
    limiter.fail("k")
    clock.now += 30
    limiter.fail("k")
    limiter.fail("k")
    assert limiter.blocked("k")
    clock.now += 30  # the first failure is exactly 60 s old: still inside the window
    assert limiter.blocked("k")
    clock.now += 0.001  # now it has left
    assert not limiter.blocked("k")
    limiter.fail("k")
    assert limiter.blocked("k")
    clock.now += 60.001
    assert not limiter.blocked("k")


def test_checking_does_not_count_as_a_failure(clock: Clock) -> None:
    limiter = GuessLimiter(attempts=1, window_s=10)
    for _ in range(100):
        assert not limiter.blocked("k")
    limiter.fail("k")
    assert limiter.blocked("k")


def test_memory_stays_bounded_with_many_keys(clock: Clock) -> None:
    limiter = GuessLimiter(attempts=5, window_s=1)
    for i in range(10_001):
        limiter.fail(f"ip:{i}")
    clock.now += 2  # every failure expired
    for i in range(10_001):
        limiter.blocked(f"ip:{i}")  # empties their queues
    limiter.fail("fresh")
    assert len(limiter._failures) <= 10_001 - 5_000 + 1
    assert limiter.blocked("fresh") is False and len(limiter._failures["fresh"]) == 1


def test_a_blocked_source_is_not_forgotten_when_many_other_keys_fail() -> None:
    """Bounding memory forgets unblocked keys first: a guesser cannot clear its own block by failing from
    thousands of other addresses."""
    limiter = GuessLimiter(attempts=3, window_s=60, max_keys=100)
    for _ in range(3):
        limiter.fail("guesser")
    assert limiter.blocked("guesser")
    for n in range(1_000):
        limiter.fail(f"other-{n}")
    assert limiter.blocked("guesser")
    assert len(limiter._failures) <= 200  # memory stays bounded
