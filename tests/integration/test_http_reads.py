"""The HTTP reads the app loads its state from (docs/design.md#inbox-and-task-lists): lists, details, the inbox, the
event log, paging."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import Connect
from tests.support.hubproc import HubProcess
from tests.support.live import Api, Team, error_code, make_team, without_async


@pytest.fixture
async def team(hub: HubProcess, owner_token: str, lap: Connect) -> Team:
    return await make_team(hub, owner_token, lap)


async def test_public_endpoints(hub: HubProcess) -> None:
    anonymous = Api(hub, None)
    health = await anonymous.get("/-/health")
    assert health["status"] == "ok" and health["protocol"] == "0.1" and health["hubId"] and health["version"]
    info = await anonymous.get("/.well-known/lineup")
    assert info["hubId"] == health["hubId"] and info["protocol"] == "0.1"
    assert info["ws"] == {"app": "/ws/app", "agent": "/ws/agent"}
    response = await anonymous.call("GET", "/-/health")
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


async def test_me_state_and_agents(team: Team) -> None:
    me = await team.api.get("/api/me")
    assert me["userId"] == team.app.welcome["userId"] and me["deviceId"] == team.app.welcome["deviceId"]
    assert me["role"] == "owner" and me["workspace"]["id"] == team.workspace_id
    state = await team.api.get("/api/state")
    assert state["epoch"] == team.app.welcome["epoch"]
    assert state["headSequence"] >= team.app.events()[-1]["sequence"]
    devices = (await team.api.get("/api/devices"))["devices"]
    assert [d["current"] for d in devices] == [True]
    [agent] = (await team.api.get("/api/agents"))["agents"]
    assert (agent["id"], agent["name"], agent["status"], agent["runtime"], agent["agentVersion"]) == \
        (team.agent_id, "agent", "online", "test", "1.0")
    assert agent["lastHeartbeatAt"] and agent["revokedAt"] is None


async def test_conversations_and_message_paging(team: Team) -> None:
    await team.app.ok("conversation.create", {"title": "Quiet", "agentIds": []}, conversationId="quiet")
    for i in range(7):
        sender = team.app if i % 2 == 0 else team.agent
        await sender.ok("message.create", {"content": f"message {i}"}, conversationId=team.conversation_id)
    # The most recently active conversation comes first.
    conversations = (await team.api.get("/api/conversations"))["conversations"]
    assert [c["id"] for c in conversations] == [team.conversation_id, "quiet"]
    assert conversations[0]["agentIds"] == [team.agent_id]

    path = f"/api/conversations/{team.conversation_id}/messages"
    page = await team.api.get(path, limit=3)
    assert [m["content"] for m in page["messages"]] == ["message 4", "message 5", "message 6"]
    assert [m["author"]["kind"] for m in page["messages"]] == ["user", "agent", "user"]
    page2 = await team.api.get(path, limit=3, before=page["nextBefore"])
    assert [m["content"] for m in page2["messages"]] == ["message 1", "message 2", "message 3"]
    page3 = await team.api.get(path, limit=3, before=page2["nextBefore"])
    assert [m["content"] for m in page3["messages"]] == ["message 0"]
    assert page3["nextBefore"] is None
    everything = await team.api.get(path)
    assert [m["content"] for m in everything["messages"]] == [f"message {i}" for i in range(7)]
    sequences = [m["sequence"] for m in everything["messages"]]
    assert sequences == sorted(sequences)
    assert (await team.api.get("/api/conversations/quiet/messages")) == {"messages": [], "nextBefore": None}
    for params in ({"limit": "0"}, {"limit": "501"}, {"before": "soon"}):
        response = await team.api.call("GET", path, params=params)
        assert (response.status_code, error_code(response)) == (422, "invalid_payload"), params


async def test_task_lists_and_detail(team: Team) -> None:
    await team.new_task("queued-1")
    await team.new_task("running-1", accept=True)
    await team.new_task("done-1", accept=True)
    await team.agent.ok("task.status_changed", {"status": "succeeded"}, taskId="done-1")
    await team.app.ok("conversation.create", {"title": "Elsewhere", "agentIds": [team.agent_id]},
                      conversationId="elsewhere")
    await team.app.ok("task.create", {"title": "Elsewhere"}, conversationId="elsewhere", taskId="elsewhere-1")

    async def ids(**params: Any) -> list[str]:
        return sorted(t["id"] for t in (await team.api.get("/api/tasks", **params))["tasks"])

    assert await ids() == ["done-1", "elsewhere-1", "queued-1", "running-1"]
    assert await ids(status="running") == ["running-1"]
    assert await ids(status="queued,succeeded") == ["done-1", "elsewhere-1", "queued-1"]
    assert await ids(conversationId="elsewhere") == ["elsewhere-1"]
    assert await ids(status="queued", conversationId=team.conversation_id) == ["queued-1"]
    assert len(await ids(limit="2")) == 2
    bad = await team.api.call("GET", "/api/tasks", params={"status": "sleeping"})
    assert (bad.status_code, error_code(bad)) == (422, "invalid_payload")

    await team.agent.ok("task.child_created", {"parentTaskId": "running-1", "title": "Sub", "taskId": "sub-1"})
    await team.agent.ok("artifact.created", {"name": "Report", "url": "https://example.test/r.pdf",
                                             "mimeType": "application/pdf", "artifactId": "art-1"},
                        taskId="running-1")
    await team.ask("running-1", {"id": "q-1", "type": "input", "title": "Name?"})
    detail = await team.api.task("running-1")
    assert set(detail) == {"task", "children", "artifacts", "interactions", "timeline"}
    assert detail["task"]["status"] == "waiting_for_human"
    assert detail["task"]["agentId"] == team.agent_id and detail["task"]["conversationId"] == team.conversation_id
    assert [c["id"] for c in detail["children"]] == ["sub-1"]
    assert [(a["id"], a["name"], a["agentId"]) for a in detail["artifacts"]] == [("art-1", "Report", team.agent_id)]
    assert [(i["id"], i["type"], i["status"], i["spec"]["title"]) for i in detail["interactions"]] == \
        [("q-1", "input", "pending", "Name?")]
    timeline = without_async(detail["timeline"])
    assert [e["type"] for e in timeline] == ["task.created", "task.accepted", "task.status_changed",
                                             "artifact.created", "interaction.requested", "task.status_changed"]
    assert all(e["taskId"] == "running-1" for e in timeline)
    assert timeline[0]["actor"] == f"user:{team.app.welcome['userId']}"
    # What the app was sent live is what the timeline shows.
    live = {f["sequence"]: f for f in team.app.events() if f.get("taskId") == "running-1"}
    for entry in detail["timeline"]:
        assert live[entry["sequence"]]["payload"] == entry["payload"]
        assert live[entry["sequence"]]["id"] == entry["id"]
    missing = await team.api.call("GET", "/api/tasks/nope")
    assert (missing.status_code, error_code(missing)) == (404, "not_found")


async def test_inbox(team: Team) -> None:
    await team.new_task("asks", accept=True)
    await team.ask("asks", {"id": "i-1", "type": "approval", "title": "OK?"})
    await team.new_task("fails", accept=True)
    await team.agent.ok("task.status_changed", {"status": "failed", "error": {"code": "boom"}}, taskId="fails")
    await team.new_task("works", accept=True)
    await team.agent.ok("task.status_changed", {"status": "succeeded"}, taskId="works")
    await team.new_task("dropped")
    await team.app.ok("task.cancel_requested", {}, taskId="dropped")
    await team.new_task("busy", accept=True)

    inbox = await team.api.get("/api/inbox")
    assert [(i["id"], i["taskId"], i["agentId"]) for i in inbox["waitingForMe"]] == [("i-1", "asks", team.agent_id)]
    assert [t["id"] for t in inbox["needsAttention"]] == ["fails"]
    assert [t["id"] for t in inbox["recentlyCompleted"]] == ["dropped", "works"]
    await team.app.ok("interaction.respond", {"interactionId": "i-1", "response": {"optionId": "approve"}})
    assert (await team.api.get("/api/inbox"))["waitingForMe"] == []
    pending = await team.api.get("/api/interactions", status="pending")
    answered = await team.api.get("/api/interactions", status="answered")
    assert pending["interactions"] == [] and [i["id"] for i in answered["interactions"]] == ["i-1"]


async def test_event_log_paging_matches_the_socket(team: Team, hub: HubProcess, lap: Connect) -> None:
    await team.new_task("t1", accept=True)
    for progress in range(10, 60, 10):
        await team.agent.ok("task.status_changed", {"progress": progress}, taskId="t1")
    head = (await team.api.get("/api/state"))["headSequence"]
    await team.app.wait_for(lambda f: f.get("sequence") == head)
    collected, after, pages = [], 0, 0
    while True:
        page = await team.api.get("/api/events", after=after, limit=4)
        pages += 1
        collected += [e for e in page["events"] if e["sequence"] <= head]
        assert page["headSequence"] >= head and page["epoch"] == team.app.welcome["epoch"]
        if page["nextAfter"] is None or page["nextAfter"] >= head:
            break
        after = page["nextAfter"]
    assert pages > 2
    live = [f for f in team.app.events() if f["sequence"] <= head]
    assert [e["sequence"] for e in collected] == [f["sequence"] for f in live]
    assert [(e["id"], e["type"], e["payload"]) for e in collected] == [(f["id"], f["type"], f["payload"]) for f in live]
    # Secrets never leave the hub, not even hashed.
    assert not any(key.startswith("_") for e in collected for key in e["payload"])
    middle = collected[len(collected) // 2]["sequence"]
    tail = (await team.api.get("/api/events", after=middle))["events"]
    assert [e["sequence"] for e in tail if e["sequence"] <= head] == \
        [e["sequence"] for e in collected if e["sequence"] > middle]
    assert without_async((await team.api.get("/api/events", after=head))["events"]) == []

    # The app's load-then-subscribe path: connecting at the head replays nothing and goes live.
    resumed = await lap(hub, "app", team.token, last_sequence=head)
    assert without_async(resumed.events()) == []
    caught_up = next(f for f in resumed.frames if f["type"] == "system.caught_up")
    assert caught_up["payload"]["sequence"] == head
    await team.agent.ok("task.status_changed", {"progress": 99}, taskId="t1")
    fresh = await resumed.event("task.status_changed", progress=99)
    assert fresh["sequence"] > head
    # A cursor from the future or from another epoch asks the app to reload instead of replaying silently.
    ahead = await lap(hub, "app", team.token, last_sequence=head + 1000)
    assert [f["payload"]["reason"] for f in ahead.frames if f["type"] == "system.resync_required"] == ["beyond_head"]
    assert without_async(ahead.events()) == []
    foreign = await lap(hub, "app", team.token, last_sequence=1, epoch="another-epoch")
    assert [f["payload"]["reason"] for f in foreign.frames
            if f["type"] == "system.resync_required"] == ["epoch_changed"]
