"""The protocol's vocabularies (task statuses, interaction types, outcomes and statuses, risk levels, agent statuses),
each defined once here: the payload types, the domain, the reads, the SDK, the MCP bridge and the app use these.

The `Literal` types are the definitions (msgspec and mypy check against them); the tuples are the same names, in the
same order, for code that needs a value (membership, JSON Schema enums, error hints, the app's copy). The app reads
`for_app()` from the page the hub serves (hub/web/static_app.py), and any client from `GET /-/vocabulary.json`.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

TaskStatus = Literal["queued", "running", "waiting_for_human", "succeeded", "failed", "cancelled"]
TASK_STATUSES: tuple[TaskStatus, ...] = get_args(TaskStatus)
# A task in one of these is finished: no status changes after it (docs/protocol.md#task-states).
TERMINAL_TASK_STATUSES: frozenset[TaskStatus] = frozenset({"succeeded", "failed", "cancelled"})
# An agent is working on it (or it waits for a person's answer): what presence and cancellation watch.
ACTIVE_TASK_STATUSES: frozenset[TaskStatus] = frozenset({"running", "waiting_for_human"})

InteractionType = Literal["approval", "choice", "input", "review"]
INTERACTION_TYPES: tuple[InteractionType, ...] = get_args(InteractionType)

InteractionOutcome = Literal["answered", "declined", "cancelled", "expired"]
INTERACTION_OUTCOMES: tuple[InteractionOutcome, ...] = get_args(InteractionOutcome)
# An interaction's status in the projections and reads: pending until it has one of the outcomes.
InteractionStatus = Literal["pending", InteractionOutcome]
INTERACTION_STATUSES: tuple[InteractionStatus, ...] = get_args(InteractionStatus)

RiskLevel = Literal["low", "medium", "high"]
RISK_LEVELS: tuple[RiskLevel, ...] = get_args(RiskLevel)

AgentStatus = Literal["online", "offline"]
AGENT_STATUSES: tuple[AgentStatus, ...] = get_args(AgentStatus)

# The runtimes of agents that run in the person's own terminal or program (`lineup connect claude-code`: its hooks;
# `lineup connect codex / gemini`, `lineup mcp`: the MCP bridge). They connect only while they work: offline between
# runs is no fault (the app shows no alarm), and the hub cannot give them work (hub/domain/collaboration.py).
TERMINAL_RUNTIMES: tuple[str, ...] = ("claude-code", "mcp")


def ordered(names: frozenset[TaskStatus]) -> list[TaskStatus]:
    """A set of task statuses in the vocabulary's order (for JSON Schema enums, stable output)."""
    return [status for status in TASK_STATUSES if status in names]


def for_app() -> dict[str, Any]:
    """The vocabularies as JSON: what the app receives in its page and `GET /-/vocabulary.json` answers."""
    return {
        "taskStatuses": list(TASK_STATUSES),
        "terminalTaskStatuses": ordered(TERMINAL_TASK_STATUSES),
        "activeTaskStatuses": ordered(ACTIVE_TASK_STATUSES),
        "interactionTypes": list(INTERACTION_TYPES),
        "interactionStatuses": list(INTERACTION_STATUSES),
        "riskLevels": list(RISK_LEVELS),
        "agentStatuses": list(AGENT_STATUSES),
        "terminalRuntimes": list(TERMINAL_RUNTIMES),
    }
