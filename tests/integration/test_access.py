"""Who may do what (docs/design.md#connecting-an-agent, docs/design.md#security-baseline): setup, sign-in, devices,
pairing codes, revocation, and the walls between workspaces and between agents."""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

import httpx
import pytest

from tests.integration.conftest import Connect
from tests.support.fence import fence
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, Team, error_code, make_team, of_type, pair, without_async

SETUP = {"username": "grace", "displayName": "Grace Hopper", "password": "cobol-forever", "workspaceName": "Navy"}


async def refused(client: LapClient, type_: str, payload: dict[str, Any], code: str, **fields: Any) -> None:
    answer = await client.request(type_, payload, **fields)
    assert answer["type"] == "system.error", (type_, answer)
    assert answer["payload"]["code"] == code, (type_, answer["payload"])


# ---- setup, sign-in, devices ------------------------------------------------------------------------

async def test_setup_login_and_devices(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("setup")
    anonymous = Api(hub, None)
    assert error_code(await anonymous.post("/api/setup", {**SETUP, "password": "short"}, status=422)) == \
        "invalid_payload"
    assert error_code(await anonymous.post("/api/setup", {**SETUP, "username": "has space"}, status=422)) == \
        "invalid_payload"
    assert (await anonymous.get("/api/setup"))["needsSetup"] is True
    owner = (await anonymous.post("/api/setup", SETUP, status=201)).json()
    assert set(owner) >= {"token", "userId", "workspaceId", "deviceId"}
    assert (await anonymous.get("/api/setup"))["needsSetup"] is False
    assert error_code(await anonymous.post("/api/setup", {**SETUP, "username": "other"}, status=403)) == "forbidden"

    # Wrong password and unknown user get the same answer.
    wrong = await anonymous.post("/api/login", {"username": "grace", "password": "nope"}, status=401)
    unknown = await anonymous.post("/api/login", {"username": "nobody", "password": "nope"}, status=401)
    assert error_code(wrong) == error_code(unknown) == "unauthorized"
    assert wrong.json()["error"]["message"] == unknown.json()["error"]["message"]
    phone = (await anonymous.post("/api/login", {"username": "grace", "password": "cobol-forever",
                                                 "deviceName": "phone"}, status=201)).json()
    assert phone["userId"] == owner["userId"] and phone["token"] != owner["token"]

    browser_api, phone_api = Api(hub, owner["token"]), Api(hub, phone["token"])
    devices = (await phone_api.get("/api/devices"))["devices"]
    assert [(d["name"], d["current"]) for d in devices] == [("browser", False), ("phone", True)]

    # Signing a device out closes its live socket at once and its token stops working; others are unaffected.
    phone_socket = await lap(hub, "app", phone["token"])
    browser_socket = await lap(hub, "app", owner["token"])
    revoked_at = time.monotonic()
    await browser_api.post(f"/api/devices/{phone['deviceId']}/revoke", status=200)
    await asyncio.wait_for(phone_socket.closed.wait(), 2)
    assert time.monotonic() - revoked_at < 1.0
    assert phone_socket.ws.close_code == 4401
    assert error_code(await phone_api.call("GET", "/api/me")) == "unauthorized"
    with pytest.raises(PermissionError, match="unauthorized"):
        await LapClient.connect(hub.ws_base, "app", phone["token"])
    revoked = await browser_socket.event("device.revoked", deviceId=phone["deviceId"])
    assert "_tokenHash" not in str(revoked)
    assert (await browser_api.get("/api/me"))["userId"] == owner["userId"]
    assert [d["revokedAt"] is not None for d in (await browser_api.get("/api/devices"))["devices"]] == [False, True]
    assert error_code(await browser_api.post("/api/devices/dev_missing/revoke", status=404)) == "not_found"


async def test_sign_in_guesses_are_limited(hub_factory: HubFactory) -> None:
    hub = hub_factory("guesses")
    anonymous = Api(hub, None)
    await anonymous.post("/api/setup", SETUP, status=201)
    codes = [error_code(await anonymous.post("/api/login", {"username": "grace", "password": f"guess-{i}"}))
             for i in range(11)]
    assert codes == ["unauthorized"] * 10 + ["rate_limited"]
    # While blocked, even the right password is refused.
    right = await anonymous.post("/api/login", {"username": "grace", "password": "cobol-forever"}, status=429)
    assert error_code(right) == "rate_limited"


async def test_requests_without_a_valid_token(hub: HubProcess) -> None:
    for path in ("/api/me", "/api/tasks", "/api/inbox", "/api/events", "/api/agents", "/api/state"):
        response = await Api(hub, None).call("GET", path)
        assert response.status_code == 401, path
        assert set(response.json()["error"]) == {"code", "message", "hint"}
        bad = await Api(hub, "lu_dev_not-a-real-token").call("GET", path)
        assert (bad.status_code, error_code(bad)) == (401, "unauthorized")
    assert (await Api(hub, None).call("POST", "/api/pairing-codes", json={})).status_code == 401
    with pytest.raises(PermissionError, match="unauthorized"):
        await LapClient.connect(hub.ws_base, "app", "lu_dev_forged")
    with pytest.raises(PermissionError, match="unauthorized"):
        await LapClient.connect(hub.ws_base, "agent", "lu_agt_forged")
    # A page of another site may not use a token it got hold of.
    token = await asyncio.to_thread(hub.token)
    cross = await Api(hub, token).call("POST", "/api/pairing-codes", json={},
                                       headers={"Origin": "https://evil.example"})
    assert (cross.status_code, error_code(cross)) == (403, "forbidden")


# ---- pairing ----------------------------------------------------------------------------------------

async def test_pairing_code_is_single_use_and_expires(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("pairing", env={"LINEUP_PAIRING_CODE_TTL_S": "2"})
    token = await asyncio.to_thread(hub.token)
    api = Api(hub, token)
    app = await lap(hub, "app", token)
    stale = (await api.post("/api/pairing-codes", {}, status=201)).json()
    stale_made = time.monotonic()
    created = (await api.post("/api/pairing-codes", {"name": "laptop"}, status=201)).json()
    assert created["code"] in created["command"] and created["expiresAt"]
    # What a person types: lower case, no dash.
    typed = created["code"].lower().replace("-", "")
    first = await api.post("/api/pair", {"code": typed, "name": "laptop-agent", "runtime": "py",
                                         "agentVersion": "2.0"}, status=201)
    paired = first.json()
    assert paired["workspaceId"] == app.workspace_id and paired["credential"].startswith("lu_agt_")
    announced = await app.event("agent.paired", agentId=paired["agentId"])
    assert announced["payload"]["name"] == "laptop"  # the person's name for the code wins over the agent's own
    assert paired["credential"] not in str(announced) and "_credentialHash" not in str(announced)
    again = await api.post("/api/pair", {"code": created["code"], "name": "thief"}, status=401)
    assert error_code(again) == "unauthorized"
    agent = await lap(hub, "agent", paired["credential"])
    assert agent.welcome["agentId"] == paired["agentId"]

    await asyncio.sleep(max(0.0, 2.1 - (time.monotonic() - stale_made)))
    expired = await api.post("/api/pair", {"code": stale["code"], "name": "late"}, status=410)
    assert error_code(expired) == "expired"
    # A code made by the CLI on the hub's machine (its own settings: the default 10 minutes) works too.
    cli_code = await asyncio.to_thread(hub.pairing_code)
    await api.post("/api/pair", {"code": cli_code, "name": "from-cli"}, status=201)
    names = [a["name"] for a in (await api.get("/api/agents"))["agents"]]
    assert names == ["laptop", "from-cli"]


async def test_wrong_pairing_codes_are_rate_limited(hub: HubProcess, owner_token: str) -> None:
    api = Api(hub, owner_token)
    good = (await api.post("/api/pairing-codes", {}, status=201)).json()["code"]
    codes = []
    for i in range(21):
        codes.append(error_code(await api.post("/api/pair", {"code": f"ZZZZ-{i:04d}"})))
    assert codes == ["unauthorized"] * 20 + ["rate_limited"]
    blocked = await api.post("/api/pair", {"code": good, "name": "real"}, status=429)
    assert error_code(blocked) == "rate_limited"
    assert (await api.get("/api/agents"))["agents"] == []


# ---- revocation -------------------------------------------------------------------------------------

async def test_revoking_an_agent_closes_its_socket_and_kills_its_credential(hub: HubProcess, owner_token: str,
                                                                           lap: Connect) -> None:
    team = await make_team(hub, owner_token, lap)
    await team.new_task("t1", accept=True)
    revoked_at = time.monotonic()
    await team.api.post(f"/api/agents/{team.agent_id}/revoke", status=200)
    await asyncio.wait_for(team.agent.closed.wait(), 2)
    assert time.monotonic() - revoked_at < 1.0
    assert team.agent.ws.close_code == 4401
    await team.app.event("agent.revoked", agentId=team.agent_id)
    with pytest.raises(PermissionError, match="unauthorized"):
        await LapClient.connect(hub.ws_base, "agent", team.credential)
    agent = (await team.api.get("/api/agents"))["agents"][0]
    assert (agent["status"], agent["revokedAt"] is not None) == ("revoked", True)
    # Nothing can be given to a revoked agent any more.
    await refused(team.app, "task.create", {"title": "More work", "targetAgentId": team.agent_id}, "not_found")
    await refused(team.app, "conversation.create", {"title": "x", "agentIds": [team.agent_id]}, "not_found")
    # Revoking is idempotent and stores one fact; an unknown agent is not found.
    await team.api.post(f"/api/agents/{team.agent_id}/revoke", status=200)
    await fence(team.app, team.conversation_id, team.app)  # a second agent.revoked would have come before it
    assert len(of_type(team.app, "agent.revoked")) == 1
    assert error_code(await team.api.post("/api/agents/agt_nobody/revoke", status=404)) == "not_found"


# ---- workspaces and agents are walled off -----------------------------------------------------------

@pytest.fixture
async def two_workspaces(hub: HubProcess, owner_token: str, lap: Connect) -> tuple[Team, Team]:
    home = await make_team(hub, owner_token, lap, conversation_id="home-conv")
    await home.new_task("home-task", accept=True)
    await home.ask("home-task", {"id": "home-ask", "type": "approval", "title": "Secret plan?"})
    other_token = await asyncio.to_thread(hub.token, "Other")
    other = await make_team(hub, other_token, lap, conversation_id="other-conv", agent_name="other-agent")
    assert other.workspace_id != home.workspace_id
    return home, other


async def test_http_reads_do_not_cross_workspaces(two_workspaces: tuple[Team, Team]) -> None:
    home, other = two_workspaces
    # Another workspace's object and an object that does not exist look the same.
    for existing, missing in (("/api/tasks/home-task", "/api/tasks/no-such-task"),
                              ("/api/conversations/home-conv/messages", "/api/conversations/no-such/messages")):
        a, b = await other.api.call("GET", existing), await other.api.call("GET", missing)
        assert (a.status_code, error_code(a)) == (b.status_code, error_code(b)) == (404, "not_found")
    assert [c["id"] for c in (await other.api.get("/api/conversations"))["conversations"]] == ["other-conv"]
    assert (await other.api.get("/api/tasks"))["tasks"] == []
    assert (await other.api.get("/api/inbox"))["waitingForMe"] == []
    assert (await other.api.get("/api/interactions"))["interactions"] == []
    assert [a["name"] for a in (await other.api.get("/api/agents"))["agents"]] == ["other-agent"]
    events = (await other.api.get("/api/events"))["events"]
    assert events and {e["workspaceId"] for e in events} == {other.workspace_id}
    assert (await other.api.get("/api/me"))["workspace"]["name"] == "Other"
    a = await other.api.post(f"/api/agents/{home.agent_id}/revoke")
    assert (a.status_code, error_code(a)) == (404, "not_found")
    assert (await home.api.get("/api/agents"))["agents"][0]["status"] == "online"


async def test_sockets_do_not_cross_workspaces(two_workspaces: tuple[Team, Team]) -> None:
    home, other = two_workspaces
    app = other.app
    await refused(app, "interaction.respond", {"interactionId": "home-ask", "response": {"optionId": "approve"}},
                  "not_found")
    await refused(app, "task.cancel_requested", {}, "not_found", taskId="home-task")
    await refused(app, "message.create", {"content": "hi"}, "not_found", conversationId="home-conv")
    await refused(app, "task.create", {"title": "x"}, "not_found", conversationId="home-conv")
    await refused(app, "task.create", {"title": "x", "targetAgentId": home.agent_id}, "not_found")
    await refused(app, "conversation.create", {"title": "x", "agentIds": [home.agent_id]}, "not_found")
    # Naming the other workspace on the envelope is refused outright.
    await refused(app, "message.create", {"content": "hi"}, "forbidden", conversationId="home-conv",
                  workspace_id=home.workspace_id)
    agent = other.agent
    await refused(agent, "task.accepted", {}, "not_found", taskId="home-task")
    await refused(agent, "task.status_changed", {"progress": 1}, "not_found", taskId="home-task")
    await refused(agent, "message.create", {"content": "hi"}, "not_found", conversationId="home-conv")
    await refused(agent, "message.delta", {"messageId": "m", "offset": 0, "text": "x"}, "not_found",
                  conversationId="home-conv")
    await refused(agent, "artifact.created", {"name": "x", "url": "https://x.test"}, "not_found",
                  taskId="home-task")
    await refused(agent, "task.child_created", {"parentTaskId": "home-task", "title": "x"}, "not_found")
    await refused(agent, "message.create", {"content": "hi"}, "forbidden", conversationId="other-conv",
                  workspace_id=home.workspace_id)
    # A message in its own conversation cannot be pinned on a task of another workspace.
    await refused(agent, "message.create", {"content": "planted"}, "not_found", conversationId="other-conv",
                  taskId="home-task")
    # Nothing of the home workspace reached the other one, and the home task is untouched: anything on its way to
    # the other workspace's app or agent would have come before this last message of theirs.
    await fence(app, "other-conv", app, agent)
    assert {f["workspaceId"] for f in app.events() + agent.events()} == {other.workspace_id}
    assert all(f["type"] != "message.delta" for f in app.frames)
    detail = await home.api.task("home-task")
    assert detail["task"]["status"] == "waiting_for_human"
    assert {e["workspaceId"] for e in detail["timeline"]} == {home.workspace_id}
    assert [i["status"] for i in detail["interactions"]] == ["pending"]


async def test_an_agent_cannot_touch_another_agents_work(hub: HubProcess, owner_token: str, lap: Connect) -> None:
    team = await make_team(hub, owner_token, lap)
    await team.new_task("mine", accept=True)
    intruder_pair = await pair(hub, owner_token, "intruder")
    intruder = await lap(hub, "agent", intruder_pair["credential"])
    await team.app.ok("conversation.create", {"title": "Intruder's own", "agentIds": [intruder_pair["agentId"]]},
                      conversationId="theirs")
    await team.app.ok("task.create", {"title": "Theirs", "targetAgentId": intruder_pair["agentId"]},
                      conversationId="theirs", taskId="their-task")
    await intruder.event("task.assigned", taskId="their-task")
    before = without_async((await team.api.task("mine"))["timeline"])

    for type_, payload, fields in cast(list[tuple[str, dict[str, Any], dict[str, Any]]], [
        ("task.accepted", {}, {"taskId": "mine"}),
        ("task.status_changed", {"status": "succeeded"}, {"taskId": "mine"}),
        ("task.status_changed", {"progress": 99}, {"taskId": "mine"}),
        ("interaction.requested", {"interaction": {"type": "approval", "title": "Mine now?"}}, {"taskId": "mine"}),
        ("artifact.created", {"name": "fake", "url": "https://x.test"}, {"taskId": "mine"}),
        ("task.child_created", {"parentTaskId": "mine", "title": "fake"}, {}),
        ("message.create", {"content": "hello"}, {"conversationId": team.conversation_id}),
        ("message.delta", {"messageId": "m1", "offset": 0, "text": "hi"}, {"conversationId": team.conversation_id}),
        ("task.create", {"title": "sneaky"}, {"conversationId": team.conversation_id}),
        ("message.create", {"content": "planted"}, {"conversationId": "theirs", "taskId": "mine"}),
        ("message.delta", {"messageId": "m2", "offset": 0, "text": "planted"},
         {"conversationId": "theirs", "taskId": "mine"}),
    ]):
        await refused(intruder, type_, payload, "forbidden", **fields)
    after = without_async((await team.api.task("mine"))["timeline"])
    assert after == before
    assert of_type(intruder, "task.assigned", taskId="mine") == []
    assert (await team.api.task("mine"))["task"]["status"] == "running"
    # Its own work is fine.
    await intruder.ok("task.accepted", {}, taskId="their-task")


async def test_app_cannot_speak_for_an_agent(hub: HubProcess, owner_token: str, lap: Connect) -> None:
    team = await make_team(hub, owner_token, lap)
    await team.new_task("t1")
    for type_, payload in [("task.accepted", {}), ("task.status_changed", {"status": "running"}),
                           ("artifact.created", {"name": "x", "url": "https://x.test"})]:
        answer = await team.app.request(type_, payload, taskId="t1")
        assert answer["type"] == "system.error" and answer["payload"]["code"] == "forbidden", answer
    assert (await team.api.task("t1"))["task"]["status"] == "queued"
    # The agent credential is not an app token, and the other way round.
    with pytest.raises(PermissionError):
        await LapClient.connect(hub.ws_base, "app", team.credential)
    with pytest.raises(PermissionError):
        await LapClient.connect(hub.ws_base, "agent", owner_token)
    response = httpx.get(hub.base + "/api/me", headers={"Authorization": f"Bearer {team.credential}"})
    assert response.status_code == 401
