"""The task state machine (docs/design.md#task-states) as a real hub enforces it, and cancel as a request vs. a fact."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import pytest

from tests.integration.conftest import Connect
from tests.support.fence import fence
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.live import Team, make_team, of_type, pair, request_fresh, stored_after


@pytest.fixture
async def team(hub: HubProcess, owner_token: str, lap: Connect) -> Team:
    return await make_team(hub, owner_token, lap)


async def head(team: Team) -> int:
    return int((await team.api.get("/api/state"))["headSequence"])


async def refused(team: Team, client_kind: str, type_: str, payload: dict[str, Any], code: str, **fields: object) -> None:
    """The envelope is refused with `code`, and nothing at all is stored."""
    client = team.agent if client_kind == "agent" else team.app
    before = await head(team)
    answer = await client.request(type_, payload, **fields)
    assert answer["type"] == "system.error", (type_, payload, answer)
    assert answer["payload"]["code"] == code, (type_, payload, answer["payload"])
    assert answer["payload"]["hint"]
    assert await stored_after(team.api, before) == []


async def test_happy_path_progress_and_terminal_state(team: Team) -> None:
    await team.new_task("t1")
    assert (await team.api.task("t1"))["task"]["status"] == "queued"
    await team.agent.ok("task.accepted", {}, taskId="t1")
    accepted = await team.app.event("task.accepted", taskId="t1")
    running = await team.app.event("task.status_changed", taskId="t1", status="running")
    assert running["sequence"] > accepted["sequence"]
    assert running["payload"] == {"status": "running", "previousStatus": "queued", "cause": "accepted"}

    # Progress without a status keeps the status, and the projection follows.
    await team.agent.ok("task.status_changed", {"progress": 40, "summary": "halfway"}, taskId="t1")
    update = await team.app.event("task.status_changed", taskId="t1", progress=40)
    assert (update["payload"]["status"], update["payload"]["previousStatus"]) == ("running", "running")
    task = (await team.api.task("t1"))["task"]
    assert (task["status"], task["progress"], task["summary"]) == ("running", 40, "halfway")

    await team.agent.ok("task.status_changed", {"status": "succeeded", "progress": 100}, taskId="t1")
    await team.app.event("task.status_changed", taskId="t1", status="succeeded")
    assert (await team.api.task("t1"))["task"]["status"] == "succeeded"

    # Terminal: nothing moves it any more, not even progress, and a cancel has nothing to cancel.
    for status in ("running", "failed", "cancelled", "queued"):
        await refused(team, "agent", "task.status_changed", {"status": status}, "illegal_transition", taskId="t1")
    await refused(team, "agent", "task.status_changed", {"progress": 50}, "illegal_transition", taskId="t1")
    await refused(team, "app", "task.cancel_requested", {}, "illegal_transition", taskId="t1")
    await refused(team, "agent", "task.accepted", {}, "illegal_transition", taskId="t1")


async def test_failure_needs_an_error_and_is_terminal(team: Team) -> None:
    await team.new_task("t1", accept=True)
    await refused(team, "agent", "task.status_changed", {"status": "failed"}, "invalid_payload", taskId="t1")
    await team.agent.ok("task.status_changed", {"status": "failed", "error": {"code": "tests_red",
                                                                             "message": "3 tests fail"}},
                        taskId="t1")
    failed = await team.app.event("task.status_changed", taskId="t1", status="failed")
    assert failed["payload"]["error"] == {"code": "tests_red", "message": "3 tests fail"}
    task = (await team.api.task("t1"))["task"]
    assert (task["status"], task["error"]) == ("failed", {"code": "tests_red", "message": "3 tests fail"})
    assert [t["id"] for t in (await team.api.get("/api/inbox"))["needsAttention"]] == ["t1"]
    await refused(team, "agent", "task.status_changed", {"status": "succeeded"}, "illegal_transition", taskId="t1")


async def test_illegal_moves_are_refused_and_leave_no_trace(team: Team) -> None:
    await team.new_task("q")  # stays queued
    for status in ("succeeded", "failed", "waiting_for_human"):
        payload = {"status": status, "error": {"code": "x"}} if status == "failed" else {"status": status}
        await refused(team, "agent", "task.status_changed", payload, "illegal_transition", taskId="q")
    # The agent starts a task by accepting it (a bare status_changed running is the same move).
    await team.new_task("r", accept=True)
    await refused(team, "agent", "task.accepted", {}, "illegal_transition", taskId="r")
    await refused(team, "agent", "task.status_changed", {"status": "queued"}, "illegal_transition", taskId="r")
    # waiting_for_human is entered and left only through interactions.
    await refused(team, "agent", "task.status_changed", {"status": "waiting_for_human"}, "illegal_transition",
                  taskId="r")
    # Malformed updates.
    await refused(team, "agent", "task.status_changed", {"progress": 101}, "invalid_payload", taskId="r")
    await refused(team, "agent", "task.status_changed", {"progress": -1}, "invalid_payload", taskId="r")
    await refused(team, "agent", "task.status_changed", {"status": "paused"}, "invalid_payload", taskId="r")
    await refused(team, "agent", "task.status_changed", {"progress": 5}, "invalid_envelope")
    await refused(team, "agent", "task.status_changed", {"progress": 5}, "not_found", taskId="nope")
    # Interactions need a running task.
    await refused(team, "agent", "interaction.requested", {"interaction": {"type": "approval", "title": "ok?"}},
                  "illegal_transition", taskId="q")
    assert (await team.api.task("q"))["task"]["status"] == "queued"
    assert (await team.api.task("r"))["task"]["status"] == "running"
    assert (await team.api.task("r"))["task"]["progress"] is None


async def test_task_create_is_idempotent_and_ids_are_unique(team: Team) -> None:
    payload = {"title": "Once only"}
    envelope_id = "env-task-once"
    first = await team.app.ok("task.create", payload, conversationId=team.conversation_id, taskId="once",
                              id=envelope_id)
    again = await request_fresh(team.app, "task.create", payload, conversationId=team.conversation_id,
                                taskId="once", id=envelope_id)
    assert again["payload"] == {"id": envelope_id, "sequence": first["sequence"], "duplicate": True}
    conflict = await request_fresh(team.app, "task.create", {"title": "Something else"},
                                      conversationId=team.conversation_id, taskId="once", id=envelope_id)
    assert conflict["payload"]["code"] == "conflict"
    taken = await team.app.request("task.create", {"title": "Same id, new envelope"},
                                   conversationId=team.conversation_id, taskId="once")
    assert taken["payload"]["code"] == "conflict"
    await team.agent.event("task.assigned", taskId="once")
    await fence(team.app, team.conversation_id, team.agent)  # a second assignment would have come before it
    assert len(of_type(team.agent, "task.assigned", taskId="once")) == 1
    tasks = (await team.api.get("/api/tasks"))["tasks"]
    assert [(t["id"], t["title"]) for t in tasks] == [("once", "Once only")]
    # A task needs an agent: a conversation with one agent names it, otherwise targetAgentId must.
    await refused(team, "app", "task.create", {"title": "Nobody"}, "invalid_payload")
    await refused(team, "app", "task.create", {"title": "Ghost", "targetAgentId": "agt_ghost"}, "not_found")
    await refused(team, "app", "task.create", {"title": ""}, "invalid_payload", conversationId=team.conversation_id)


async def test_child_tasks(team: Team) -> None:
    await team.new_task("parent", accept=True)
    await team.agent.ok("task.child_created", {"parentTaskId": "parent", "title": "Lint", "taskId": "child-1"})
    await team.agent.ok("task.child_created", {"parentTaskId": "parent", "title": "Test", "status": "running"})
    first = await team.app.event("task.child_created", taskId="child-1")
    assert first["payload"]["parentTaskId"] == "parent"
    second = await team.app.wait_for(lambda f: f["type"] == "task.child_created" and f["taskId"] != "child-1")
    assert second["payload"]["status"] == "running" and second["taskId"]
    children = (await team.api.task("parent"))["children"]
    assert [(c["title"], c["status"], c["parentTaskId"]) for c in children] == \
        [("Lint", "queued", "parent"), ("Test", "running", "parent")]
    # A child follows the same machine and belongs to the agent that made it.
    await team.agent.ok("task.accepted", {}, taskId="child-1")
    await team.agent.ok("task.status_changed", {"status": "succeeded"}, taskId="child-1")
    assert (await team.api.task("child-1"))["task"]["status"] == "succeeded"
    await refused(team, "agent", "task.child_created", {"parentTaskId": "parent", "title": "Wait",
                                                         "status": "waiting_for_human"}, "invalid_payload")
    await refused(team, "agent", "task.child_created", {"parentTaskId": "missing", "title": "Orphan"}, "not_found")
    await refused(team, "agent", "task.child_created", {"parentTaskId": "parent", "title": "Dup",
                                                         "taskId": "child-1"}, "conflict")


async def test_cancel_of_a_queued_task_is_immediate(team: Team) -> None:
    await team.new_task("t1")
    await team.app.ok("task.cancel_requested", {"reason": "changed my mind"}, taskId="t1")
    requested = await team.app.event("task.cancel_requested", taskId="t1")
    cancelled = await team.app.event("task.status_changed", taskId="t1", status="cancelled")
    assert requested["sequence"] < cancelled["sequence"]
    assert cancelled["payload"]["previousStatus"] == "queued"
    assert cancelled["payload"]["cause"] == "cancelled_by_user"
    told = await team.agent.event("task.cancel_requested", taskId="t1")
    assert told["payload"]["reason"] == "changed my mind"
    task = (await team.api.task("t1"))["task"]
    assert (task["status"], task["cancelReason"]) == ("cancelled", "changed my mind")
    assert task["cancelRequestedAt"] is not None
    await refused(team, "agent", "task.accepted", {}, "illegal_transition", taskId="t1")
    await refused(team, "app", "task.cancel_requested", {}, "illegal_transition", taskId="t1")
    assert [t["id"] for t in (await team.api.get("/api/inbox"))["recentlyCompleted"]] == ["t1"]


async def test_cancel_while_waiting_for_the_person_resolves_its_interactions(team: Team) -> None:
    await team.new_task("t1", accept=True)
    await team.ask("t1", {"id": "i1", "type": "approval", "title": "Deploy?"})
    await team.ask("t1", {"id": "i2", "type": "input", "title": "Which branch?"})
    await team.app.event("task.status_changed", taskId="t1", status="waiting_for_human")
    await team.app.ok("task.cancel_requested", {}, taskId="t1")
    cancelled = await team.app.event("task.status_changed", taskId="t1", status="cancelled")
    assert cancelled["payload"]["previousStatus"] == "waiting_for_human"
    for interaction_id in ("i1", "i2"):
        resolved = await team.agent.event("interaction.resolved", interactionId=interaction_id)
        assert resolved["payload"]["outcome"] == "cancelled"
        assert resolved["sequence"] < cancelled["sequence"]
    await team.agent.event("task.cancel_requested", taskId="t1")
    # The task never went back to running on its way out.
    moves = [f["payload"]["status"] for f in of_type(team.app, "task.status_changed", taskId="t1")]
    assert moves == ["running", "waiting_for_human", "cancelled"]
    answer = await team.app.request("interaction.respond", {"interactionId": "i1", "response": {"optionId": "approve"}})
    assert answer["payload"]["code"] == "already_resolved"
    detail = await team.api.task("t1")
    assert detail["task"]["status"] == "cancelled"
    assert {i["id"]: i["status"] for i in detail["interactions"]} == {"i1": "cancelled", "i2": "cancelled"}
    assert (await team.api.get("/api/inbox"))["waitingForMe"] == []


async def test_cancel_of_a_running_task_waits_for_the_agent(team: Team) -> None:
    await team.new_task("t1", accept=True)
    await team.app.ok("task.cancel_requested", {"reason": "stop"}, taskId="t1")
    await team.agent.event("task.cancel_requested", taskId="t1")
    await fence(team.app, team.conversation_id, team.app)  # a cancelled status_changed would have come before it
    task = (await team.api.task("t1"))["task"]
    assert task["status"] == "running", "a running task is cancelled only when its agent confirms"
    assert task["cancelRequestedAt"] is not None
    assert of_type(team.app, "task.status_changed", taskId="t1", status="cancelled") == []
    # The agent may still report progress while it winds down, then confirms.
    await team.agent.ok("task.status_changed", {"progress": 90, "summary": "cleaning up"}, taskId="t1")
    await team.agent.ok("task.status_changed", {"status": "cancelled"}, taskId="t1")
    confirmed = await team.app.event("task.status_changed", taskId="t1", status="cancelled")
    assert confirmed["payload"]["previousStatus"] == "running"
    assert (await team.api.task("t1"))["task"]["status"] == "cancelled"


async def test_cancel_timers_of_two_workspaces_using_the_same_task_id_stay_apart(hub_factory: HubFactory, lap: Connect) -> None:
    """Task ids are unique within a workspace only: A's task ending must not drop B's cancel timer."""
    hub = hub_factory("cancel-two", env={"LINEUP_CANCEL_TIMEOUT_S": "1.5"})
    a = await make_team(hub, hub.token(), lap)
    b = await make_team(hub, hub.token("other"), lap,
                        agent_name="agent-b")
    assert a.app.workspace_id != b.app.workspace_id
    for team in (a, b):
        await team.new_task("same", accept=True)
    await b.app.ok("task.cancel_requested", {}, taskId="same")
    await a.app.ok("task.cancel_requested", {}, taskId="same")
    await a.agent.event("task.cancel_requested", taskId="same")
    await a.agent.ok("task.status_changed", {"status": "cancelled"}, taskId="same")  # A's ends: its timer goes
    timed_out = await b.app.event("task.status_changed", taskId="same", status="cancelled", timeout=5)
    assert timed_out["payload"]["cause"] == "cancel_timeout"
    a_moves = of_type(a.app, "task.status_changed", taskId="same", status="cancelled")
    assert len(a_moves) == 1 and "cause" not in a_moves[0]["payload"]  # A's was cancelled once, by its agent


async def test_unconfirmed_cancel_times_out(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("cancel", env={"LINEUP_CANCEL_TIMEOUT_S": "1.5"})
    team = await make_team(hub, hub.token(), lap)
    await team.new_task("ignored", accept=True)
    await team.new_task("confirmed", accept=True)
    await team.new_task("asks", accept=True)
    requested_at = time.monotonic()
    await team.app.ok("task.cancel_requested", {}, taskId="ignored")
    await team.app.ok("task.cancel_requested", {}, taskId="confirmed")
    await team.app.ok("task.cancel_requested", {}, taskId="asks")
    # An agent that asks the person something instead of stopping does not escape the timeout.
    await team.ask("asks", {"id": "still", "type": "approval", "title": "Keep going?"})
    await team.agent.event("task.cancel_requested", taskId="confirmed")
    await team.agent.ok("task.status_changed", {"status": "cancelled"}, taskId="confirmed")
    timed_out = await team.app.event("task.status_changed", taskId="ignored", status="cancelled", timeout=5)
    elapsed = time.monotonic() - requested_at
    assert 1.4 <= elapsed < 3.0, elapsed
    assert timed_out["payload"]["cause"] == "cancel_timeout"
    assert timed_out["payload"]["previousStatus"] == "running"
    asks = await team.app.event("task.status_changed", taskId="asks", status="cancelled", timeout=3)
    assert (asks["payload"]["previousStatus"], asks["payload"]["cause"]) == ("waiting_for_human", "cancel_timeout")
    # The confirmed one was cancelled once, by its agent; the timer did not add a second move. Its deadline fell
    # between those of "ignored" and "asks" (requested in that order, one timeout), and the hub's timer loop
    # handles deadlines in that order: had it acted on "confirmed", that event would have come before "asks".
    confirmed = of_type(team.app, "task.status_changed", taskId="confirmed", status="cancelled")
    assert len(confirmed) == 1 and "cause" not in confirmed[0]["payload"]
    still = await team.agent.event("interaction.resolved", interactionId="still")
    assert still["payload"]["outcome"] == "cancelled" and still["sequence"] < asks["sequence"]
    detail = await team.api.task("ignored")
    assert detail["task"]["status"] == "cancelled"
    # Not early by the hub's own clock either: from the recorded request to the timeout it stored.
    waited = datetime.fromisoformat(timed_out["occurredAt"].replace("Z", "+00:00")) - \
        datetime.fromisoformat(detail["task"]["cancelRequestedAt"].replace("Z", "+00:00"))
    assert waited.total_seconds() >= 1.4, waited
    [by_timer] = [e for e in detail["timeline"] if e["sequence"] == timed_out["sequence"]]
    assert by_timer["actor"] == "hub"


async def test_what_an_agent_sees(team: Team, hub: HubProcess, lap: Connect) -> None:
    other_pair = await pair(hub, team.token, "other")
    other = await lap(hub, "agent", other_pair["credential"])
    await team.app.ok("conversation.create", {"title": "Both", "agentIds": [team.agent_id, other_pair["agentId"]]},
                      conversationId="both")
    await team.app.ok("message.create", {"content": "to everyone"}, conversationId="both")
    await team.app.ok("message.create", {"content": "only for other", "targetAgentId": other_pair["agentId"]},
                      conversationId="both")
    await team.app.ok("task.create", {"title": "For other", "targetAgentId": other_pair["agentId"]},
                      conversationId="both", taskId="theirs")
    await team.new_task("mine", accept=True)
    await team.agent.ok("task.status_changed", {"progress": 10}, taskId="mine")
    await team.agent.ok("message.create", {"content": "from me"}, conversationId="both")
    await team.ask("mine", {"id": "q", "type": "approval", "title": "ok?"})
    await team.app.ok("interaction.respond", {"interactionId": "q", "response": {"optionId": "approve"}})
    await team.app.ok("task.cancel_requested", {}, taskId="mine")
    await team.agent.event("task.cancel_requested", taskId="mine")
    await other.event("task.assigned", taskId="theirs")
    # Anything more for either agent, or for the app, would have come before this last message to both.
    await fence(team.app, "both", team.agent, other, team.app)

    seen = [(f["type"], f.get("taskId") or f["payload"].get("content") or f["payload"].get("interactionId"))
            for f in team.agent.events()]
    assert seen == [("message.delivered", "to everyone"), ("task.assigned", "mine"), ("interaction.resolved", "mine"),
                    ("task.cancel_requested", "mine"), ("message.delivered", "fence")]
    assert [(f["type"], f.get("taskId") or f["payload"].get("content")) for f in other.events()] == \
        [("message.delivered", "to everyone"), ("message.delivered", "only for other"), ("task.assigned", "theirs"),
         ("message.delivered", "fence")]
    # The app sees the stored names of the same facts, and everything else in the workspace.
    app_types = {f["type"] for f in team.app.events()}
    assert {"task.created", "message.created", "interaction.resolved", "task.cancel_requested", "task.accepted",
            "agent.status_changed", "conversation.created"} <= app_types
    assert not app_types & {"task.assigned", "message.delivered"}
