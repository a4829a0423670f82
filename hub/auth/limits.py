"""Guess limits for sign-in, pairing and setup codes (a sliding window per key, kept in memory), and the cap on
password hashes running at once.

An attempt is counted *before* its secret is checked (`GuessLimiter.attempt`, `SignInLimits.attempt`) and given
back once the check shows it was not a wrong guess, so attempts that arrive together can never be checked beyond
the limit: each one finds the others already counted (issue "approve by mistake", item 7: 60 simultaneous wrong
passwords from one address were all checked before any was counted).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

# The LapError codes that mean "the secret was wrong": the attempt stays counted.
WRONG_SECRET = frozenset({"unauthorized", "expired"})


class Attempt:
    """One attempt, counted in one or more windows before its secret is checked. It stays counted (a wrong guess)
    unless `give_back()` is called: a right secret, or a check that never happened, does not count."""

    def __init__(self, counted: list[tuple[GuessLimiter, str, float]]) -> None:
        self._counted = counted

    def give_back(self) -> None:
        for limiter, key, stamp in self._counted:
            limiter.uncount(key, stamp)
        self._counted = []

    @contextlib.contextmanager
    def settled(self, wrong: Collection[str] = WRONG_SECRET) -> Iterator[None]:
        """Check the secret inside: an error whose `code` is in `wrong` keeps the attempt counted; no error, or any
        other error (the hub busy, a bad request, a full disk), gives it back. A cancelled check stays counted: its
        caller never learns the answer, and giving it back would let a guesser cancel its way past the limit."""
        try:
            yield
        except Exception as exc:
            if getattr(exc, "code", None) not in wrong:
                self.give_back()
            raise
        self.give_back()


class GuessLimiter:
    """At most `attempts` failures per key within `window_s`; success does not count."""

    def __init__(self, attempts: int, window_s: float, max_keys: int = 10_000) -> None:
        self.attempts = attempts
        self.window_s = window_s
        self.max_keys = max_keys
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        now = time.monotonic()
        failures = self._failures.setdefault(key, deque())
        while failures and now - failures[0] > self.window_s:
            failures.popleft()
        return failures

    def blocked(self, key: str) -> bool:
        return len(self._recent(key)) >= self.attempts

    def retry_after(self, key: str) -> int:
        """Whole seconds until `key` may try again (0: it may now): when its oldest counted failure expires."""
        failures = self._recent(key)
        if len(failures) < self.attempts:
            return 0
        oldest_that_blocks = failures[len(failures) - self.attempts]
        return max(1, math.ceil(self.window_s - (time.monotonic() - oldest_that_blocks)))

    def attempt(self, key: str) -> Attempt | None:
        """Count an attempt of `key` before its secret is checked; None (nothing counted) when `key` is blocked."""
        if self.blocked(key):
            return None
        return Attempt([self.count(key)])

    def fail(self, key: str) -> None:
        self.count(key)

    def count(self, key: str) -> tuple[GuessLimiter, str, float]:
        """Count one attempt of `key` now (a failure unless taken back with `uncount`)."""
        stamp = time.monotonic()
        self._recent(key).append(stamp)
        if len(self._failures) > self.max_keys:  # bound memory against many distinct keys
            for stale in [k for k, v in self._failures.items() if not v][: self.max_keys // 2]:
                del self._failures[stale]
        if len(self._failures) > self.max_keys:
            # Still full: forget keys that are not blocked, those seen first first (dicts keep order). A blocked
            # source is kept, so a guesser cannot clear its own block by failing from many other keys.
            now = time.monotonic()
            unblocked = [k for k, v in self._failures.items()
                         if sum(1 for t in v if now - t <= self.window_s) < self.attempts]
            for old in unblocked[: len(self._failures) - self.max_keys // 2]:
                del self._failures[old]
        if len(self._failures) > 2 * self.max_keys:  # only blocked keys left: bound memory all the same
            for old in list(self._failures)[: len(self._failures) - self.max_keys]:
                del self._failures[old]
        return self, key, stamp

    def uncount(self, key: str, stamp: float) -> None:
        """Take back one counted attempt (gone already if it left the window or its key was forgotten)."""
        failures = self._failures.get(key)
        if failures is not None:
            with contextlib.suppress(ValueError):
                failures.remove(stamp)


class HashingBusy(Exception):
    """Every password-hash slot is taken and the queue is full: answer 429 with Retry-After, check nothing."""

    code = "rate_limited"
    retry_after_s = 1


class PasswordHashing:
    """At most `slots` password hashes (scrypt: 32 MiB each) at once, on threads of their own; up to `queue` more
    wait their turn, and beyond that `run` raises HashingBusy at once instead of queueing without end.

    A slot is held until the hash's thread finishes, also when the request that asked for it has gone (a thread
    cannot be stopped), so the cap holds whatever the clients do. One per process (`PASSWORD_HASHING`): the memory
    it protects is the process's.
    """

    def __init__(self, slots: int = 2, queue: int = 16) -> None:
        self.slots = slots
        self.queue = queue
        self._lock = threading.Lock()
        self._admitted = 0  # submitted and not finished: running, then waiting
        self._pool: ThreadPoolExecutor | None = None

    @property
    def running(self) -> int:
        return min(self._admitted, self.slots)

    @property
    def waiting(self) -> int:
        return max(0, self._admitted - self.slots)

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        with self._lock:
            if self._admitted >= self.slots + self.queue:
                raise HashingBusy
            self._admitted += 1
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="lineup-hash")
            pool = self._pool
        try:
            future: Future[T] = pool.submit(fn, *args)
        except BaseException:
            self._finished(None)
            raise
        future.add_done_callback(self._finished)
        return await asyncio.wrap_future(future)

    def _finished(self, _future: object) -> None:
        with self._lock:
            self._admitted -= 1


PASSWORD_HASHING = PasswordHashing(slots=2, queue=16)


class SignInLimits:
    """Password guesses (`/api/login`), counted three ways in one window: per source, per account and hub-wide.

    Passwords are guessable, so unlike the long random codes they need ceilings that many addresses cannot
    multiply: once an account (or the hub) has had too many wrong passwords, sign-ins from the network wait
    (429 with Retry-After) until the window moves on. The person at the hub's own machine is one source with a
    budget of its own and is never held by the account or hub-wide ceilings, so a storm from the LAN cannot lock
    the owner out there; its own wrong passwords do not count toward them either.

    `hashing` caps the password hashes running at once (setup's included), whatever the windows allow.
    """

    def __init__(self, per_source: int = 10, per_account: int = 20, hub_wide: int = 100,
                 window_s: float = 300, local_window_s: float = 30,
                 hashing: PasswordHashing = PASSWORD_HASHING) -> None:
        self.sources = GuessLimiter(per_source, window_s)
        # The person at the hub's machine is slowed down, not locked out for minutes: whoever sits there can get a
        # token without a password anyway (`lineup token`), so a long wait protects nothing and only locks them out.
        self.local = GuessLimiter(per_source, local_window_s)
        self.accounts = GuessLimiter(per_account, window_s)
        self.hub = GuessLimiter(hub_wide, window_s, max_keys=1)
        self.hashing = hashing

    def wait_s(self, source: str, account: str, local: bool) -> int:
        """Seconds this sign-in must wait (0: go ahead and check the password)."""
        if local:
            return self.local.retry_after(source)
        return max(self.sources.retry_after(source), self.accounts.retry_after(account.lower()),
                   self.hub.retry_after("*"))

    def attempt(self, source: str, account: str, local: bool) -> Attempt | None:
        """Count this sign-in in every window before its password is checked; None (nothing counted) when it
        must wait (`wait_s`)."""
        if self.wait_s(source, account, local):
            return None
        if local:
            return Attempt([self.local.count(source)])
        return Attempt([self.sources.count(source), self.accounts.count(account.lower()), self.hub.count("*")])

    def fail(self, source: str, account: str, local: bool) -> None:
        if local:
            self.local.fail(source)
            return
        self.sources.fail(source)
        self.accounts.fail(account.lower())
        self.hub.fail("*")
