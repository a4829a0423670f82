"""The agent side keeps every decision exactly once, across restarts, duplicate processes and re-pairing.

Real `lineup demo-agent` processes against a real hub, watched from an app socket: the connect command run twice
(the newer process takes over, the older stops), the agent killed while its question waits (answered meanwhile,
restarted: asked once, no step done twice), killed during a step (the same child finishes, none left running),
a fresh code pairing the same agent again (it keeps its id and its task), a stale credential with a fresh code,
and the SDK's rule of one connection per agent instance (siblings coexist).
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from hub.sdk import AgentClient, ReplacedError, TaskHandle, pair
from hub.sdk.client import TaskHandler
from tests.integration.test_demo_agent import DemoProcess, Stage, children_of, stage, stored  # noqa: F401 - fixture
from tests.integration.test_sdk import QUICK_BACKOFF, eventually

TITLES = ["Scan the repository", "Prepare the migration plan", "Apply the migrations"]


def second_copy(first: DemoProcess, name: str) -> DemoProcess:
    """Another process on the same credential file (the connect command run again), with its own log."""
    copy = DemoProcess(first.folder)
    copy.log_path = first.folder / f"{name}.log"
    return copy


def progress_values(app_frames: list[dict[str, Any]], task_id: str) -> list[int]:
    return [f["payload"]["progress"] for f in app_frames if f["type"] == "task.status_changed"
            and f.get("taskId") == task_id and f["payload"].get("progress") is not None]


def assert_done_once(stage: Stage, task_id: str = "t-demo") -> None:
    """Exactly one approval, every step once, progress never backwards, no child left running."""
    assert len(stored(stage.app, "interaction.requested", taskId=task_id)) == 1
    titles = [f["payload"]["title"] for f in children_of(stage.app, task_id)]
    assert sorted(titles) == sorted(TITLES), titles
    steps = [f["payload"]["name"] for f in stored(stage.app, "task.checkpoint", taskId=task_id)]
    assert sorted(steps) == ["apply", "plan", "scan"], steps
    # What the agents did, not only what the hub stored (a step done again re-sends the same checkpoint, which
    # the hub stores once): each step finished once across every process that worked on the task.
    logs = "".join(demo.log() for demo in stage.demos)
    for name in ("scan", "plan", "apply"):
        assert logs.count(f"finished step '{name}' of task {task_id}") == 1, (name, logs)
    values = progress_values(stage.app.events(), task_id)
    assert values == sorted(values), f"progress ran backwards: {values}"
    assert len(stored(stage.app, "artifact.created", taskId=task_id)) == 1
    done = [f for f in stored(stage.app, "message.created", taskId=task_id)
            if "The migration is done" in f["payload"].get("content", "")]
    assert len(done) == 1
    assert len(stored(stage.app, "task.status_changed", taskId=task_id, status="succeeded")) == 1
    for child in children_of(stage.app, task_id):
        ends = stored(stage.app, "task.status_changed", taskId=child["taskId"])
        assert [e["payload"]["status"] for e in ends] == ["succeeded"], ends


async def approve(stage: Stage, interaction: dict[str, Any]) -> None:
    await stage.app.ok("interaction.respond", {"interactionId": interaction["id"],
                                               "response": {"approved": True, "optionId": "approve"}})


async def test_the_connect_command_run_twice_hands_the_agent_to_the_newer_process(stage: Stage) -> None:
    first, agent_id = await stage.launch(step_s=0.05)
    await stage.task(agent_id)
    asked = await stage.approval()
    # The same command again, in a second terminal: same credential file, no new code.
    again = second_copy(first, "again")
    stage.demos.append(again)
    again.start(stage.hub.base)
    assert await first.exited(20) != 0
    assert "took over" in first.log() and agent_id in first.log()
    # The newer process resumes the task: the question is the same one, not a second card.
    await approve(stage, asked)
    await stage.status("t-demo", "succeeded", timeout=20)
    assert_done_once(stage)
    assert "resuming task 'Migrate the production database'" in again.log()
    agents = (await stage.api.get("/api/agents"))["agents"]
    assert [(a["id"], a["status"]) for a in agents] == [(agent_id, "online")]


async def test_a_fresh_code_pairs_the_same_agent_again(stage: Stage) -> None:
    """"Connect my agent" again with the same credential file, while the first process still works on a task and
    waits for the person (issue "When something goes wrong, the person sees it", item 3). Before, the fresh code
    paired a NEW agent: the old one stayed offline beside it ("1/2 agents online") with the task and its question
    stranded on it. Now the agent keeps its id, the task and the question; only its credential changes."""
    first, agent_id = await stage.launch(step_s=0.05)
    await stage.task(agent_id)
    asked = await stage.approval()
    # Its terminal says what it does: which hub as which agent, which task, which answer it waits for.
    said = first.log()
    assert f"connected to {stage.hub.base} as agent {agent_id}" in said, said
    assert "working on task 'Migrate the production database' (t-demo)" in said, said
    assert "waiting for your answer in the app: 'Run the database migration?'" in said, said
    # "Connect my agent" → a new code → the shown command in a second terminal while the first process works.
    again = second_copy(first, "again")
    stage.demos.append(again)
    mark = len(stage.app.frames)
    again.start(stage.hub.base, await stage.api.code("Demo agent"))
    rotated = await stage.app.wait_for(lambda f: f["type"] == "agent.credential_rotated", start=mark, timeout=20)
    assert rotated["payload"]["agentId"] == agent_id
    assert await first.exited(20) != 0  # its credential is refused now (4401): it stops, it does not retry
    await eventually(lambda: json.loads(first.credential_file.read_text())["credential"] != json.loads(
        first.credential_file.with_name("demo-agent.json.bak").read_text())["credential"],
                     what="the new credential saved in place of the old")
    assert json.loads(first.credential_file.read_text())["agent_id"] == agent_id
    await again.said(f"paired again as the same agent {agent_id}", timeout=10)
    # The newer process resumes the task: the same question, answered once, every step once.
    await approve(stage, asked)
    await stage.status("t-demo", "succeeded", timeout=20)
    assert_done_once(stage)
    assert not [f for f in stage.app.frames[mark:] if f["type"] == "agent.paired"]

    async def one_agent_online() -> bool:
        agents = (await stage.api.get("/api/agents"))["agents"]
        return [(a["id"], a["status"]) for a in agents] == [(agent_id, "online")]
    await eventually(one_agent_online, what="one agent, online: no dead twin")


async def test_a_stale_credential_says_where_it_is_and_a_fresh_code_replaces_it(stage: Stage) -> None:
    first, agent_id = await stage.launch(step_s=0.05)
    response = await stage.api.post(f"/api/agents/{agent_id}/revoke")
    assert response.status_code in (200, 204)
    assert await first.exited(15) != 0
    # Started again without a code: refused, naming the file and the exact command that fixes it.
    retry = second_copy(first, "retry")
    stage.demos.append(retry)
    retry.start(stage.hub.base)
    assert await retry.exited(15) != 0
    assert str(first.credential_file) in retry.log()
    # The program as it can be run here (`lineup` is not on the tests' PATH: this one runs as `python -m hub`).
    program = f"{shlex.quote(sys.executable)} -m hub"
    assert f"{program} demo-agent --hub {stage.hub.base} --code" in retry.log(), retry.log()
    assert f"`{program} pair` on the hub's machine" in retry.log()
    # With a fresh code: paired again, online, the revoked credential kept as a backup.
    fresh = second_copy(first, "fresh")
    stage.demos.append(fresh)
    mark = len(stage.app.frames)
    fresh.start(stage.hub.base, await stage.api.code("Demo agent"))
    paired = await stage.app.wait_for(lambda f: f["type"] == "agent.paired", start=mark, timeout=20)
    await stage.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["status"] == "online"
                             and f["payload"]["agentId"] == paired["payload"]["agentId"], start=mark, timeout=20)
    assert json.loads(first.credential_file.with_name("demo-agent.json.bak").read_text())["agent_id"] == agent_id
    # A revoked agent stays revoked: a new agent, and the agent's log says why the old one was not taken over.
    assert paired["payload"]["agentId"] != agent_id
    assert "the stored credential's agent was revoked" in fresh.log()


async def test_killed_while_its_question_waits_the_agent_asks_nothing_twice(stage: Stage) -> None:
    first, agent_id = await stage.launch(step_s=0.05)
    await stage.task(agent_id)
    asked = await stage.approval()
    assert first.proc is not None
    first.proc.kill()  # kill -9 while the approval waits
    await first.exited(10)
    await approve(stage, asked)  # answered while the agent is down
    restarted = second_copy(first, "restarted")
    stage.demos.append(restarted)
    restarted.start(stage.hub.base)
    await stage.status("t-demo", "succeeded", timeout=20)
    assert_done_once(stage)


async def test_killed_during_a_step_the_same_child_finishes(stage: Stage) -> None:
    first, agent_id = await stage.launch(step_s=1.5)
    await stage.task(agent_id)
    await stage.app.event("task.child_created", title="Scan the repository", timeout=15)
    assert first.proc is not None
    first.proc.kill()  # in the middle of the scan step
    await first.exited(10)
    restarted = second_copy(first, "restarted")
    stage.demos.append(restarted)
    restarted.start(stage.hub.base, step_s=0.05)
    await approve(stage, await stage.approval())
    await stage.status("t-demo", "succeeded", timeout=30)
    assert_done_once(stage)


# ---- the hub's side: children end with their parent, checkpoints are bounded ----------------------------------


async def test_children_still_open_end_with_their_parent(stage: Stage) -> None:
    credential = await pair(stage.hub.base, await stage.api.code("parent"), name="parent")
    client = AgentClient(credential, **QUICK_BACKOFF)
    children: dict[str, str] = {}

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        running = await task.child("Still running")
        queued = await task.child("Not started", status="queued")
        done = await task.child("Done")
        await done.succeed()
        children.update(running=running.id, queued=queued.id, done=done.id)
        with pytest.raises(Exception) as refused:
            await task.checkpoint("huge", "x" * 20_000)
        assert getattr(refused.value, "code", None) == "invalid_payload"
        await task.fail("gave_up", "stopping with children open")

    await client.start(timeout_s=10)
    try:
        await stage.task(credential.agent_id)
        await stage.status("t-demo", "failed")
        for key in ("running", "queued"):
            ended = await stage.app.event("task.status_changed", taskId=children[key], status="cancelled")
            assert ended["payload"]["cause"] == "parent_ended"
            assert ended["payload"]["parentStatus"] == "failed"
        tasks = {t["id"]: t for t in (await stage.api.get("/api/tasks"))["tasks"]}
        assert tasks[children["done"]]["status"] == "succeeded"  # finished children keep their status
        assert not [t for t in tasks.values() if t["status"] in ("running", "queued")]
    finally:
        await client.close()


# ---- one live connection per agent instance ---------------------------------------------------------------------


async def test_one_connection_per_instance_siblings_coexist(stage: Stage) -> None:
    credential = await pair(stage.hub.base, await stage.api.code("shared"), name="shared")

    def client(instance: str | None) -> AgentClient:
        return AgentClient(credential, instance=instance, **QUICK_BACKOFF)

    mcp_a, mcp_b, worker = client("mcp-a"), client("mcp-b"), client(None)
    handled: dict[str, list[str]] = {"a": [], "b": [], "worker": []}
    for key, c in (("a", mcp_a), ("b", mcp_b), ("worker", worker)):
        c.on_task(cast(TaskHandler, lambda task, key=key: _record(handled[key], task)))
    for c in (mcp_a, mcp_b, worker):
        await c.start(timeout_s=10)
    # Siblings (two MCP processes of one agent) and the worker all stay connected: each answers a round trip.
    for c in (mcp_a, mcp_b, worker):
        assert isinstance(await c.list_tools(), list)
    # A second worker (no instance) and another copy of mcp-a take over their older twins, which stop.
    worker_2, mcp_a_2 = client(None), client("mcp-a")
    await worker_2.start(timeout_s=10)
    await mcp_a_2.start(timeout_s=10)
    for old in (worker, mcp_a):
        assert old._runner is not None
        with pytest.raises(ReplacedError, match="took over"):
            await asyncio.wait_for(old._runner, 10)
        assert not old.connected
    assert isinstance(await mcp_b.list_tools(), list)  # the sibling was not touched
    # No tug of war: the replaced clients did not reconnect; the newer ones still answer.
    for c in (worker_2, mcp_a_2, mcp_b):
        assert c.connected and c.connections == 1
        assert isinstance(await c.list_tools(), list)
    for c in (worker_2, mcp_a_2, mcp_b, worker, mcp_a):
        await c.close()


async def _record(into: list[str], task: TaskHandle) -> None:
    into.append(task.id)


async def test_one_task_reaches_one_worker_after_a_takeover(stage: Stage, tmp_path: Path) -> None:
    credential = await pair(stage.hub.base, await stage.api.code("worker"), name="worker")
    handled: list[tuple[str, str]] = []

    def worker(name: str) -> AgentClient:
        c = AgentClient(credential, state_path=tmp_path / f"{name}.state.json", **QUICK_BACKOFF)

        @c.on_task
        async def work(task: TaskHandle) -> None:
            handled.append((name, task.id))
            await task.accept()
            await task.succeed("done")

        return c

    old, new = worker("old"), worker("new")
    await old.start(timeout_s=10)
    await new.start(timeout_s=10)
    assert old._runner is not None
    with pytest.raises(ReplacedError):
        await asyncio.wait_for(old._runner, 10)
    await stage.task(credential.agent_id)
    await stage.status("t-demo", "succeeded")
    await eventually(lambda: handled, what="the task handled")
    assert handled == [("new", "t-demo")]
    for c in (old, new):
        await c.close()


async def test_a_message_delivered_again_is_not_answered_twice(stage: Stage) -> None:
    """The demo's reply to a person's message has an id derived from that message: replayed to a restarted
    agent (here: its state file lost, so the hub replays everything), it is not answered a second time."""
    first, agent_id = await stage.launch()
    await stage.app.ok("conversation.create", {"title": "Chat", "agentIds": [agent_id]}, conversationId="c-chat")
    await stage.app.ok("message.create", {"content": "hello there"}, conversationId="c-chat")
    await stage.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                             and f["payload"]["author"]["kind"] == "agent", timeout=15)
    assert first.proc is not None
    first.proc.kill()
    await first.exited(10)
    state = first.credential_file.with_name("demo-agent.state.json")
    assert state.exists()
    state.unlink()  # the cursor is gone: the restarted agent is sent the conversation's history again
    mark = len(stage.app.frames)
    restarted = second_copy(first, "restarted")
    stage.demos.append(restarted)
    restarted.start(stage.hub.base)
    await stage.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["agentId"] == agent_id
                             and f["payload"]["status"] == "online", start=mark, timeout=20)
    # A second message after the restart is answered: once it is, the replayed first one has been handled too.
    await stage.app.ok("message.create", {"content": "still there?"}, conversationId="c-chat")
    await stage.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                             and f["payload"]["author"]["kind"] == "agent"
                             and "still there?" in f["payload"].get("content", ""), start=mark, timeout=15)
    replies = [f["payload"]["content"].strip() for f in stored(stage.app, "message.created", conversationId="c-chat")
               if f["payload"]["author"]["kind"] == "agent"]
    # Plain messages: each reply also says how to make one a task (tests/integration/test_demo_hints.py).
    assert [r.partition("\n")[0] for r in replies] == ["I received: hello there", "I received: still there?"], replies
