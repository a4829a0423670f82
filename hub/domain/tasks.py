"""The task state machine of docs/design.md#task-states, and who may make each move."""

from __future__ import annotations

from hub.protocol.errors import LapError
from hub.protocol.vocabulary import ACTIVE_TASK_STATUSES, TERMINAL_TASK_STATUSES

TERMINAL = TERMINAL_TASK_STATUSES  # the protocol's sets (hub/protocol/vocabulary.py), by their short names here
ACTIVE = ACTIVE_TASK_STATUSES

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
            raise illegal_transition(f"The task is already {current}; it cannot become {target}.", current, target)
        raise illegal_transition(f"A task cannot go from {current} to {target} (docs/protocol.md#task-states).",
                                 current, target)
    if by not in allowed:
        who = {"agent": "an agent", "user": "a person", "hub": "the hub"}[by]
        raise illegal_transition(f"{who.capitalize()} cannot move a task from {current} to {target}.", current, target,
                                 hint="waiting_for_human is entered and left through interactions; a running task "
                                      "is cancelled by its agent after task.cancel_requested.")


def illegal_transition(message: str, current: str, target: str | None, hint: str | None = None) -> LapError:
    """The refusal of a move the task's status does not allow; `details` says from what to what, for programs
    (the SDK, the MCP server) that must not read the message. `target` is None when no status was asked for (a
    progress report or a checkpoint on a finished task)."""
    return LapError("illegal_transition", message, hint, details={"from": current, "to": target})
