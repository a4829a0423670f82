"""The GIL switch interval is short exactly while at least one socket replays, then back to what it was."""

from __future__ import annotations

import sys

from hub.gateway import switching


def test_short_while_any_replay_runs_then_restored() -> None:
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.004)
        switching.replay_started()
        assert sys.getswitchinterval() == switching.REPLAYING_INTERVAL_S
        switching.replay_started()  # a second replay at once
        switching.replay_finished()
        assert sys.getswitchinterval() == switching.REPLAYING_INTERVAL_S  # one still runs
        switching.replay_finished()
        assert sys.getswitchinterval() == 0.004
    finally:
        sys.setswitchinterval(before)
