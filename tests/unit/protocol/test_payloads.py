"""Payload validation: refusals are invalid_payload and name the offending field; unknown fields are kept."""

from __future__ import annotations

from typing import Any

import pytest

from hub.protocol import payloads as P
from hub.protocol.errors import LapError


def refusal(kind: type[P.Payload], payload: dict[str, Any]) -> LapError:
    with pytest.raises(LapError) as info:
        P.parse_payload(kind, payload)
    return info.value


@pytest.mark.parametrize(("kind", "payload", "field"), [
    (P.TaskCreate, {}, "`title`"),
    (P.TaskCreate, {"title": ""}, "$.title"),
    (P.TaskCreate, {"title": "x" * 501}, "$.title"),
    (P.TaskCreate, {"title": "ok", "parentTaskId": 5}, "$.parentTaskId"),
    (P.TaskStatusChanged, {"progress": 101}, "$.progress"),
    (P.TaskStatusChanged, {"progress": -1}, "$.progress"),
    (P.TaskStatusChanged, {"status": "done"}, "$.status"),
    (P.TaskStatusChanged, {"status": "failed", "error": {"message": "x"}}, "`code`"),
    (P.ConversationCreate, {"title": "c", "agentIds": "a1"}, "$.agentIds"),
    (P.MessageCreate, {"content": 3}, "$.content"),
    (P.MessageDelta, {"messageId": "m1", "text": "x", "offset": -1}, "$.offset"),
    (P.InteractionRespond, {"interactionId": "i1"}, "`response`"),
    (P.InteractionRequested, {"interaction": {"type": "poll", "title": "t"}}, "$.interaction.type"),
    (P.InteractionRequested, {"interaction": {"type": "choice", "title": "t", "options": [{"id": "a", "label": ""}]}},
     "$.interaction.options[0].label"),
    (P.InteractionRequested, {"interaction": {"type": "input", "title": "t", "format": "phone"}},
     "$.interaction.format"),
    (P.InteractionRequested, {"interaction": {"type": "input", "title": "t", "maxLength": 0}},
     "$.interaction.maxLength"),
    (P.ArtifactCreated, {"name": "n", "url": ""}, "$.url"),
    (P.AgentHello, {"credential": ""}, "$.credential"),
    (P.AppHello, {"token": "t", "lastSequence": -5}, "$.lastSequence"),
])
def test_refusals_name_the_field(kind: type[P.Payload], payload: dict[str, Any], field: str) -> None:
    error = refusal(kind, payload)
    assert error.code == "invalid_payload" and error.status == 422
    assert field in error.message, error.message
    assert "lineup schema" in error.hint


def test_valid_payloads_parse_with_defaults() -> None:
    task = P.parse_payload(P.TaskCreate, {"title": "Tidy", "futureField": {"x": 1}})
    assert isinstance(task, P.TaskCreate) and task.description == "" and task.targetAgentId is None
    spec = P.parse_payload(P.InteractionRequested, {"interaction": {"type": "approval", "title": "Go?"}}).interaction
    assert (spec.risk, spec.options, spec.multiple, spec.format) == ("medium", [], False, "text")
    hello = P.parse_payload(P.AgentHello, {"credential": "lu_agt_x"})
    assert hello.capabilities == [] and hello.lastSequence is None


# docs/protocol.md#requests-and-the-facts-they-store (message.delta is the streaming extension agents may send).
APP_TO_HUB = {"conversation.create", "message.create", "task.create", "task.cancel_requested", "interaction.respond",
              "tool.list", "tool.call", "tool.result"}
AGENT_TO_HUB = {"message.create", "message.delta", "task.create", "task.accepted", "task.status_changed",
                "task.child_created", "interaction.requested", "artifact.created", "tool.list", "tool.call",
                "tool.result"}
TOOL_TYPES = {"tool.list", "tool.call", "tool.result"}


def test_inbound_tables_follow_the_protocol_catalogue() -> None:
    assert APP_TO_HUB - TOOL_TYPES <= set(P.APP_INBOUND) <= APP_TO_HUB
    # Extensions the protocol allows: an agent opens a conversation of its own (the MCP bridge) and marks
    # a named step of its task done (task.checkpoint: restart-safe agents), and withdraws a question it
    # no longer waits for (interaction.withdraw: the card must not stay approvable).
    assert AGENT_TO_HUB - TOOL_TYPES <= set(P.AGENT_INBOUND) <= AGENT_TO_HUB | {"conversation.create", "task.checkpoint",
                                                                               "interaction.withdraw"}
    assert "interaction.respond" not in P.AGENT_INBOUND  # only people answer interactions
    assert set(P.HANDSHAKES) == {"agent.hello", "app.hello"}
