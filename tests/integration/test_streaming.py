"""Streamed agent messages: live deltas to apps, idempotent by offset, periodic snapshots, the final message, and
what survives a crash (kill -9) or a graceful stop."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.integration.conftest import Connect
from tests.support.fence import fence, timer_pass
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, Team, make_team, of_type, pair

SNAPSHOT_S = 0.5


@pytest.fixture
def stream_hub(hub_factory: HubFactory) -> HubProcess:
    return hub_factory("stream", env={"LINEUP_STREAM_SNAPSHOT_S": str(SNAPSHOT_S)})


@pytest.fixture
async def team(stream_hub: HubProcess, lap: Connect) -> Team:
    return await make_team(stream_hub, await asyncio.to_thread(stream_hub.token), lap)


def deltas(app: LapClient, message_id: str) -> list[dict[str, Any]]:
    return [f for f in app.frames if f["type"] == "message.delta" and f["payload"]["messageId"] == message_id]


async def delta(client: LapClient, conversation_id: str, message_id: str, offset: int, text: str,
                **fields: Any) -> dict[str, Any]:
    return await client.request("message.delta", {"messageId": message_id, "offset": offset, "text": text},
                                conversationId=conversation_id, **fields)


async def messages(api: Api, conversation_id: str) -> list[dict[str, Any]]:
    return list((await api.get(f"/api/conversations/{conversation_id}/messages"))["messages"])


async def test_deltas_go_live_once_and_the_final_message_is_stored(team: Team, stream_hub: HubProcess,
                                                                   lap: Connect) -> None:
    other_token = await asyncio.to_thread(stream_hub.token, "Other")
    outsider = await lap(stream_hub, "app", other_token.strip())
    c = team.conversation_id

    ack = await delta(team.agent, c, "m1", 0, "Hel")
    assert ack["type"] == "system.ack"
    assert ack["payload"]["sequence"] is None and ack["payload"]["transient"] is True
    live = await team.app.wait_for(lambda f: f["type"] == "message.delta")
    assert "sequence" not in live
    assert live["conversationId"] == c
    assert live["payload"] == {"messageId": "m1", "offset": 0, "text": "Hel",
                               "author": {"kind": "agent", "id": team.agent_id}}
    await delta(team.agent, c, "m1", 3, "lo")
    # Re-sends of text the hub already has are acknowledged and dropped.
    for offset, text in ((0, "Hel"), (3, "lo"), (0, "Hello")):
        again = await delta(team.agent, c, "m1", offset, text)
        assert again["type"] == "system.ack"
    await delta(team.agent, c, "m1", 5, " world")
    await team.app.wait_for(lambda f: f["type"] == "message.delta" and f["payload"]["offset"] == 5)
    gap = await delta(team.agent, c, "m1", 50, "?")
    assert gap["payload"]["code"] == "invalid_payload"
    # A delta sent on for a re-send or the gap would have come before this message, on the app's socket and the
    # agent's.
    await fence(team.app, c, team.app, team.agent)
    assert [(d["payload"]["offset"], d["payload"]["text"]) for d in deltas(team.app, "m1")] == \
        [(0, "Hel"), (3, "lo"), (5, " world")]
    assert "".join(d["payload"]["text"] for d in deltas(team.app, "m1")) == "Hello world"

    await team.agent.ok("message.create", {"messageId": "m1", "content": "Hello world!"}, conversationId=c)
    final = await team.app.event("message.created", messageId="m1")
    assert final["payload"]["content"] == "Hello world!"
    stored = [m for m in await messages(team.api, c) if m["id"] == "m1"]
    assert [(m["content"], m["state"]) for m in stored] == [("Hello world!", "complete")]
    late = await delta(team.agent, c, "m1", 12, " more")
    assert late["payload"]["code"] == "conflict"

    # Deltas are for the workspace's live apps only: not the sender, not another workspace. The outsider's pong
    # comes after anything the hub had queued for its socket before (one ordered queue per socket).
    ping = await outsider.send("system.ping", {})
    await outsider.wait_for(lambda f: f["type"] == "system.pong" and f.get("correlationId") == ping)
    assert [f for f in team.agent.frames if f["type"] == "message.delta"] == []
    assert [f for f in outsider.frames if f["type"] == "message.delta"] == []
    assert all(f["workspaceId"] == outsider.workspace_id for f in outsider.events())


async def test_snapshots_are_stored_while_streaming(team: Team, stream_hub: HubProcess, lap: Connect) -> None:
    await team.new_task("t1", accept=True)
    c = team.conversation_id
    started = time.monotonic()
    await delta(team.agent, c, "m2", 0, "first part", taskId="t1")
    snapshot = await team.app.event("message.updated", messageId="m2", timeout=3)
    assert SNAPSHOT_S - 0.1 <= time.monotonic() - started < SNAPSHOT_S + 1.5
    assert snapshot["payload"]["content"] == "first part" and snapshot["payload"]["state"] == "streaming"
    assert snapshot["taskId"] == "t1"
    [row] = await messages(team.api, c)
    assert (row["id"], row["content"], row["state"]) == ("m2", "first part", "streaming")

    # A reloading app gets the stored snapshot, never the transient deltas.
    reloaded = await lap(stream_hub, "app", team.token, last_sequence=0)
    assert [f["payload"]["content"] for f in of_type(reloaded, "message.updated", messageId="m2")] == ["first part"]
    assert [f for f in reloaded.frames if f["type"] == "message.delta"] == []

    await delta(team.agent, c, "m2", 10, ", second part", taskId="t1")
    second = await team.app.wait_for(lambda f: f["type"] == "message.updated" and f["sequence"] > snapshot["sequence"])
    assert second["payload"]["content"] == "first part, second part"
    # Nothing new, nothing stored: the hub's timer has looked at the stream for two more snapshot intervals.
    await timer_pass(team.agent, team.app, c, not_before_s=2 * SNAPSHOT_S)
    assert len(of_type(team.app, "message.updated", messageId="m2")) == 2

    await team.agent.ok("message.create", {"messageId": "m2", "content": "first part, second part."},
                        conversationId=c, taskId="t1")
    [row] = await messages(team.api, c)
    assert (row["content"], row["state"]) == ("first part, second part.", "complete")
    timeline = [e["type"] for e in (await team.api.task("t1"))["timeline"]]
    assert timeline.count("message.updated") == 2 and timeline.count("message.created") == 1


async def test_stream_rules(team: Team, stream_hub: HubProcess, lap: Connect) -> None:
    c = team.conversation_id
    missing = await team.agent.request("message.delta", {"messageId": "m3", "offset": 0, "text": "x"})
    assert missing["payload"]["code"] == "invalid_envelope"
    unknown = await delta(team.agent, "no-such-conversation", "m3", 0, "x")
    assert unknown["payload"]["code"] == "not_found"
    bad = await team.agent.request("message.delta", {"messageId": "m3", "offset": -1, "text": "x"}, conversationId=c)
    assert bad["payload"]["code"] == "invalid_payload"

    # Another agent of the same conversation cannot write into this agent's stream.
    other_pair = await pair(stream_hub, team.token, "other")
    other = await lap(stream_hub, "agent", other_pair["credential"])
    await team.app.ok("conversation.create", {"title": "Both", "agentIds": [team.agent_id, other_pair["agentId"]]},
                      conversationId="both")
    await delta(team.agent, "both", "m4", 0, "mine")
    hijack = await delta(other, "both", "m4", 4, " and yours")
    assert hijack["payload"]["code"] == "forbidden"
    # An app cannot stream: message.delta is not an app event, and it goes nowhere.
    app_delta = await team.app.request("message.delta", {"messageId": "m5", "offset": 0, "text": "x"},
                                       conversationId=c)
    assert app_delta["type"] == "system.error" and app_delta["payload"]["code"] == "forbidden"
    await fence(team.app, "both", team.app)  # a delta sent on for either would have come before it
    assert [d["payload"]["text"] for d in deltas(team.app, "m4")] == ["mine"]
    assert deltas(team.app, "m5") == []


@pytest.mark.hub_process  # kill -9
async def test_kill_9_mid_stream_loses_at_most_the_snapshot_interval(stream_hub: HubProcess, lap: Connect) -> None:
    token = await asyncio.to_thread(stream_hub.token)
    team = await make_team(stream_hub, token, lap)
    c = team.conversation_id
    kept = "".join(f"line {i}\n" for i in range(20))
    for i in range(0, len(kept), 7):
        await delta(team.agent, c, "m6", i, kept[i:i + 7])
    await team.app.wait_for(lambda f: f["type"] == "message.updated" and f["payload"]["content"] == kept, timeout=3)
    recent = "the last few words"
    await delta(team.agent, c, "m6", len(kept), recent)
    stream_hub.kill()
    stream_hub.start()

    [row] = await messages(Api(stream_hub, token), c)
    assert row["state"] == "streaming"
    assert row["content"].startswith(kept), "text acknowledged before the last snapshot was lost"
    assert (kept + recent).startswith(row["content"])

    # The agent resumes the stream from what the hub kept and finishes it.
    agent = await lap(stream_hub, "agent", team.credential)
    app = await lap(stream_hub, "app", token)
    saved = len(row["content"])
    resumed = await delta(agent, c, "m6", saved, (kept + recent + " and the end")[saved:])
    assert resumed["type"] == "system.ack"
    live = await app.wait_for(lambda f: f["type"] == "message.delta")
    assert live["payload"]["offset"] == saved
    await agent.ok("message.create", {"messageId": "m6", "content": kept + recent + " and the end"}, conversationId=c)
    [row] = await messages(Api(stream_hub, token), c)
    assert (row["state"], row["content"]) == ("complete", kept + recent + " and the end")


async def test_graceful_stop_saves_the_stream(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("graceful", env={"LINEUP_STREAM_SNAPSHOT_S": "600"})
    token = await asyncio.to_thread(hub.token)
    team = await make_team(hub, token, lap)
    await delta(team.agent, team.conversation_id, "m7", 0, "nothing saved yet")
    await timer_pass(team.agent, team.app, team.conversation_id)  # a snapshot tick came and stored nothing
    assert (await messages(team.api, team.conversation_id)) == []
    hub.stop()  # SIGTERM: the graceful path
    hub.start()
    [row] = await messages(Api(hub, token), team.conversation_id)
    assert (row["id"], row["content"], row["state"]) == ("m7", "nothing saved yet", "streaming")
