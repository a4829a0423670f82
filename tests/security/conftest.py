"""The security tests' shared hub: two workspaces on one hub, with every kind of object and every kind of secret
(live, revoked, of the other workspace), built once per module.

Workspace A ("Alpha") is the one attacked: an owner with a password, a live and a revoked device token, a live and
a revoked agent, a conversation with a message, a running task waiting on a pending approval, a queued task, an
artifact, tools registered by its app and its agent, and one pending tool call towards each of them.
Workspace B ("Other") is the neighbour: an owner token (`lineup token --workspace Other`), an agent, a conversation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.security.support import ServedHub, run_async
from tests.support.hubproc import pair_agent
from tests.support.lap import LapClient

PASSWORD = "correct horse battery staple"


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "type": "action", "description": f"The {name} tool",
            "inputSchema": {"type": "object", "properties": {}}}


@dataclass
class World:
    hub: ServedHub
    a: dict[str, str] = field(default_factory=dict)    # workspace A's ids and secrets
    b: dict[str, str] = field(default_factory=dict)    # workspace B's

    def a_ids(self) -> list[str]:
        """Every id of workspace A that must never show in an answer to workspace B."""
        return [self.a[k] for k in ("workspaceId", "userId", "deviceId", "spareDeviceId", "agentId", "goneAgentId",
                                    "conversationId", "taskId", "queuedTaskId", "interactionId", "artifactId",
                                    "messageId", "agentCallId", "appCallId")] + ["a_agent_tool", "a_app_tool", "Alpha"]


async def build_world(hub: ServedHub) -> World:
    world = World(hub)
    a, b = world.a, world.b
    async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
        owner = (await http.post("/api/setup", json={"username": "ada", "displayName": "Ada", "password": PASSWORD,
                                                      "workspaceName": "Alpha"})).json()
        a.update(token=owner["token"], userId=owner["userId"], workspaceId=owner["workspaceId"],
                 deviceId=owner["deviceId"])
        auth = {"Authorization": f"Bearer {a['token']}"}
        spare = (await http.post("/api/login", json={"username": "ada", "password": PASSWORD,
                                                      "deviceName": "old phone"})).json()
        a.update(revokedToken=spare["token"], spareDeviceId=spare["deviceId"])
        assert (await http.post(f"/api/devices/{spare['deviceId']}/revoke", json={}, headers=auth)).status_code == 200
    paired = pair_agent(hub, a["token"], "a-agent")  # type: ignore[arg-type]  # a ServedHub; pair_agent reads only .base
    gone = pair_agent(hub, a["token"], "a-gone")  # type: ignore[arg-type]  # a ServedHub; pair_agent reads only .base
    a.update(agentId=paired["agentId"], credential=paired["credential"], goneAgentId=gone["agentId"],
             revokedCredential=gone["credential"])
    httpx.post(f"{hub.base}/api/agents/{gone['agentId']}/revoke", json={},
               headers={"Authorization": f"Bearer {a['token']}"}).raise_for_status()

    app = await LapClient.connect(hub.ws_base, "app", a["token"])
    agent = await LapClient.connect(hub.ws_base, "agent", a["credential"])
    try:
        await agent.ok("tool.list", {"tools": [tool("a_agent_tool")]})
        await app.ok("tool.list", {"tools": [tool("a_app_tool")]})
        a.update(conversationId="a-conv", taskId="a-task", queuedTaskId="a-queued", interactionId="a-ask",
                 artifactId="a-artifact", messageId="a-message", agentCallId="a-call-to-agent",
                 appCallId="a-call-to-app")
        await app.ok("conversation.create", {"title": "Alpha work", "agentIds": [a["agentId"]]},
                     conversationId="a-conv")
        await app.ok("message.create", {"content": "Alpha's plans", "messageId": "a-message"},
                     conversationId="a-conv")
        await app.ok("task.create", {"title": "Alpha task"}, conversationId="a-conv", taskId="a-task")
        await agent.ok("task.accepted", {}, taskId="a-task")
        await agent.ok("artifact.created", {"name": "report", "url": "https://alpha.test/r",
                                            "artifactId": "a-artifact"}, taskId="a-task")
        await agent.ok("interaction.requested", {"interaction": {"id": "a-ask", "type": "approval",
                                                                 "title": "Ship Alpha?"}}, taskId="a-task")
        await app.ok("task.create", {"title": "Alpha queued"}, conversationId="a-conv", taskId="a-queued")
        # One pending call towards A's agent (from A's app) and one towards A's app (from A's agent).
        await app.ok("tool.call", {"call_id": "a-call-to-agent", "name": "a_agent_tool", "arguments": {},
                                   "targetAgentId": a["agentId"]})
        await agent.ok("tool.call", {"call_id": "a-call-to-app", "name": "a_app_tool", "arguments": {}})
        to_app = await app.wait_for(lambda f: f["type"] == "tool.call" and f["payload"]["call_id"] == "a-call-to-app"
                                    and f.get("sequence") is not None)
        a["appCallEventId"] = to_app["id"]
    finally:
        await app.close()
        await agent.close()

    b["token"] = hub.token("Other")
    other = pair_agent(hub, b["token"], "b-agent")  # type: ignore[arg-type]  # a ServedHub; pair_agent reads only .base
    b.update(agentId=other["agentId"], credential=other["credential"])
    b_app = await LapClient.connect(hub.ws_base, "app", b["token"])
    try:
        b["workspaceId"] = b_app.workspace_id
        await b_app.ok("conversation.create", {"title": "Other work", "agentIds": [b["agentId"]]},
                       conversationId="b-conv")
        b["conversationId"] = "b-conv"
    finally:
        await b_app.close()
    return world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    hub = ServedHub(tmp_path_factory.mktemp("world") / "hub").start()
    try:
        yield run_async(lambda: build_world(hub))
    finally:
        hub.stop()
