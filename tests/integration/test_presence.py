"""Presence (docs/design.md#an-agent-that-goes-away, docs/protocol.md#presence): offline on close and on silence,
connection lost, the grace period, and recovery on reconnect. Intervals are shrunk: heartbeat 0.5 s (offline after 1 s
of silence), grace 2 s."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.integration.conftest import Connect
from tests.support.fence import timer_pass
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, Heartbeat, Team, make_team, of_type, pair

HEARTBEAT_S = 0.5
GRACE_S = 2.0
FAST = {"LINEUP_HEARTBEAT_INTERVAL_S": str(HEARTBEAT_S), "LINEUP_GRACE_PERIOD_S": str(GRACE_S)}


@pytest.fixture
def fast_hub(hub_factory: HubFactory) -> HubProcess:
    return hub_factory("presence", env=FAST)


@pytest.fixture
async def team(fast_hub: HubProcess, lap: Connect) -> Any:
    team = await make_team(fast_hub, await asyncio.to_thread(fast_hub.token), lap)
    beat = Heartbeat(team.agent, HEARTBEAT_S / 2)
    yield team
    await beat.stop()


def status_events(app: LapClient, agent_id: str) -> list[dict[str, Any]]:
    return of_type(app, "agent.status_changed", agentId=agent_id)


async def next_status(app: LapClient, agent_id: str, status: str, after: int, timeout: float = 5) -> dict[str, Any]:
    return await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence", 0) > after
                              and f["payload"]["agentId"] == agent_id and f["payload"]["status"] == status, timeout)


async def all_stored_so_far_arrived(team: Team) -> None:
    """Post a message and wait for its event on the app's stream. The log is one sequence and the app receives it
    in order, so a status change the hub stored before this message has arrived by then: one the app has not got at
    that point, the hub did not store."""
    ack = await team.app.ok("message.create", {"content": "sentinel"}, conversationId=team.conversation_id)
    await team.app.wait_for(lambda f: f.get("sequence") == ack["sequence"], timeout=30)


async def test_connect_and_close(team: Team) -> None:
    assert team.agent.welcome["heartbeatIntervalMs"] == int(HEARTBEAT_S * 1000)
    online = status_events(team.app, team.agent_id)
    assert [e["payload"]["status"] for e in online] == ["online"]
    assert online[0]["payload"]["reason"] == "connected"
    assert online[0]["payload"]["runtime"] == "test" and online[0]["payload"]["lastHeartbeatAt"]
    listed = (await team.api.get("/api/agents"))["agents"]
    assert [(a["id"], a["status"]) for a in listed] == [(team.agent_id, "online")]
    # A ping is answered with a pong that names it.
    ping_id = await team.agent.send("system.ping", {})
    pong = await team.agent.wait_for(lambda f: f["type"] == "system.pong" and f.get("correlationId") == ping_id)
    assert "sequence" not in pong

    closed_at = time.monotonic()
    await team.agent.close()
    offline = await next_status(team.app, team.agent_id, "offline", after=online[0]["sequence"])
    assert time.monotonic() - closed_at < 1.0
    # It closed its socket itself (1000): it stopped on purpose, or connects only while it works (a hook).
    assert offline["payload"]["reason"] == "signed_off"
    assert (await team.api.get("/api/agents"))["agents"][0]["status"] == "offline"


async def test_a_dropped_connection_is_not_a_sign_off(team: Team, fast_hub: HubProcess, lap: Connect) -> None:
    """A socket that ends without a close frame (a crash, a pulled cable) is `disconnected`: the app shows the
    problem and says what to do; only a normal close is `signed_off` (seen walking through it by hand: a Claude Code
    hook agent showed a red "connection closed" problem after every normal session)."""
    online = status_events(team.app, team.agent_id)
    transport = team.agent.ws.transport
    transport.abort()
    offline = await next_status(team.app, team.agent_id, "offline", after=online[-1]["sequence"])
    assert offline["payload"]["reason"] == "disconnected"


async def test_second_socket_keeps_the_agent_online(team: Team, fast_hub: HubProcess, lap: Connect) -> None:
    second = await lap(fast_hub, "agent", team.credential)
    beat = Heartbeat(second, HEARTBEAT_S / 2)
    await team.agent.close()
    # A wrong offline would be stored as the hub lets go of the closed socket, at once; nothing tells when it has,
    # so this is time for it to act (and over a heartbeat interval on the second socket alone).
    await asyncio.sleep(0.6)
    await all_stored_so_far_arrived(team)
    assert [e["payload"]["status"] for e in status_events(team.app, team.agent_id)] == ["online"]
    await second.close()
    await beat.stop()
    await next_status(team.app, team.agent_id, "offline", after=0, timeout=1.0)


async def test_a_silent_agent_is_a_zombie(team: Team, fast_hub: HubProcess, lap: Connect) -> None:
    paired = await pair(fast_hub, team.token, "zombie")
    connected_at = time.monotonic()  # before the hello: the hub counts the silence from the hello it received
    zombie = await lap(fast_hub, "agent", paired["credential"])  # sends nothing after its hello
    offline = await next_status(team.app, paired["agentId"], "offline", after=0, timeout=10)
    silent_for = time.monotonic() - connected_at
    # Never before two missed heartbeats; the upper bound only says "soon", loose enough for a loaded CI machine.
    assert 2 * HEARTBEAT_S <= silent_for < 2 * HEARTBEAT_S + 5, silent_for
    assert offline["payload"]["reason"] == "heartbeat_timeout"
    await asyncio.wait_for(zombie.closed.wait(), 2)
    assert zombie.ws.close_code == 4000
    # The agent that kept pinging stayed online the whole time.
    assert [e["payload"]["status"] for e in status_events(team.app, team.agent_id)] == ["online"]
    # Any frame is a sign of life, not only pings: an agent that keeps reporting stays online.
    chatty_pair = await pair(fast_hub, team.token, "chatty")
    chatty = await lap(fast_hub, "agent", chatty_pair["credential"])
    for _ in range(6):
        await chatty.ok("agent.custom_note", {"note": "still here"})
        await asyncio.sleep(HEARTBEAT_S / 2)  # the scenario: an agent that reports twice an interval, not pinging
    await all_stored_so_far_arrived(team)
    assert [e["payload"]["status"] for e in status_events(team.app, chatty_pair["agentId"])] == ["online"]


async def test_lost_connection_then_grace_period_fails_running_tasks(team: Team, fast_hub: HubProcess,
                                                                    lap: Connect) -> None:
    # A second agent that stays: it asks the questions timer_pass needs once the first is gone.
    clock_pair = await pair(fast_hub, team.token, "clock")
    clock = await lap(fast_hub, "agent", clock_pair["credential"])
    clock_beat = Heartbeat(clock, HEARTBEAT_S / 2)
    await team.app.ok("conversation.create", {"title": "Clock", "agentIds": [clock_pair["agentId"]]},
                      conversationId="clock")
    await team.new_task("running", accept=True)
    await team.new_task("queued")
    await team.new_task("waiting", accept=True)
    await team.ask("waiting", {"id": "w1", "type": "approval", "title": "Continue?"})
    await team.agent.close()
    offline_at = time.monotonic()
    offline = await next_status(team.app, team.agent_id, "offline", after=0)
    running = (await team.api.task("running"))["task"]
    assert running["status"] == "running"
    assert running["connectionLostAt"] == offline["payload"]["lastHeartbeatAt"]
    assert (await team.api.task("queued"))["task"]["connectionLostAt"] is None
    assert (await team.api.task("waiting"))["task"]["connectionLostAt"] is not None
    attention = [t["id"] for t in (await team.api.get("/api/inbox"))["needsAttention"]]
    assert sorted(attention) == ["running", "waiting"]

    failed = await team.app.event("task.status_changed", taskId="running", status="failed", timeout=GRACE_S + 3)
    assert time.monotonic() - offline_at >= GRACE_S - 0.1
    assert failed["payload"]["cause"] == "agent_unreachable"
    assert failed["payload"]["error"]["code"] == "agent_unreachable"
    assert failed["payload"]["previousStatus"] == "running"
    task = (await team.api.task("running"))["task"]
    assert (task["status"], task["error"]["code"]) == ("failed", "agent_unreachable")
    assert task["error"]["message"]
    # Only running tasks fail: a queued one waits for its agent, and one waiting for the person stays open. The
    # grace check that failed "running" has run to its end (a later tick came), and stored nothing for them.
    await timer_pass(clock, team.app, "clock")
    assert (await team.api.task("queued"))["task"]["status"] == "queued"
    assert (await team.api.task("waiting"))["task"]["status"] == "waiting_for_human"
    await clock_beat.stop()


async def test_reconnect_before_the_grace_period(team: Team, fast_hub: HubProcess, lap: Connect) -> None:
    await team.new_task("t1", accept=True)
    cursor = team.agent.events()[-1]["sequence"]
    await team.agent.close()
    offline = await next_status(team.app, team.agent_id, "offline", after=0)
    grace_ends = time.monotonic() + GRACE_S  # at the latest: the hub counted from before it stored `offline`
    assert (await team.api.task("t1"))["task"]["connectionLostAt"] is not None
    await asyncio.sleep(GRACE_S / 2)
    agent = await lap(fast_hub, "agent", team.credential, last_sequence=cursor)
    beat = Heartbeat(agent, HEARTBEAT_S / 2)
    online = await next_status(team.app, team.agent_id, "online", after=offline["sequence"])
    assert online["payload"]["reason"] == "connected"
    assert (await team.api.task("t1"))["task"]["connectionLostAt"] is None
    assert of_type(agent, "task.assigned") == []
    # The grace period that started at the disconnect does not fail the task after the agent came back: the hub's
    # timer has run past its end (a grace check in that tick would come before the tick's expiries).
    await timer_pass(agent, team.app, team.conversation_id, not_before_s=grace_ends + 0.1 - time.monotonic())
    task = (await team.api.task("t1"))["task"]
    assert (task["status"], task["connectionLostAt"]) == ("running", None)
    assert of_type(team.app, "task.status_changed", taskId="t1", status="failed") == []
    await agent.ok("task.status_changed", {"status": "succeeded"}, taskId="t1")
    await beat.stop()


async def test_zombie_tasks_show_connection_lost(fast_hub: HubProcess, lap: Connect) -> None:
    token = await asyncio.to_thread(fast_hub.token)
    team = await make_team(fast_hub, token, lap)
    await team.new_task("t1", accept=True)   # the agent never pings: it becomes a zombie
    offline = await next_status(team.app, team.agent_id, "offline", after=0)
    assert offline["payload"]["reason"] == "heartbeat_timeout"
    task = (await Api(fast_hub, token).task("t1"))["task"]
    assert task["connectionLostAt"] is not None and task["status"] == "running"
