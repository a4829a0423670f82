"""Refusals carry structured `details` that programs branch on (docs/protocol.md "Errors"), so no client reads
the message text: illegal_transition says from which status to which, on the socket, over HTTP's error body
shape and in the SDK's HubError."""

from __future__ import annotations

import asyncio
from typing import Any

from hub.sdk import AgentClient, Credential, HubError, TaskHandle
from tests.integration.conftest import Connect
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import make_team, pair


async def refusal(client: LapClient, type_: str, payload: dict[str, Any], **fields: object) -> dict[str, Any]:
    answer = await client.request(type_, payload, **fields)
    assert answer["type"] == "system.error", answer
    assert answer["payload"]["code"] == "illegal_transition", answer
    return dict(answer["payload"])


async def test_illegal_transitions_say_from_and_to_on_the_socket(hub: HubProcess, owner_token: str,
                                                                 lap: Connect) -> None:
    team = await make_team(hub, owner_token, lap)
    await team.new_task("q")  # stays queued
    # The state machine's table (docs/protocol.md#task-states): a move that does not exist.
    assert (await refusal(team.agent, "task.status_changed", {"status": "succeeded"}, taskId="q"))["details"] == {
        "from": "queued", "to": "succeeded"}
    # A question needs a running task.
    asked = await refusal(team.agent, "interaction.requested",
                          {"interaction": {"type": "approval", "title": "ok?"}}, taskId="q")
    assert asked["details"] == {"from": "queued", "to": "waiting_for_human"}

    await team.new_task("r", accept=True)
    again = await refusal(team.agent, "task.accepted", {}, taskId="r")
    assert again["details"] == {"from": "running", "to": "running"}
    assert "hint" in again and again["message"]  # the human parts are still there, unchanged

    await team.agent.ok("task.status_changed", {"status": "succeeded"}, taskId="r")
    # No status asked for: `to` is null.
    late = await refusal(team.agent, "task.status_changed", {"progress": 50}, taskId="r")
    assert late["details"] == {"from": "succeeded", "to": None}
    checkpoint = await refusal(team.agent, "task.checkpoint", {"name": "step", "data": {}}, taskId="r")
    assert checkpoint["details"] == {"from": "succeeded", "to": None}
    cancel = await refusal(team.app, "task.cancel_requested", {}, taskId="r")
    assert cancel["details"] == {"from": "succeeded", "to": "cancelled"}

    # Other refusals carry no details: the key is absent, not empty.
    other = await team.agent.request("task.status_changed", {"progress": 5}, taskId="nope")
    assert other["payload"]["code"] == "not_found" and "details" not in other["payload"]


async def test_the_sdk_reads_details_not_the_message(hub: HubProcess, owner_token: str, lap: Connect) -> None:
    paired = await pair(hub, owner_token, "sdk agent")
    app = await lap(hub, "app", owner_token)
    await app.ok("conversation.create", {"title": "Work", "agentIds": [paired["agentId"]]}, conversationId="c1")
    client = AgentClient(Credential(hub.base, paired["agentId"], app.workspace_id, paired["credential"]),
                         backoff_initial_s=0.05, backoff_max_s=0.3)
    errors: dict[str, HubError] = {}
    finished = asyncio.Event()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        # The same task seen by a restarted copy of the agent: its handle thinks it is queued, the hub has it
        # running; accepting again is not an error (the SDK knows from details["from"]).
        restarted = TaskHandle(client, task.id, task.conversation_id, task.payload)
        assert restarted.status == "queued"
        await restarted.accept()
        assert restarted.status == "running"
        await task.succeed("done")
        try:
            await task.progress(50, "after the end")
        except HubError as exc:
            errors["late"] = exc
        finished.set()

    try:
        await client.start(timeout_s=10)
        await app.ok("task.create", {"title": "Do it"}, conversationId="c1", taskId="t1")
        await asyncio.wait_for(finished.wait(), 10)
    finally:
        await client.close()
    assert errors["late"].code == "illegal_transition"
    assert errors["late"].details == {"from": "succeeded", "to": None}
