"""The task state machine (docs/design.md#task-states): every (from, to, who) combination, table-driven."""

from __future__ import annotations

import itertools

import pytest

from hub.domain.tasks import ACTIVE, TERMINAL, TRANSITIONS, check_transition
from hub.protocol.errors import LapError

STATES = ["queued", "running", "waiting_for_human", "succeeded", "failed", "cancelled"]
WHO = ["agent", "user", "hub"]

# Written down from docs/protocol.md#task-states, independently of hub/domain/tasks.py:
#   queued → running             the agent accepts, or the person starts it
#   running ⇄ waiting_for_human  only through interactions: the hub moves it when one is asked / answered
#   running → succeeded          the agent finishes
#   running → failed             the agent fails, or the hub after the grace period (agent_unreachable)
#   queued → cancelled           anyone
#   running → cancelled          the agent confirms a cancel request, or the hub after the cancel timeout
#   waiting_for_human → cancelled  the person cancels (or the hub)
ALLOWED: dict[tuple[str, str], set[str]] = {
    ("queued", "running"): {"agent", "user"},
    ("running", "waiting_for_human"): {"hub"},
    ("waiting_for_human", "running"): {"hub"},
    ("running", "succeeded"): {"agent"},
    ("running", "failed"): {"agent", "hub"},
    ("queued", "cancelled"): {"agent", "user", "hub"},
    ("running", "cancelled"): {"agent", "hub"},
    ("waiting_for_human", "cancelled"): {"user", "hub"},
}


@pytest.mark.parametrize(("current", "target", "by"), list(itertools.product(STATES, STATES, WHO)))
def test_transition(current: str, target: str, by: str) -> None:
    if current == target:
        check_transition(current, target, by)  # a repeat (progress report, re-send) is not a move
        return
    if by in ALLOWED.get((current, target), set()):
        check_transition(current, target, by)
        return
    with pytest.raises(LapError) as info:
        check_transition(current, target, by)
    error = info.value
    assert error.code == "illegal_transition" and error.status == 409
    assert current in error.message and target in error.message
    if current in TERMINAL:
        assert f"already {current}" in error.message
    elif (current, target) in ALLOWED:
        # The move exists but not for this actor: the message says who tried, the hint how it is done.
        assert {"agent": "An agent", "user": "A person", "hub": "The hub"}[by] in error.message
        assert "interactions" in error.hint


def test_the_hub_table_is_the_seed_table() -> None:
    assert {k: set(v) for k, v in TRANSITIONS.items()} == ALLOWED


def test_terminal_and_active_states() -> None:
    assert {"succeeded", "failed", "cancelled"} == TERMINAL
    assert {"running", "waiting_for_human"} == ACTIVE
    # Nothing leaves a terminal state, and every non-terminal state can still end.
    assert not any(src in TERMINAL for src, _ in TRANSITIONS)
    for state in set(STATES) - TERMINAL:
        assert (state, "cancelled") in TRANSITIONS
