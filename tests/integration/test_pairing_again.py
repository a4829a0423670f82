"""Pairing the same agent again against a real hub (issue "When something goes wrong, the person sees it", item 3).

Before: a fresh code with a credential file paired a NEW agent; the old one stayed "Offline" beside it ("1/2 agents
online"), its conversations and tasks stranded on a dead twin. Now the SDK sends the stored credential as proof
and the hub keeps the agent (same id, conversations, tasks), rotating only its credential: the old credential is
refused (4401) and a process still running on it stops. An agent whose credential file is lost is paired again with
a code the app makes for it. A credential the hub cannot accept (revoked), or one stored for another address (never
sent there), pairs a new agent and says why.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from hub.sdk import (
    AgentClient,
    AuthError,
    Credential,
    ReplacedError,
    TaskHandle,
    load_credential,
    pair_or_load,
    save_credential,
)
from hub.sdk.credentials import Replacement
from tests.integration.test_sdk import QUICK_BACKOFF, World, eventually, world  # noqa: F401 - fixture
from tests.support.hubproc import run_cli


async def agents_of(world: World) -> list[tuple[str, str]]:
    return [(a["id"], a["status"]) for a in (await world.api.get("/api/agents"))["agents"]]


async def test_a_fresh_code_with_the_stored_credential_keeps_the_agent(world: World,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lineup.sdk")
    agent_id = world.credential.agent_id
    path = world.tmp / "agent.json"
    save_credential(world.credential, path)
    old = world.client()
    reached, release = asyncio.Event(), asyncio.Event()

    @old.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await task.progress(40, "halfway")
        reached.set()
        await release.wait()

    runner = asyncio.create_task(old.run())
    await world.new_task("t-kept", "Keep me")
    await asyncio.wait_for(reached.wait(), 10)
    mark = len(world.app.frames)

    # `lineup demo-agent --code NEW` / any SDK agent: a fresh code while the credential file exists.
    again = await pair_or_load(world.hub.base, await world.api.code(None), path, name="default name",
                               runtime="python-sdk", agent_version="10.0")
    assert again.agent_id == agent_id
    assert again.replaced == Replacement(agent_id, kept=True)
    assert again.credential != world.credential.credential
    assert load_credential(path).credential == again.credential
    assert load_credential(path.with_name("agent.json.bak")).credential == world.credential.credential
    assert "replaced" not in json.loads(path.read_text())
    assert f"paired again as the same agent {agent_id}" in caplog.text
    assert world.credential.credential not in caplog.text and again.credential not in caplog.text

    # The process still running on the old credential is closed (4401) and stops instead of reconnecting, told that
    # the agent paired again (not that its credential was revoked, which sent people to pair it once more).
    with pytest.raises(ReplacedError, match="paired again with a fresh code"):
        await asyncio.wait_for(runner, 10)
    release.set()
    offline = await world.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["status"]
                                       == "offline", start=mark, timeout=10)
    assert offline["payload"]["reason"] == "credential_replaced"
    with pytest.raises(AuthError):  # and the old credential is refused at every later hello
        await world.client().start(timeout_s=10)

    # The new process is the same agent: its unfinished task is handed back, in the same conversation.
    new = AgentClient(again, **QUICK_BACKOFF)
    world.clients.append(new)
    resumed: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    @new.on_task
    async def carry_on(task: TaskHandle) -> None:
        if not resumed.done():
            resumed.set_result(task.resumed)
        await task.succeed("kept and finished")

    await new.start(timeout_s=10)
    assert await asyncio.wait_for(resumed, 10) is True
    await world.finished("t-kept")
    # One agent, online (the app's "1/1"): no dead twin, and the conversation is still its.
    assert await eventually(lambda: _online_only(world, agent_id), what="one agent, online") is True
    conversations = (await world.api.get("/api/conversations"))["conversations"]
    assert [(c["id"], c["agentIds"]) for c in conversations] == [("c1", [agent_id])]
    events = [f for f in world.app.frames[mark:] if f.get("sequence") is not None]
    assert [e["type"] for e in events if e["type"].startswith("agent.") and e["type"] != "agent.status_changed"] \
        == ["agent.credential_rotated"]
    rotated = next(e for e in events if e["type"] == "agent.credential_rotated")["payload"]
    assert rotated["agentId"] == agent_id and rotated["by"] == "credential" and rotated["name"] == "sdk agent"
    assert not any(k.startswith("_") for k in rotated)


async def _online_only(world: World, agent_id: str) -> bool:
    return await agents_of(world) == [(agent_id, "online")]


async def test_a_code_made_for_an_agent_pairs_it_again_without_its_file(world: World) -> None:
    """The credential file is lost (another machine, a wiped folder): the app makes a code for that agent."""
    agent_id = world.credential.agent_id
    before = next(a for a in (await world.api.get("/api/agents"))["agents"] if a["id"] == agent_id)
    assert before["pairedAt"] == before["createdAt"]
    made = await world.api.post("/api/pairing-codes", {"replacesAgentId": agent_id})
    assert made.status_code == 201, made.text
    assert made.json()["replacesAgentId"] == agent_id
    code = made.json()["code"]
    fresh = await pair_or_load(world.hub.base, code, world.tmp / "new-machine" / "agent.json", name="Demo agent")
    assert (fresh.agent_id, fresh.replaced) == (agent_id, Replacement(agent_id, kept=True))
    with pytest.raises(AuthError):
        await world.client().start(timeout_s=10)  # the old credential no longer works
    client = AgentClient(fresh, **QUICK_BACKOFF)
    world.clients.append(client)
    await client.start(timeout_s=10)
    assert await eventually(lambda: _online_only(world, agent_id), what="one agent, online") is True
    # The agent list says when it paired again (what the app's diagnostics show as "Paired"), its creation kept.
    after = next(a for a in (await world.api.get("/api/agents"))["agents"] if a["id"] == agent_id)
    assert after["createdAt"] == before["createdAt"] and after["pairedAt"] > before["pairedAt"], after
    # The code is still single use, and an unknown agent gets no code at all.
    spent = await world.api.post("/api/pair", {"code": code})
    assert (spent.status_code, spent.json()["error"]["code"]) == (401, "unauthorized")
    unknown = await world.api.post("/api/pairing-codes", {"replacesAgentId": "agt_nobody"})
    assert unknown.status_code == 404, unknown.text
    # The log holds the new credential's hash only, `lineup export` leaves it out, and the projections are a replay.
    checked = await asyncio.to_thread(run_cli, world.hub.data_dir, "db", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    exported = await asyncio.to_thread(run_cli, world.hub.data_dir, "export")
    rotated = [json.loads(line) for line in exported.stdout.splitlines() if '"agent.credential_rotated"' in line]
    assert len(rotated) == 1 and rotated[0]["redacted"] == ["_credentialHash"], rotated
    assert fresh.credential not in exported.stdout and "_credentialHash" not in rotated[0]["payload"]


async def test_a_revoked_agent_is_not_taken_over_and_the_log_says_why(world: World,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lineup.sdk")
    agent_id = world.credential.agent_id
    path = world.tmp / "agent.json"
    save_credential(world.credential, path)
    assert (await world.api.post(f"/api/agents/{agent_id}/revoke")).status_code in (200, 204)
    fresh = await pair_or_load(world.hub.base, await world.api.code(None), path, name="fresh")
    assert fresh.agent_id != agent_id
    assert fresh.replaced == Replacement(agent_id, kept=False, reason="revoked")
    assert "the previous agent" in caplog.text and "the stored credential's agent was revoked" in caplog.text


async def test_a_credential_stored_for_another_address_is_never_sent_there(world: World) -> None:
    """A code from another hub must not learn this hub's credential: only the address it was stored for gets it."""
    agent_id = world.credential.agent_id
    relay = await world.relay()  # the same hub behind another port: for the SDK, another address
    path = world.tmp / "agent.json"
    save_credential(Credential(relay.url, agent_id, world.credential.workspace_id, world.credential.credential), path)
    fresh = await pair_or_load(world.hub.base, await world.api.code(None), path, name="elsewhere")
    # Had the credential been sent, this very hub would have kept the agent: a new one proves it was not.
    assert fresh.agent_id != agent_id
    assert fresh.replaced == Replacement(agent_id, kept=False, reason="other_address")
    assert sorted(a for a, _ in await agents_of(world)) == sorted([agent_id, fresh.agent_id])
