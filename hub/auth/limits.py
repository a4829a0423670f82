"""Guess limits for sign-in, pairing and setup codes: a sliding window per key, kept in memory."""

from __future__ import annotations

import math
import time
from collections import deque


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

    def fail(self, key: str) -> None:
        self._recent(key).append(time.monotonic())
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


class SignInLimits:
    """Password guesses (`/api/login`), counted three ways in one window: per source, per account and hub-wide.

    Passwords are guessable, so unlike the long random codes they need ceilings that many addresses cannot
    multiply: once an account (or the hub) has had too many wrong passwords, sign-ins from the network wait
    (429 with Retry-After) until the window moves on. The person at the hub's own machine is one source with a
    budget of its own and is never held by the account or hub-wide ceilings, so a storm from the LAN cannot lock
    the owner out there; its own wrong passwords do not count toward them either.
    """

    def __init__(self, per_source: int = 10, per_account: int = 20, hub_wide: int = 100,
                 window_s: float = 300, local_window_s: float = 30) -> None:
        self.sources = GuessLimiter(per_source, window_s)
        # The person at the hub's machine is slowed down, not locked out for minutes: whoever sits there can get a
        # token without a password anyway (`lineup token`), so a long wait protects nothing and only locks them out.
        self.local = GuessLimiter(per_source, local_window_s)
        self.accounts = GuessLimiter(per_account, window_s)
        self.hub = GuessLimiter(hub_wide, window_s, max_keys=1)

    def wait_s(self, source: str, account: str, local: bool) -> int:
        """Seconds this sign-in must wait (0: go ahead and check the password)."""
        if local:
            return self.local.retry_after(source)
        return max(self.sources.retry_after(source), self.accounts.retry_after(account.lower()),
                   self.hub.retry_after("*"))

    def fail(self, source: str, account: str, local: bool) -> None:
        if local:
            self.local.fail(source)
            return
        self.sources.fail(source)
        self.accounts.fail(account.lower())
        self.hub.fail("*")
