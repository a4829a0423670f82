"""A card's "Decided" is when the person tapped: the answer's own time (its envelope's `occurredAt`, which an answer
kept in the app while offline carries to the hub later) is stored as `answeredAt` and the interaction's
`respondedAt`, held between the question's creation and the hub's receipt. Before, `respondedAt` was the hub's receipt
time: an answer given offline at 10:02 and sent at 10:40 said "Decided 10:40"."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest

from hub.domain.collaboration import APP_HANDLERS, answered_at, command_for
from hub.protocol.actors import Actor
from hub.protocol.payloads import APP_INBOUND, parse_payload
from tests.unit.scenario import World, WriterRig, command, envelope, executor, populate


def iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


ASKED = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
RECEIVED = ASKED + timedelta(minutes=40)


@pytest.mark.parametrize(("tapped", "stored"), [
    (ASKED + timedelta(minutes=2), ASKED + timedelta(minutes=2)),      # offline at 10:02, received at 10:40
    (ASKED - timedelta(days=1), ASKED),                                  # a phone clock a day slow: not before
    (RECEIVED + timedelta(hours=3), RECEIVED),                           # a phone clock ahead: never in the future
])
def test_the_answer_is_dated_when_given_within_the_question_and_the_receipt(tapped: datetime,
                                                                            stored: datetime) -> None:
    assert answered_at(iso(tapped), iso(ASKED), iso(RECEIVED)) == iso(stored)


def test_an_unreadable_or_zoneless_time_is_the_receipt() -> None:
    for junk in ("yesterday", "", "2026-03-01T10:02:00"):
        assert answered_at(junk, iso(ASKED), iso(RECEIVED)) == iso(RECEIVED)
    assert answered_at("2026-03-01T11:02:00+01:00", iso(ASKED), iso(RECEIVED)) == "2026-03-01T10:02:00.000Z"


@pytest.fixture
async def world(rig: WriterRig) -> World:
    return await populate(executor(rig.writer))


async def send(rig: WriterRig, actor: Actor, type_: str, payload: dict[str, Any], occurred_at: str | None = None,
               **fields: Any) -> Any:
    if occurred_at is None:
        return await executor(rig.writer)(command(actor, type_, payload, **fields))
    env = msgspec.structs.replace(envelope(type_, payload, actor.workspace_id, **fields), occurredAt=occurred_at)
    return await executor(rig.writer)(command_for(actor, env, APP_HANDLERS[type_],
                                                  parse_payload(APP_INBOUND[type_], env.payload)))


async def test_an_answer_sent_late_is_stored_with_the_time_it_was_given(rig: WriterRig, world: World,
                                                                         reader: sqlite3.Connection) -> None:
    await send(rig, world.user, "task.create", {"title": "t", "targetAgentId": world.agent.id}, taskId="t9")
    await send(rig, world.agent, "task.accepted", {}, taskId="t9")
    await send(rig, world.agent, "interaction.requested",
               {"interaction": {"id": "i9", "type": "approval", "title": "Deploy?"}}, taskId="t9")
    asked = parse(reader.execute("SELECT created_at FROM interactions WHERE id = 'i9'").fetchone()[0])
    tapped = asked + timedelta(milliseconds=5)
    while datetime.now(UTC) < tapped + timedelta(milliseconds=200):  # the hub receives it well after the tap
        await asyncio.sleep(0.05)
    await send(rig, world.user, "interaction.respond", {"interactionId": "i9", "response": {"optionId": "approve"}},
               occurred_at=iso(tapped))
    row = reader.execute("SELECT responded_at FROM interactions WHERE id = 'i9'").fetchone()
    event = reader.execute("SELECT recorded_at, payload FROM events WHERE type = 'interaction.resolved' "
                           "ORDER BY sequence DESC LIMIT 1").fetchone()
    assert json.loads(event["payload"])["answeredAt"] == iso(tapped) == row["responded_at"]
    assert parse(event["recorded_at"]) >= tapped + timedelta(milliseconds=200)  # not the receipt
