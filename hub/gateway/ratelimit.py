"""Per-agent token buckets: how many envelopes one agent may send a second, across all its connections."""

from __future__ import annotations

import time


class AgentRateLimiter:
    """A token bucket per agent id: `rate` tokens a second up to `burst`; a send takes one or is refused."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._buckets: dict[str, tuple[float, float]] = {}  # agent id -> (tokens, monotonic time of that count)

    def allow(self, agent_id: str) -> bool:
        if self.rate <= 0:
            return True
        now = time.monotonic()
        tokens, then = self._buckets.get(agent_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[agent_id] = (tokens, now)
            return False
        self._buckets[agent_id] = (tokens - 1.0, now)
        return True

    def forget(self, agent_id: str) -> None:
        """The agent has no connection left: its bucket would refill to full anyway."""
        self._buckets.pop(agent_id, None)
