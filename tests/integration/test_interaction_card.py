"""The app's view of an interaction card is the hub's: over HTTP, in its /ws/app events and through the relay."""
# One card, asked by an agent and answered by the app, read three ways at each step: GET /api/interactions (and the
# inbox and the task's detail, which show the same card), the `interaction.requested` / `interaction.resolved` events
# the app's socket receives, and the relay's `response` envelope for the same GET (hub/relay/requests.py, through the
# fake WuKongIM). Field by field they must agree, and the card must be what `lineup schema` says (`reads.interaction`).

from __future__ import annotations

import json
from typing import Any

import httpx
from jsonschema import Draft202012Validator

from hub.protocol.cards import InteractionCard
from hub.protocol.schema import protocol_schema
from tests.conftest import Connect
from tests.integration.test_relay import fakes  # noqa: F401 (a fixture `away` uses)
from tests.integration.test_relay_requests import RelayApp, away  # noqa: F401 (away: a fixture)
from tests.support.fake_wukong import FakeWuKong
from tests.support.hubproc import HubProcess
from tests.support.live import Team, make_team, request_fresh

ASKED = {"id": "deploy-1", "type": "approval", "title": "Deploy to production?", "risk": "high",
         "description": "Ships 3 migrations.", "details": {"migrations": 3}, "expiresAt": "2099-01-01T00:00:00Z"}


def schema_errors(card: dict[str, Any]) -> list[str]:
    document: dict[str, Any] = json.loads(json.dumps(protocol_schema()))
    validator = Draft202012Validator({"$schema": document["$schema"], "$defs": document["$defs"],
                                      **document["reads"]["interaction"]})
    return [error.message for error in validator.iter_errors(card)]


async def cards(team: Team, http: httpx.AsyncClient, app: RelayApp) -> dict[str, dict[str, Any]]:
    """The card as each read gives it: the list, the task's detail, the inbox (while it waits) and the relay."""
    listed = (await http.get("/api/interactions")).json()
    status, kind, body, parts = await app.ask("GET", "/api/interactions")
    assert (status, kind.split(";")[0]) == (200, "application/json")
    assert parts[0]["op"] == "response" and "encoding" not in parts[0]  # the envelope carries the JSON itself
    relayed = json.loads(body)
    assert relayed == listed, "the relay's answer is the HTTP answer"
    found = {"http": next(c for c in listed["interactions"] if c["id"] == ASKED["id"]),
             "relay": next(c for c in relayed["interactions"] if c["id"] == ASKED["id"]),
             "task": next(c for c in (await http.get("/api/tasks/t1")).json()["interactions"]
                          if c["id"] == ASKED["id"])}
    waiting = [c for c in (await http.get("/api/inbox")).json()["waitingForMe"] if c["id"] == ASKED["id"]]
    if waiting:
        assert waiting[0].pop("taskTitle") == "Ship it"  # the inbox adds the task's title, nothing else
        found["inbox"] = waiting[0]
    return found


def same_everywhere(found: dict[str, dict[str, Any]]) -> dict[str, Any]:
    card = found["http"]
    for where, other in found.items():
        assert list(other) == list(InteractionCard.__struct_fields__), where
        for field in InteractionCard.__struct_fields__:
            assert other[field] == card[field], (where, field)
    assert not schema_errors(card), schema_errors(card)
    return card


async def test_a_card_reads_the_same_over_http_the_socket_and_the_relay(
        away: tuple[HubProcess, str, RelayApp, FakeWuKong], lap: Connect) -> None:
    hub, token, app, _ = away
    team = await make_team(hub, token, lap)
    await team.new_task("t1", "Ship it", accept=True)
    await team.agent.ok("interaction.requested", {"interaction": ASKED}, taskId="t1")
    requested = await team.app.wait_for(
        lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
        and f["payload"]["interaction"]["id"] == ASKED["id"])
    async with httpx.AsyncClient(base_url=hub.base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        card = same_everywhere(await cards(team, http, app))
        asked = requested["payload"]["interaction"]
        # The card against the event the app's socket received, field by field.
        assert card["spec"] == asked
        assert {f: card[f] for f in ("id", "type", "title", "risk", "expiresAt")} == \
            {f: asked[f] for f in ("id", "type", "title", "risk", "expiresAt")}
        assert (card["taskId"], card["conversationId"], card["agentId"]) == \
            (requested["taskId"], requested["conversationId"], team.agent_id)
        assert card["lastSequence"] == requested["sequence"]
        assert (card["status"], card["response"], card["respondedBy"], card["respondedAt"]) == \
            ("pending", None, None, None)
        assert card["createdAt"] >= requested["occurredAt"][:19]

        answer = await request_fresh(team.app, "interaction.respond",
                                     {"interactionId": ASKED["id"], "response": {"optionId": "approve"}})
        assert answer["type"] == "system.ack", answer
        resolved = await team.app.event("interaction.resolved", interactionId=ASKED["id"])
        found = await cards(team, http, app)
        assert "inbox" not in found  # answered: no longer waiting
        card = same_everywhere(found)
        outcome = resolved["payload"]
        assert (card["status"], card["response"], card["respondedBy"], card["respondedAt"], card["lastSequence"]) \
            == (outcome["outcome"], outcome["response"], outcome["respondedBy"], outcome["answeredAt"],
                resolved["sequence"])
        assert card["spec"] == asked  # the request is what it was
