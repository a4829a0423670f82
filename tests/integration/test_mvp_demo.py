"""The MVP demo (docs/design.md#the-mvp-demo), end to end against a real hub with raw sockets (no SDK).

Steps: 1 set up a workspace; (2 pair an agent); 3 create a task, close the app and reopen it; 4 progress and a
child task; 5 an approval answered from the inbox; 6 the agent drops, the app sees it, the agent resumes
without a duplicate assignment or a lost answer; 7 a result message, an artifact, success and a full timeline.
"""

from __future__ import annotations

import time

from tests.integration.conftest import Connect
from tests.support.fixtures import HubFactory
from tests.support.live import Api, last_sequence, of_type, pair


async def test_mvp_demo(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("demo")

    # ---- 1. first-run setup creates the workspace and its owner ---------------------------------------
    anonymous = Api(hub, None)
    assert (await anonymous.get("/api/setup")) == {"needsSetup": True, "setupCodeRequired": False}
    created = await anonymous.post("/api/setup", {"username": "ada", "displayName": "Ada Lovelace",
                                                  "password": "analytical-engine", "workspaceName": "Demo"},
                                   status=201)
    owner = created.json()
    token = owner["token"]
    api = Api(hub, token)
    me = await api.get("/api/me")
    assert me["workspace"] == {"id": owner["workspaceId"], "name": "Demo"}
    assert (me["role"], me["displayName"]) == ("owner", "Ada Lovelace")
    again = await anonymous.post("/api/setup", {"username": "eve", "displayName": "Eve", "password": "12345678x",
                                                "workspaceName": "Mine"}, status=403)
    assert again.json()["error"]["code"] == "forbidden"
    assert (await anonymous.get("/.well-known/lineup"))["needsSetup"] is False

    # ---- 2. pair an agent with a one-time code -------------------------------------------------------
    paired = await pair(hub, token, "builder")
    assert paired["workspaceId"] == owner["workspaceId"]
    agent = await lap(hub, "agent", paired["credential"], capabilities=["code"])
    app = await lap(hub, "app", token)
    assert app.welcome["userId"] == owner["userId"]

    # ---- 3. create a task; close the app; reopen it --------------------------------------------------
    await app.ok("conversation.create", {"title": "Release 1.0", "agentIds": [paired["agentId"]]},
                 conversationId="conv-demo")
    await app.ok("task.create", {"title": "Ship release 1.0", "description": "Tag, build, publish"},
                 conversationId="conv-demo", taskId="t-demo")
    await app.ok("message.create", {"content": "Please ship 1.0 today"}, conversationId="conv-demo")
    assigned = await agent.event("task.assigned", taskId="t-demo")
    assert assigned["conversationId"] == "conv-demo"
    assert assigned["payload"]["title"] == "Ship release 1.0"
    assert assigned["payload"]["agentId"] == paired["agentId"]
    delivered = await agent.event("message.delivered", conversationId="conv-demo")
    assert delivered["payload"]["content"] == "Please ship 1.0 today"
    await app.close()

    reopened = await lap(hub, "app", token, last_sequence=0)
    replayed = [f["type"] for f in reopened.events()]
    assert replayed.index("conversation.created") < replayed.index("task.created") < replayed.index("message.created")
    assert [f["taskId"] for f in of_type(reopened, "task.created")] == ["t-demo"]
    conversations = (await api.get("/api/conversations"))["conversations"]
    assert [(c["id"], c["title"], c["agentIds"]) for c in conversations] == \
        [("conv-demo", "Release 1.0", [paired["agentId"]])]
    assert (await api.task("t-demo"))["task"]["status"] == "queued"
    messages = (await api.get("/api/conversations/conv-demo/messages"))["messages"]
    assert [m["content"] for m in messages] == ["Please ship 1.0 today"]
    # A second browser signs in with the password and sees the same state.
    login = await anonymous.post("/api/login", {"username": "ada", "password": "analytical-engine",
                                                "deviceName": "phone"}, status=201)
    phone = Api(hub, login.json()["token"])
    assert [t["id"] for t in (await phone.get("/api/tasks"))["tasks"]] == ["t-demo"]
    app = reopened

    # ---- 4. two progress updates and a child task ---------------------------------------------------
    await agent.ok("task.accepted", {}, taskId="t-demo")
    await agent.ok("task.status_changed", {"progress": 25, "summary": "Tagged v1.0"}, taskId="t-demo")
    await agent.ok("task.status_changed", {"progress": 50, "summary": "Built wheels"}, taskId="t-demo")
    await agent.ok("task.child_created", {"parentTaskId": "t-demo", "title": "Run the test matrix",
                                          "taskId": "t-demo-tests"})
    running = await app.event("task.status_changed", taskId="t-demo", status="running")
    assert (running["payload"]["previousStatus"], running["payload"]["cause"]) == ("queued", "accepted")
    await app.event("task.status_changed", taskId="t-demo", progress=50)
    assert [f["payload"]["progress"] for f in of_type(app, "task.status_changed", taskId="t-demo")
            if "progress" in f["payload"]] == [25, 50]
    child = await app.event("task.child_created", taskId="t-demo-tests")
    assert child["payload"]["parentTaskId"] == "t-demo"
    detail = await api.task("t-demo")
    assert (detail["task"]["status"], detail["task"]["progress"], detail["task"]["summary"]) == \
        ("running", 50, "Built wheels")
    assert [(c["id"], c["parentTaskId"], c["title"]) for c in detail["children"]] == \
        [("t-demo-tests", "t-demo", "Run the test matrix")]

    # ---- 5. an approval handled through the inbox ---------------------------------------------------
    await agent.ok("interaction.requested", {"interaction": {
        "id": "ask-publish", "type": "approval", "title": "Publish to PyPI?", "risk": "high",
        "description": "This uploads 1.0 for everyone."}}, taskId="t-demo")
    waiting = await app.event("task.status_changed", taskId="t-demo", status="waiting_for_human")
    assert waiting["payload"]["interactionId"] == "ask-publish"
    inbox = await api.get("/api/inbox")
    assert [(i["id"], i["status"], i["taskId"]) for i in inbox["waitingForMe"]] == \
        [("ask-publish", "pending", "t-demo")]
    card = inbox["waitingForMe"][0]
    option_ids = [o["id"] for o in card["spec"]["options"]]
    assert option_ids == ["approve", "reject"]
    await app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "approve",
                                                                                    "comment": "go"}})
    answer = await agent.event("interaction.resolved", interactionId="ask-publish")
    assert answer["payload"]["outcome"] == "answered"
    assert answer["payload"]["response"] == {"optionId": "approve", "approved": True, "comment": "go"}
    assert answer["payload"]["respondedBy"]["id"] == owner["userId"] and answer["payload"]["respondedBy"]["displayName"]
    resumed = await app.event("task.status_changed", taskId="t-demo", status="running",
                              cause="interaction_resolved")
    assert resumed["payload"]["previousStatus"] == "waiting_for_human"
    assert (await api.get("/api/inbox"))["waitingForMe"] == []
    await agent.ok("task.status_changed", {"progress": 75, "summary": "Published"}, taskId="t-demo")
    await app.event("task.status_changed", taskId="t-demo", progress=75)

    # ---- 6. the adapter drops; the person answers meanwhile; it comes back -------------------------
    await agent.ok("interaction.requested", {"interaction": {
        "id": "ask-announce", "type": "approval", "title": "Announce the release?"}}, taskId="t-demo")
    await app.event("task.status_changed", taskId="t-demo", status="waiting_for_human")
    progress_envelope = {"progress": 80, "summary": "Waiting for the announcement"}
    progress_id = await agent.send("task.status_changed", progress_envelope, taskId="t-demo")
    first_ack = await agent.answer(progress_id)
    assert first_ack["type"] == "system.ack"
    agent_cursor = last_sequence(agent)
    assigned_before = len(of_type(agent, "task.assigned"))
    assert assigned_before == 1
    dropped_at = time.monotonic()
    await agent.close()
    offline = await app.event("agent.status_changed", agentId=paired["agentId"], status="offline", timeout=5)
    assert time.monotonic() - dropped_at < 1.0, "the app must see the agent offline within a second"
    assert offline["payload"]["lastHeartbeatAt"]
    lost = (await api.task("t-demo"))["task"]
    assert lost["connectionLostAt"] is not None
    assert "t-demo" in [t["id"] for t in (await api.get("/api/inbox"))["needsAttention"]]
    assert [a["status"] for a in (await api.get("/api/agents"))["agents"]] == ["offline"]

    await app.ok("interaction.respond", {"interactionId": "ask-announce", "response": {"optionId": "approve"}})
    await app.event("interaction.resolved", interactionId="ask-announce")

    agent = await lap(hub, "agent", paired["credential"], last_sequence=agent_cursor)
    replay = agent.events()
    assert all(f["sequence"] > agent_cursor for f in replay)
    assert of_type(agent, "task.assigned") == [], "a resumed agent must not be assigned its task again"
    missed = of_type(agent, "interaction.resolved", interactionId="ask-announce")
    assert len(missed) == 1 and missed[0]["payload"]["outcome"] == "answered"
    online = await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["status"] == "online"
                                and f["sequence"] > offline["sequence"])
    assert online["payload"]["agentId"] == paired["agentId"]
    assert (await api.task("t-demo"))["task"]["connectionLostAt"] is None
    # Re-sending what the agent sent before the drop stores nothing new.
    duplicate = await agent.request("task.status_changed", progress_envelope, taskId="t-demo", id=progress_id)
    assert duplicate["payload"] == {"id": progress_id, "sequence": first_ack["payload"]["sequence"],
                                    "duplicate": True}

    # ---- 7. result message, artifact, success, full timeline ----------------------------------------
    await agent.ok("message.create", {"content": "Released 1.0: https://example.test/releases/1.0"},
                   conversationId="conv-demo", taskId="t-demo")
    await agent.ok("artifact.created", {"name": "Release notes", "url": "https://example.test/notes/1.0",
                                        "mimeType": "text/html", "summary": "What changed"}, taskId="t-demo")
    await agent.ok("task.status_changed", {"status": "succeeded", "progress": 100, "summary": "Released"},
                   taskId="t-demo")
    done = await app.event("task.status_changed", taskId="t-demo", status="succeeded")
    assert done["payload"]["previousStatus"] == "running"
    await app.event("artifact.created", taskId="t-demo")
    detail = await api.task("t-demo")
    assert (detail["task"]["status"], detail["task"]["progress"]) == ("succeeded", 100)
    assert [(a["name"], a["url"], a["mimeType"]) for a in detail["artifacts"]] == \
        [("Release notes", "https://example.test/notes/1.0", "text/html")]
    assert [(i["id"], i["status"]) for i in detail["interactions"]] == \
        [("ask-publish", "answered"), ("ask-announce", "answered")]
    timeline = detail["timeline"]
    sequences = [e["sequence"] for e in timeline]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    kinds = [e["type"] for e in timeline]
    expected_order = ["task.created", "task.accepted", "interaction.requested", "interaction.resolved",
                      "interaction.requested", "interaction.resolved", "message.created", "artifact.created"]
    assert is_subsequence(expected_order, kinds), kinds
    moves = [(e["payload"]["previousStatus"], e["payload"]["status"]) for e in timeline
             if e["type"] == "task.status_changed" and e["payload"]["previousStatus"] != e["payload"]["status"]]
    assert moves == [("queued", "running"), ("running", "waiting_for_human"), ("waiting_for_human", "running"),
                     ("running", "waiting_for_human"), ("waiting_for_human", "running"), ("running", "succeeded")]
    assert [e["payload"]["progress"] for e in timeline
            if e["type"] == "task.status_changed" and "progress" in e["payload"]] == [25, 50, 75, 80, 100]
    assert kinds.count("task.created") == 1
    assert {e["actor"] for e in timeline} >= {f"user:{owner['userId']}", f"agent:{paired['agentId']}"}
    inbox = await api.get("/api/inbox")
    assert [t["id"] for t in inbox["recentlyCompleted"]] == ["t-demo"]
    assert inbox["needsAttention"] == [] and inbox["waitingForMe"] == []
    messages = (await api.get("/api/conversations/conv-demo/messages"))["messages"]
    assert [m["author"]["kind"] for m in messages] == ["user", "agent"]


def is_subsequence(wanted: list[str], seen: list[str]) -> bool:
    remaining = iter(seen)
    return all(any(kind == item for item in remaining) for kind in wanted)
