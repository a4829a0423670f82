"""An interaction card as the app reads it: the one description the reads, the views and `lineup schema` share."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from hub.protocol.envelope import Id
from hub.protocol.vocabulary import InteractionStatus, InteractionType, RiskLevel

# The stored JSON is handed on as it was stored (a sender's unknown fields too, never checked again), so the fields
# hold plain JSON objects; the schema names what they are: the types the hub stored them as (hub/protocol/stored.py).
StoredSpec = Annotated[dict[str, Any], msgspec.Meta(
    extra_json_schema={"$ref": "#/$defs/StoredInteraction"},
    description="The request as the agent sent it, with the hub's fields: the `interaction` of its "
                "`interaction.requested` event.")]
Answerer = Annotated[dict[str, Any], msgspec.Meta(
    extra_json_schema={"$ref": "#/$defs/Responder"},
    description="Who answered: the `respondedBy` of its `interaction.resolved` event.")]


class InteractionCard(msgspec.Struct, frozen=True, kw_only=True):
    """One interaction as every read of the app answers it (GET /api/interactions, /api/inbox's `waitingForMe`, a
    task's `interactions`; the relay carries the same answers): the interactions table's row
    (hub/store/queries/records.py `InteractionRecord`, whose `to_view()` makes it), its JSON columns decoded and
    its names in camelCase, in the table's order. `lineup schema` publishes it under `reads.interaction`."""

    id: Id
    taskId: Id | None
    conversationId: Id | None
    agentId: Id
    type: InteractionType
    title: str
    risk: RiskLevel
    spec: StoredSpec
    status: InteractionStatus
    response: dict[str, Any] | None  # the checked answer; a cancel may say why; null while pending and once expired
    respondedBy: Answerer | None
    respondedAt: str | None  # when the person answered (the answer's own time), else when the hub closed it
    expiresAt: str | None
    createdAt: str
    lastSequence: int  # the sequence of the last event that changed it
