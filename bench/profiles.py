"""The load profiles of docs/quality.md#profiles: agents × events per second per agent, and app sockets."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Profile:
    name: str
    agents: int
    rate: float          # events per second per agent
    apps: int
    run_s: float = 20.0
    warmup_s: float = 3.0

    @property
    def offered(self) -> float:
        return self.agents * self.rate

    def timed(self, run_s: float, warmup_s: float) -> Profile:
        return replace(self, run_s=run_s, warmup_s=warmup_s)


PROFILES = {
    "typical": Profile("typical", agents=10, rate=10, apps=10),
    "busy": Profile("busy", agents=20, rate=50, apps=10),
    "wide": Profile("wide", agents=10, rate=20, apps=50),
    "stress": Profile("stress", agents=10, rate=300, apps=10),
}

# capacity: fan-out 1 (one app), 10 agents, the total offered rate stepping up until P99 > 100 ms or loss.
CAPACITY_STEPS = (1000, 2000, 3000, 4000, 5000, 6000, 8000)
CAPACITY_AGENTS = 10
CAPACITY_P99_MS = 100.0


def capacity_step(total_rate: int, run_s: float, warmup_s: float) -> Profile:
    return Profile(f"capacity@{total_rate}", agents=CAPACITY_AGENTS, rate=total_rate / CAPACITY_AGENTS, apps=1,
                   run_s=run_s, warmup_s=warmup_s)
