"""The task state machine of seed 002 §6.2, and who may make each move."""

from __future__ import annotations

from hub.protocol.errors import LapError

TERMINAL = frozenset({"succeeded", "failed", "cancelled"})
ACTIVE = frozenset({"running", "waiting_for_human"})

# (from, to) -> who may cause it. "hub" moves follow interactions, cancel policy and presence.
TRANSITIONS: dict[tuple[str, str], frozenset[str]] = {
    ("queued", "running"): frozenset({"agent", "user"}),
    ("running", "waiting_for_human"): frozenset({"hub"}),
    ("waiting_for_human", "running"): frozenset({"hub"}),
    ("running", "succeeded"): frozenset({"agent"}),
    ("running", "failed"): frozenset({"agent", "hub"}),
    ("queued", "cancelled"): frozenset({"agent", "user", "hub"}),
    ("running", "cancelled"): frozenset({"agent", "hub"}),
    ("waiting_for_human", "cancelled"): frozenset({"user", "hub"}),
}


def check_transition(current: str, target: str, by: str) -> None:
    """Raise illegal_transition unless `by` (agent, user or hub) may move a task from `current` to `target`."""
    if current == target:
        return
    allowed = TRANSITIONS.get((current, target))
    if allowed is None:
        if current in TERMINAL:
            raise LapError("illegal_transition", f"The task is already {current}; it cannot become {target}.")
        raise LapError("illegal_transition", f"A task cannot go from {current} to {target} (seed 002 §6.2).")
    if by not in allowed:
        who = {"agent": "an agent", "user": "a person", "hub": "the hub"}[by]
        raise LapError("illegal_transition", f"{who.capitalize()} cannot move a task from {current} to {target}.",
                       hint="waiting_for_human is entered and left through interactions; a running task is "
                            "cancelled by its agent after task.cancel_requested.")
