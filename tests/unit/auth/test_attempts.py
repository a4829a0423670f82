"""Counting an attempt before its secret is checked (GuessLimiter.attempt, SignInLimits.attempt) and the cap on
password hashes at once (PasswordHashing): hub/auth/limits.py."""

from __future__ import annotations

import asyncio
import threading

import pytest

from hub.auth.limits import GuessLimiter, HashingBusy, PasswordHashing, SignInLimits
from hub.protocol.errors import LapError


def test_attempts_in_flight_count_before_any_is_settled() -> None:
    limiter = GuessLimiter(attempts=3, window_s=60)
    taken = [limiter.attempt("k") for _ in range(5)]
    assert [a is not None for a in taken] == [True, True, True, False, False]
    assert limiter.blocked("k")


def test_a_right_secret_or_an_unrelated_error_gives_the_attempt_back() -> None:
    limiter = GuessLimiter(attempts=2, window_s=60)
    first = limiter.attempt("k")
    assert first is not None
    with first.settled():
        pass  # the secret was right
    second = limiter.attempt("k")
    assert second is not None
    with pytest.raises(LapError), second.settled():
        raise LapError("storage_full", "disk full")  # the check never happened
    assert len(limiter._recent("k")) == 0


def test_a_wrong_secret_or_a_cancelled_check_stays_counted() -> None:
    limiter = GuessLimiter(attempts=2, window_s=60)
    wrong = limiter.attempt("k")
    assert wrong is not None
    with pytest.raises(LapError), wrong.settled():
        raise LapError("unauthorized", "wrong code")
    cancelled = limiter.attempt("k")
    assert cancelled is not None
    with pytest.raises(asyncio.CancelledError), cancelled.settled():
        raise asyncio.CancelledError
    assert limiter.blocked("k") and limiter.attempt("k") is None


def test_a_sign_in_is_counted_in_every_window_and_given_back_from_all() -> None:
    limits = SignInLimits(per_source=2, per_account=3, hub_wide=4)
    first = limits.attempt("10.0.0.1", "Ada", local=False)
    assert first is not None
    assert limits.attempt("10.0.0.2", "ada", local=False) is not None
    assert limits.attempt("10.0.0.3", "ADA", local=False) is not None
    assert limits.attempt("10.0.0.4", "ada", local=False) is None  # the account's 3 are in flight
    first.give_back()
    assert limits.attempt("10.0.0.4", "ada", local=False) is not None
    assert limits.attempt("10.0.0.5", "bob", local=False) is not None
    assert limits.attempt("10.0.0.6", "carol", local=False) is None  # hub-wide: 4 in flight
    assert limits.attempt("loopback", "ada", local=True) is not None  # the hub's own machine: its own budget


async def test_hashes_beyond_the_slots_wait_and_beyond_the_queue_are_refused_at_once() -> None:
    hashing = PasswordHashing(slots=2, queue=1)
    release = threading.Event()
    started = threading.Semaphore(0)

    def slow_hash(n: int) -> int:
        started.release()
        release.wait(10)
        return n

    running = [asyncio.ensure_future(hashing.run(slow_hash, n)) for n in range(3)]
    for _ in range(2):
        assert await asyncio.to_thread(started.acquire, True, 10)
    await asyncio.sleep(0)
    assert (hashing.running, hashing.waiting) == (2, 1)
    with pytest.raises(HashingBusy):
        await hashing.run(slow_hash, 99)
    release.set()
    assert await asyncio.gather(*running) == [0, 1, 2]
    assert (hashing.running, hashing.waiting) == (0, 0)


async def test_a_slot_is_held_until_the_hash_ends_even_if_its_caller_went_away() -> None:
    hashing = PasswordHashing(slots=1, queue=0)
    release = threading.Event()
    started = threading.Event()

    def slow_hash() -> None:
        started.set()
        release.wait(10)

    caller = asyncio.ensure_future(hashing.run(slow_hash))
    assert await asyncio.to_thread(started.wait, 10)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    with pytest.raises(HashingBusy):  # the thread still hashes: its slot is not free
        await hashing.run(slow_hash)
    release.set()
    deadline = asyncio.get_running_loop().time() + 10
    while hashing.running and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    assert hashing.running == 0
