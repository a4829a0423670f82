"""A shorter GIL switch interval while sockets replay, so the writer's commits keep moving.

The writer runs SQLite in its own thread and takes the GIL back after every statement. While many sockets
replay at once (a reconnect storm, docs/quality.md#targets R2) the event loop never waits, and with Python's default
5 ms switch interval each of the writer's hand-overs waited up to 5 ms: commits, and with them every agent's
ack, stalled for 300-650 ms (`python -m bench.storm`). At 0.5 ms the storm's ack P99 was 113-128 ms. It is not
kept short all the time: on the busy profile (no replays) 0.5 ms cost ~10 % of P95 latency and a few % of CPU.
The interval is process-wide, so this counts replays across every hub in the process.
"""

from __future__ import annotations

import sys

REPLAYING_INTERVAL_S = 0.0005

_replays = 0
_normal_interval_s: float | None = None


def replay_started() -> None:
    global _replays, _normal_interval_s  # noqa: PLW0603 - the switch interval is process-wide, and so is its count
    _replays += 1
    if _replays == 1:
        _normal_interval_s = sys.getswitchinterval()
        sys.setswitchinterval(min(REPLAYING_INTERVAL_S, _normal_interval_s))


def replay_finished() -> None:
    global _replays  # noqa: PLW0603 - see replay_started
    _replays -= 1
    if _replays == 0 and _normal_interval_s is not None:
        sys.setswitchinterval(_normal_interval_s)
