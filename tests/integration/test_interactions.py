"""Interaction cards (docs/design.md#interaction-cards, docs/protocol.md#interactions): each type's answers, first
answer wins, expiry, and the agent's view."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.integration.conftest import Connect
from tests.support.fence import fence
from tests.support.hubproc import HubProcess
from tests.support.live import Team, iso_in, make_team, of_type, request_fresh


@pytest.fixture
async def team(hub: HubProcess, owner_token: str, lap: Connect) -> Team:
    team = await make_team(hub, owner_token, lap)
    await team.new_task("t1", accept=True)
    return team


async def respond(team: Team, interaction_id: str, response: dict[str, Any]) -> dict[str, Any]:
    return await request_fresh(team.app, "interaction.respond", {"interactionId": interaction_id,
                                                                  "response": response})


async def assert_refused(team: Team, interaction_id: str, response: dict[str, Any], code: str) -> None:
    answer = await respond(team, interaction_id, response)
    assert answer["type"] == "system.error", (response, answer)
    assert answer["payload"]["code"] == code, (response, answer["payload"])


async def outcome_for_agent(team: Team, interaction_id: str) -> dict[str, Any]:
    frame = await team.agent.event("interaction.resolved", interactionId=interaction_id)
    return dict(frame["payload"])


async def status_of(team: Team, interaction_id: str) -> str:
    rows = (await team.api.get("/api/interactions"))["interactions"]
    return str(next(r["status"] for r in rows if r["id"] == interaction_id))


async def test_approval_defaults_approve_and_reject(team: Team) -> None:
    spec = await team.ask("t1", {"id": "a1", "type": "approval", "title": "Migrate production?", "risk": "high",
                                 "details": {"migrationCount": 3}})
    assert [o["id"] for o in spec["options"]] == ["approve", "reject"]
    assert spec["details"] == {"migrationCount": 3} and spec["risk"] == "high"
    await assert_refused(team, "a1", {"optionId": "maybe"}, "invalid_payload")
    await assert_refused(team, "a1", {}, "invalid_payload")
    assert await status_of(team, "a1") == "pending"
    ack = await respond(team, "a1", {"optionId": "approve"})
    assert ack["type"] == "system.ack"
    result = await outcome_for_agent(team, "a1")
    assert (result["outcome"], result["response"]) == ("answered", {"optionId": "approve", "approved": True})
    assert {k: result["respondedBy"][k] for k in ("kind", "id")} == {"kind": "user", "id": team.app.welcome["userId"]}
    await team.app.event("task.status_changed", taskId="t1", status="running", cause="interaction_resolved")

    await team.ask("t1", {"id": "a2", "type": "approval", "title": "Drop the old table?"})
    await respond(team, "a2", {"optionId": "reject", "comment": "keep it a week"})
    result = await outcome_for_agent(team, "a2")
    assert result["outcome"] == "declined"
    assert result["response"] == {"optionId": "reject", "approved": False, "comment": "keep it a week"}
    detail = await team.api.task("t1")
    assert detail["task"]["status"] == "running"
    assert [(i["id"], i["status"], i["respondedBy"]["kind"]) for i in detail["interactions"]] == \
        [("a1", "answered", "user"), ("a2", "declined", "user")]
    assert detail["interactions"][1]["respondedAt"] is not None


async def test_choice_single_and_multiple(team: Team) -> None:
    options = [{"id": "eu", "label": "Frankfurt", "recommended": True}, {"id": "us", "label": "Virginia"},
               {"id": "ap", "label": "Tokyo"}]
    await team.ask("t1", {"id": "c1", "type": "choice", "title": "Region?", "options": options})
    await assert_refused(team, "c1", {"optionId": "mars"}, "invalid_payload")
    await assert_refused(team, "c1", {"optionIds": ["eu"]}, "invalid_payload")
    await respond(team, "c1", {"optionId": "eu"})
    assert (await outcome_for_agent(team, "c1"))["response"] == {"optionId": "eu"}

    await team.ask("t1", {"id": "c2", "type": "choice", "title": "Regions?", "options": options, "multiple": True})
    bad: dict[str, Any]
    for bad in ({"optionId": "eu"}, {"optionIds": []}, {"optionIds": ["eu", "eu"]}, {"optionIds": ["eu", "mars"]},
                {"optionIds": "eu"}):
        await assert_refused(team, "c2", bad, "invalid_payload")
    await respond(team, "c2", {"optionIds": ["ap", "eu"]})
    result = await outcome_for_agent(team, "c2")
    assert (result["outcome"], result["response"]) == ("answered", {"optionIds": ["ap", "eu"]})

    for bad_spec in ({"id": "c3", "type": "choice", "title": "One?", "options": [{"id": "x", "label": "X"}]},
                     {"id": "c4", "type": "choice", "title": "Dup?", "options": [{"id": "x", "label": "X"},
                                                                                 {"id": "x", "label": "Y"}]},
                     {"id": "c5", "type": "choice", "title": "None?"}):
        answer = await team.agent.request("interaction.requested", {"interaction": bad_spec}, taskId="t1")
        assert answer["payload"]["code"] == "invalid_payload", bad_spec


INPUT_CASES: list[tuple[dict[str, Any], list[str], str]] = [
    ({"format": "text"}, ["", "   "], "anything at all"),
    ({"format": "url"}, ["staging", "ftp://host/x", "http://"], "https://staging.example.test/app"),
    ({"format": "email"}, ["ada", "ada@", "a b@c.d"], "ada@example.test"),
    ({"format": "number"}, ["abc", "1,5"], "-3.25"),
    ({"format": "integer"}, ["3.5", "ten"], "42"),
    ({"pattern": r"[A-Z]{3}-\d+"}, ["abc-1", "ABC-", "XABC-12"], "ABC-12"),
    ({"maxLength": 5}, ["toolong"], "short"),
]


async def test_input_formats(team: Team) -> None:
    for n, (spec, bad, good) in enumerate(INPUT_CASES):
        interaction_id = f"in-{n}"
        await team.ask("t1", {"id": interaction_id, "type": "input", "title": "Value?", **spec})
        for text in bad:
            await assert_refused(team, interaction_id, {"text": text}, "invalid_payload")
        await assert_refused(team, interaction_id, {"text": 12}, "invalid_payload")
        assert await status_of(team, interaction_id) == "pending", spec
        ack = await respond(team, interaction_id, {"text": good})
        assert ack["type"] == "system.ack", (spec, ack)
        result = await outcome_for_agent(team, interaction_id)
        assert (result["outcome"], result["response"]) == ("answered", {"text": good}), spec


async def test_input_with_a_broken_pattern_is_refused(team: Team) -> None:
    answer = await team.agent.request("interaction.requested", {"interaction": {
        "type": "input", "title": "Value?", "pattern": "([a-z"}}, taskId="t1")
    assert answer["payload"]["code"] == "invalid_payload"
    answer = await team.agent.request("interaction.requested", {"interaction": {
        "type": "input", "title": "Value?", "format": "phone"}}, taskId="t1")
    assert answer["payload"]["code"] == "invalid_payload"
    assert (await team.api.task("t1"))["task"]["status"] == "running"


async def test_review_decisions(team: Team) -> None:
    answer = await team.agent.request("interaction.requested", {"interaction": {
        "type": "review", "title": "Nothing to see"}}, taskId="t1")
    assert answer["payload"]["code"] == "invalid_payload"
    await team.ask("t1", {"id": "r1", "type": "review", "title": "Review the plan", "content": "1. migrate\n2. deploy"})
    await assert_refused(team, "r1", {"decision": "maybe"}, "invalid_payload")
    await assert_refused(team, "r1", {"optionId": "approve"}, "invalid_payload")
    await respond(team, "r1", {"decision": "request_changes", "comment": "swap the steps"})
    result = await outcome_for_agent(team, "r1")
    assert result["response"] == {"decision": "request_changes", "comment": "swap the steps"}
    await team.ask("t1", {"id": "r2", "type": "review", "title": "Again", "content": "1. deploy\n2. migrate"})
    await respond(team, "r2", {"decision": "approve"})
    assert (await outcome_for_agent(team, "r2"))["response"] == {"decision": "approve"}


async def test_any_card_can_be_declined(team: Team) -> None:
    for kind in ("approval", "choice", "input", "review"):
        spec: dict[str, Any] = {"id": f"d-{kind}", "type": kind, "title": "Decide", "description": "details"}
        if kind == "choice":
            spec["options"] = [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]
        await team.ask("t1", spec)
        await respond(team, spec["id"], {"declined": True, "comment": "not now"})
        result = await outcome_for_agent(team, spec["id"])
        assert (result["outcome"], result["response"]) == ("declined", {"declined": True, "comment": "not now"}), kind
        resolved = await team.app.event("interaction.resolved", interactionId=spec["id"])
        await team.app.wait_for(lambda f: f["type"] == "task.status_changed" and f["sequence"] > resolved["sequence"]
                                and f["payload"].get("cause") == "interaction_resolved")
        assert await status_of(team, spec["id"]) == "declined"


async def test_first_valid_answer_wins(team: Team, hub: HubProcess, lap: Connect) -> None:
    phone = await lap(hub, "app", await asyncio.to_thread(hub.token))
    await team.ask("t1", {"id": "race", "type": "approval", "title": "Who answers first?"})
    answers = await asyncio.gather(
        *(respond(team, "race", {"optionId": "approve"}) for _ in range(3)),
        *(request_fresh(phone, "interaction.respond", {"interactionId": "race", "response": {"optionId": "reject"}})
          for _ in range(3)))
    acks = [a for a in answers if a["type"] == "system.ack"]
    errors = [a["payload"]["code"] for a in answers if a["type"] == "system.error"]
    assert len(acks) == 1 and errors == ["already_resolved"] * 5
    resolved = await outcome_for_agent(team, "race")
    await fence(team.app, team.conversation_id, team.agent, team.app)  # a second resolution would come before it
    assert len(of_type(team.agent, "interaction.resolved", interactionId="race")) == 1
    assert len(of_type(team.app, "interaction.resolved", interactionId="race")) == 1
    stored = next(i for i in (await team.api.task("t1"))["interactions"] if i["id"] == "race")
    assert stored["response"]["optionId"] == resolved["response"]["optionId"]
    assert stored["status"] == resolved["outcome"]
    # A later answer names the decision that stands.
    late = await respond(team, "race", {"optionId": "approve"})
    assert late["payload"]["code"] == "already_resolved"
    assert stored["status"] in late["payload"]["message"]


async def test_invalid_answer_does_not_resolve_and_ids_are_checked(team: Team) -> None:
    await team.ask("t1", {"id": "once", "type": "approval", "title": "Ok?"})
    await assert_refused(team, "once", {"optionId": "nope"}, "invalid_payload")
    await assert_refused(team, "missing", {"optionId": "approve"}, "not_found")
    await assert_refused(team, "once", {"optionId": "approve", "comment": "x" * 4001}, "invalid_payload")
    duplicate = await team.agent.request("interaction.requested", {"interaction": {
        "id": "once", "type": "approval", "title": "Again?"}}, taskId="t1")
    assert duplicate["payload"]["code"] == "conflict"
    # An agent cannot answer its own question: interaction.respond is not an agent event.
    answer = await team.agent.request("interaction.respond", {"interactionId": "once",
                                                             "response": {"optionId": "approve"}})
    assert answer["type"] == "system.error" and answer["payload"]["code"] == "forbidden"
    assert await status_of(team, "once") == "pending"
    assert (await team.api.task("t1"))["task"]["status"] == "waiting_for_human"


async def test_task_waits_until_every_interaction_is_answered(team: Team) -> None:
    await team.ask("t1", {"id": "p1", "type": "approval", "title": "First?"})
    await team.ask("t1", {"id": "p2", "type": "input", "title": "Second?"})
    await respond(team, "p1", {"optionId": "approve"})
    await outcome_for_agent(team, "p1")
    assert (await team.api.task("t1"))["task"]["status"] == "waiting_for_human"
    assert [i["id"] for i in (await team.api.get("/api/inbox"))["waitingForMe"]] == ["p2"]
    await respond(team, "p2", {"text": "main"})
    await outcome_for_agent(team, "p2")
    assert (await team.api.task("t1"))["task"]["status"] == "running"


async def test_interaction_without_a_task(team: Team) -> None:
    await team.ask(None, {"id": "free", "type": "choice", "title": "Lunch?",
                          "options": [{"id": "pizza", "label": "Pizza"}, {"id": "sushi", "label": "Sushi"}]})
    inbox = (await team.api.get("/api/inbox"))["waitingForMe"]
    assert [(i["id"], i["taskId"], i["conversationId"]) for i in inbox] == [("free", None, team.conversation_id)]
    await respond(team, "free", {"optionId": "sushi"})
    assert (await outcome_for_agent(team, "free"))["response"] == {"optionId": "sushi"}
    assert (await team.api.task("t1"))["task"]["status"] == "running"


async def test_expiry(team: Team) -> None:
    past = await team.agent.request("interaction.requested", {"interaction": {
        "type": "approval", "title": "Too late", "expiresAt": iso_in(-5)}}, taskId="t1")
    assert past["payload"]["code"] == "invalid_payload"
    no_zone = await team.agent.request("interaction.requested", {"interaction": {
        "type": "approval", "title": "Which zone?", "expiresAt": "2099-01-01T00:00:00"}}, taskId="t1")
    assert no_zone["payload"]["code"] == "invalid_payload"

    await team.ask("t1", {"id": "soon", "type": "approval", "title": "Quick!", "expiresAt": iso_in(1.5)})
    await team.ask("t1", {"id": "later", "type": "approval", "title": "No rush", "expiresAt": iso_in(3600)})
    expired = await team.app.event("interaction.expired", interactionId="soon", timeout=5)
    assert expired["payload"]["outcome"] == "expired" and expired["payload"]["response"] is None
    told = await team.agent.event("interaction.resolved", interactionId="soon")
    assert told["payload"]["outcome"] == "expired"
    assert told["sequence"] == expired["sequence"]
    await assert_refused(team, "soon", {"optionId": "approve"}, "expired")
    assert await status_of(team, "soon") == "expired"
    # The other card still blocks the task; answering it lets the task run again.
    assert (await team.api.task("t1"))["task"]["status"] == "waiting_for_human"
    await respond(team, "later", {"optionId": "approve"})
    await outcome_for_agent(team, "later")
    assert (await team.api.task("t1"))["task"]["status"] == "running"


async def test_expiry_alone_resumes_the_task(team: Team) -> None:
    await team.ask("t1", {"id": "only", "type": "input", "title": "URL?", "format": "url", "expiresAt": iso_in(1.5)})
    resumed = await team.app.event("task.status_changed", taskId="t1", status="running",
                                   cause="interaction_resolved", timeout=5)
    expired = await team.app.event("interaction.expired", interactionId="only")
    assert expired["sequence"] < resumed["sequence"]
    assert (await outcome_for_agent(team, "only"))["outcome"] == "expired"
