"""Guess limits for sign-in, pairing and setup codes: a sliding window per key, kept in memory."""

from __future__ import annotations

import time
from collections import deque


class GuessLimiter:
    """At most `attempts` failures per key within `window_s`; success does not count."""

    def __init__(self, attempts: int, window_s: float) -> None:
        self.attempts = attempts
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        now = time.monotonic()
        failures = self._failures.setdefault(key, deque())
        while failures and now - failures[0] > self.window_s:
            failures.popleft()
        return failures

    def blocked(self, key: str) -> bool:
        return len(self._recent(key)) >= self.attempts

    def fail(self, key: str) -> None:
        self._recent(key).append(time.monotonic())
        if len(self._failures) > 10_000:  # bound memory against many distinct keys
            for stale in [k for k, v in self._failures.items() if not v][:5_000]:
                del self._failures[stale]
