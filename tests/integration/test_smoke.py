"""The shortest path through a real hub: pair an agent, assign a task, answer an approval."""

from __future__ import annotations

import httpx

from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient


async def test_task_round_trip(hub: HubProcess, owner_token: str) -> None:
    paired = pair_agent(hub, owner_token)
    agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
    app = await LapClient.connect(hub.ws_base, "app", owner_token)
    await app.ok("conversation.create", {"title": "Website", "agentIds": [paired["agentId"]]}, conversationId="c1")
    await app.ok("task.create", {"title": "Tidy dependencies"}, conversationId="c1", taskId="t1")
    assigned = await agent.event("task.assigned", taskId="t1")
    assert assigned["payload"]["title"] == "Tidy dependencies"
    await agent.ok("task.accepted", {}, taskId="t1")
    await agent.ok("interaction.requested", {"interaction": {"id": "i1", "type": "approval", "title": "Migrate?"}},
                   taskId="t1")
    waiting = await app.event("task.status_changed", taskId="t1", status="waiting_for_human")
    assert waiting["payload"]["previousStatus"] == "running"
    await app.ok("interaction.respond", {"interactionId": "i1", "response": {"optionId": "approve"}})
    resolved = await agent.event("interaction.resolved", interactionId="i1")
    assert resolved["payload"]["outcome"] == "answered"
    detail = httpx.get(f"{hub.base}/api/tasks/t1", headers={"Authorization": f"Bearer {owner_token}"}).json()
    assert detail["task"]["status"] == "running"
    assert [i["status"] for i in detail["interactions"]] == ["answered"]
    await agent.close()
    await app.close()
