"""docs/security.md#agents: one agent's flood of questions cannot lock the owner out.

A real `lineup serve`: an agent may have at most 100 questions waiting (the next is `rate_limited`), each at most
64 KiB; the inbox sends the oldest 50 and the total, so its size stays bounded; revoking the agent cancels its
waiting questions and ends its unfinished tasks, naming the cause; an agent sending faster than its budget gets
`rate_limited` answers (not a closed socket) and is served again once it slows down.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from hub.domain.collaboration import MAX_PENDING_QUESTIONS_PER_AGENT
from tests.conftest import Connect
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.live import Team, make_team


@pytest.fixture
async def team(hub: HubProcess, owner_token: str, lap: Connect) -> Team:
    return await make_team(hub, owner_token, lap)


@pytest.fixture
async def fast_asker(hub_factory: HubFactory, lap: Connect) -> Team:
    """A hub whose question budget per second is out of the way, to reach the cap on waiting questions."""
    hub = hub_factory("asker", env={"LINEUP_AGENT_QUESTIONS_PER_SECOND": "1000", "LINEUP_AGENT_QUESTION_BURST": "1000"})
    return await make_team(hub, hub.token(), lap)


def question(n: int, size: int = 2000) -> dict[str, object]:
    return {"interaction": {"id": f"q-{n}", "type": "approval", "title": f"Question {n}",
                            "description": "x" * size}}


async def test_a_question_flood_is_capped_and_the_inbox_stays_small(fast_asker: Team) -> None:
    team = fast_asker
    await team.new_task("t-flood", accept=True)
    answers = await asyncio.gather(*(team.agent.request("interaction.requested", question(n), taskId="t-flood")
                                     for n in range(MAX_PENDING_QUESTIONS_PER_AGENT)))
    assert all(a["type"] == "system.ack" for a in answers), [a for a in answers if a["type"] != "system.ack"][:1]
    refused = await team.agent.request("interaction.requested", question(999), taskId="t-flood")
    assert refused["type"] == "system.error" and refused["payload"]["code"] == "rate_limited", refused
    assert "100 questions waiting" in refused["payload"]["message"]
    # Too big a question is refused whatever the count.
    huge = await team.agent.request("interaction.requested", question(1000, size=70_000), conversationId="c1")
    assert huge["type"] == "system.error" and huge["payload"]["code"] == "invalid_payload", huge

    response = await team.api.call("GET", "/api/inbox")
    inbox = response.json()
    assert len(inbox["waitingForMe"]) == 50 and inbox["waitingForMeTotal"] == MAX_PENDING_QUESTIONS_PER_AGENT
    assert [i["id"] for i in inbox["waitingForMe"]] == [f"q-{n}" for n in range(50)]  # the oldest first
    assert len(response.content) < 300_000
    # The rest is there page by page, never all at once: the inbox past its cursor, the interactions list too.
    page = await team.api.get(f"/api/inbox?after={inbox['waitingForMeNextAfter']}")
    assert [i["id"] for i in page["waitingForMe"]] == [f"q-{n}" for n in range(50, 100)]
    last = await team.api.get(f"/api/inbox?after={page['waitingForMeNextAfter']}")
    assert last["waitingForMe"] == [] and last["waitingForMeNextAfter"] is None
    seen: list[str] = []
    listed = await team.api.get("/api/interactions?limit=30")
    while True:
        assert len(listed["interactions"]) <= 30
        seen += [i["id"] for i in listed["interactions"]]
        if listed["nextBefore"] is None:
            break
        listed = await team.api.get(f"/api/interactions?limit=30&before={listed['nextBefore']}")
    assert seen == [f"q-{n}" for n in reversed(range(100))]  # each once, newest first
    over = await team.api.call("GET", "/api/interactions?limit=5000")
    assert over.status_code == 422 and "limit" in over.text

    # Answering one frees a place: the agent may ask again.
    await team.app.ok("interaction.respond", {"interactionId": "q-0", "response": {"optionId": "approve"}})
    again = await team.agent.request("interaction.requested", question(999), taskId="t-flood")
    assert again["type"] == "system.ack", again


async def test_revoking_an_agent_cancels_its_questions_and_ends_its_tasks(team: Team) -> None:
    await team.new_task("t-wait", accept=True)
    await team.new_task("t-queued")
    for n in range(3):
        await team.agent.ok("interaction.requested", question(n), taskId="t-wait")
    await team.agent.ok("task.child_created", {"parentTaskId": "t-wait", "title": "step", "taskId": "t-child",
                                               "status": "running"})
    await team.api.post(f"/api/agents/{team.agent_id}/revoke", status=200)
    for n in range(3):
        resolved = await team.app.event("interaction.resolved", interactionId=f"q-{n}")
        assert resolved["payload"]["outcome"] == "cancelled"
        assert resolved["payload"]["response"] == {"cause": "agent_revoked"}
    for task_id in ("t-wait", "t-queued"):
        ended = await team.app.event("task.status_changed", taskId=task_id, status="cancelled")
        assert ended["payload"]["cause"] == "agent_revoked"
    child = await team.app.event("task.status_changed", taskId="t-child", status="cancelled")
    assert child["payload"]["cause"] == "parent_ended"
    inbox = await team.api.get("/api/inbox")
    assert inbox["waitingForMe"] == [] and inbox["waitingForMeTotal"] == 0


async def test_an_agent_over_its_event_budget_is_slowed_not_cut_off(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("slow", env={"LINEUP_AGENT_EVENTS_PER_SECOND": "20", "LINEUP_AGENT_EVENT_BURST": "20"})
    team = await make_team(hub, hub.token(), lap)
    sent = [await team.agent.send("message.create", {"content": f"m{n}"}, conversationId="c1") for n in range(60)]
    answers = [await team.agent.answer(envelope_id) for envelope_id in sent]
    codes = [a["payload"].get("code") if a["type"] == "system.error" else "ack" for a in answers]
    assert codes.count("ack") >= 20 and codes.count("rate_limited") >= 20, codes
    assert set(codes) == {"ack", "rate_limited"}
    # The socket is still open, and after a pause the agent is served again.
    await asyncio.sleep(1.1)  # the budget refills at 20 a second: this waits for tokens, not for "nothing else"
    later = await team.agent.request("message.create", {"content": "after the pause"}, conversationId="c1")
    assert later["type"] == "system.ack", later
    stored = [e for e in (await team.api.get("/api/events"))["events"] if e["type"] == "message.created"]
    assert len(stored) == codes.count("ack") + 1
    assert json.dumps(stored).count("after the pause") == 1


async def test_questions_faster_than_their_budget_are_refused_at_the_socket(hub_factory: HubFactory, lap: Connect) -> None:
    # The budget refills so slowly here that how long the 130 requests take (a loaded machine) changes nothing:
    # at the default 10 a second, a slow run let refilled questions through to the 100-waiting cap in the writer.
    hub = hub_factory("budget", env={"LINEUP_AGENT_QUESTIONS_PER_SECOND": "0.01"})
    team = await make_team(hub, hub.token(), lap)
    await team.new_task("t-burst", accept=True)
    answers = await asyncio.gather(*(team.agent.request("interaction.requested", question(n, size=100),
                                                        taskId="t-burst") for n in range(130)))
    refused = [a for a in answers if a["type"] == "system.error"]
    assert all(a["payload"]["code"] == "rate_limited" for a in refused), refused[:1]
    # A burst of 100 passes; the rest are refused before the writer, by the question budget.
    assert len(refused) == 30 and all("questions a second" in a["payload"]["message"] for a in refused), refused[:1]
    assert (await team.api.get("/api/inbox"))["waitingForMeTotal"] == 130 - len(refused)
