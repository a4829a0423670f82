"""Each vocabulary (task statuses, interaction types and outcomes, risk levels, agent statuses) is
defined once, in hub/protocol/vocabulary.py; every other Python place uses that very object, and no copy of a list
is left in hub/."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args, get_type_hints

import msgspec
import pytest

from hub.domain import tasks as domain_tasks
from hub.mcp import catalog, run, session
from hub.protocol import payloads, stored, vocabulary
from hub.protocol.vocabulary import (
    ACTIVE_TASK_STATUSES,
    AGENT_STATUSES,
    INTERACTION_OUTCOMES,
    INTERACTION_STATUSES,
    INTERACTION_TYPES,
    RISK_LEVELS,
    TASK_STATUSES,
    TERMINAL_TASK_STATUSES,
)
from hub.sdk import tasks as sdk_tasks
from hub.tools import human
from hub.web import reads

HUB = Path(__file__).resolve().parents[3] / "hub"


def test_the_task_statuses_are_the_ones_the_protocol_publishes() -> None:
    assert TASK_STATUSES == ("queued", "running", "waiting_for_human", "succeeded", "failed", "cancelled")
    assert {"succeeded", "failed", "cancelled"} == TERMINAL_TASK_STATUSES
    assert {"running", "waiting_for_human"} == ACTIVE_TASK_STATUSES
    assert set(TASK_STATUSES) >= TERMINAL_TASK_STATUSES and set(TASK_STATUSES) >= ACTIVE_TASK_STATUSES
    assert INTERACTION_TYPES == ("approval", "choice", "input", "review")
    assert INTERACTION_STATUSES == ("pending", "answered", "declined", "cancelled", "expired")
    assert RISK_LEVELS == ("low", "medium", "high") and AGENT_STATUSES == ("online", "offline")


def test_every_python_place_uses_the_protocols_object() -> None:
    # The domain, the SDK, the MCP session and the reads hold the protocol's objects, not equal copies.
    assert domain_tasks.TERMINAL is TERMINAL_TASK_STATUSES and domain_tasks.ACTIVE is ACTIVE_TASK_STATUSES
    assert sdk_tasks.TERMINAL is TERMINAL_TASK_STATUSES
    assert session.TERMINAL is TERMINAL_TASK_STATUSES
    assert vars(reads)["TASK_STATUSES"] is TASK_STATUSES
    # The payload types are the vocabulary's Literal types: what msgspec accepts is exactly the vocabulary.
    assert vars(payloads)["TaskStatus"] is vocabulary.TaskStatus
    assert vars(payloads)["InteractionType"] is vocabulary.InteractionType
    hints = get_type_hints(payloads.InteractionSpec)
    assert hints["risk"] is vocabulary.RiskLevel and hints["type"] is vocabulary.InteractionType
    assert get_type_hints(stored.InteractionResolved)["outcome"] is vocabulary.InteractionOutcome
    assert get_type_hints(stored.AgentStatusChanged)["status"] is vocabulary.AgentStatus
    assert get_args(get_type_hints(stored.StoredTaskStatusChanged)["previousStatus"]) == TASK_STATUSES
    # The JSON Schemas handed to MCP clients and to tools list the same names.
    assert list(INTERACTION_OUTCOMES) == catalog.OUTCOMES
    assert [s for s in TASK_STATUSES if s != "waiting_for_human"] == catalog.STEP_STATUSES
    assert catalog.FINISH_TASK.input_schema["properties"]["status"]["enum"] == ["succeeded", "failed", "cancelled"]
    assert catalog.ASK_APPROVAL.input_schema["properties"]["risk"]["enum"] == list(RISK_LEVELS)
    assert human.COMMON["risk"] == {"type": "string", "enum": list(RISK_LEVELS)}
    assert run.CAPABILITIES == ["tasks", "approval", "choice", "input", "review", "artifacts", "tools", "mcp"]


@pytest.mark.parametrize("status", [*TASK_STATUSES, "paused"])
def test_a_status_is_accepted_exactly_when_the_vocabulary_has_it(status: str) -> None:
    decode = msgspec.json.Decoder(payloads.TaskStatusChanged).decode
    if status in TASK_STATUSES:
        assert decode(msgspec.json.encode({"status": status})).status == status
    else:
        with pytest.raises(msgspec.ValidationError):
            decode(msgspec.json.encode({"status": status}))


def _literal_lists(tree: ast.AST) -> set[tuple[int, frozenset[str]]]:
    """Every list, tuple, set or Literal[...] whose items are all string constants, with its line."""
    found: set[tuple[int, frozenset[str]]] = set()
    for node in ast.walk(tree):
        items: list[ast.expr] = []
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        names = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
        if items and len(names) == len(items) and isinstance(node, ast.expr):
            found.add((node.lineno, frozenset(names)))
    return found


def test_no_module_keeps_its_own_copy_of_a_vocabulary() -> None:
    # Lists of three or more names (two-name tuples are also the state machine's moves, not copies).
    vocabularies: dict[frozenset[str], str] = {frozenset(v): name for name, v in [
        ("TASK_STATUSES", TASK_STATUSES), ("TERMINAL_TASK_STATUSES", TERMINAL_TASK_STATUSES),
        ("INTERACTION_TYPES", INTERACTION_TYPES), ("INTERACTION_OUTCOMES", INTERACTION_OUTCOMES),
        ("INTERACTION_STATUSES", INTERACTION_STATUSES), ("RISK_LEVELS", RISK_LEVELS)]}
    copies = [f"{path.relative_to(HUB.parent)}:{line} copies {vocabularies[names]}"
              for path in sorted(HUB.rglob("*.py")) if path != HUB / "protocol" / "vocabulary.py"
              for line, names in _literal_lists(ast.parse(path.read_text(encoding="utf-8")))
              if names in vocabularies]
    assert copies == []


def test_the_scan_finds_a_copy() -> None:
    # The scan above is not vacuous: the copies this change removed are what it reports.
    old = 'TERMINAL = ("succeeded", "failed", "cancelled")\nRISK = Literal["low", "medium", "high"]\n'
    assert sorted(_literal_lists(ast.parse(old)), key=lambda found: found[0]) == [
        (1, TERMINAL_TASK_STATUSES), (2, frozenset(RISK_LEVELS))]


def test_the_apps_copy_is_the_vocabulary_as_json() -> None:
    served = msgspec.json.decode(msgspec.json.encode(vocabulary.for_app()))
    assert served["taskStatuses"] == list(TASK_STATUSES)
    assert served["terminalTaskStatuses"] == ["succeeded", "failed", "cancelled"]
    assert served["activeTaskStatuses"] == ["running", "waiting_for_human"]
    assert served["riskLevels"] == list(RISK_LEVELS) and served["agentStatuses"] == list(AGENT_STATUSES)
    assert served["interactionTypes"] == list(INTERACTION_TYPES)
    assert served["interactionStatuses"] == list(INTERACTION_STATUSES)
