"""The demo agent (`lineup demo-agent`) as a real process against a real hub, driven only from an app socket.

docs/design.md#the-mvp-demo: a task is accepted, reports progress and child tasks, asks a high-risk approval, continues
on the answer, posts a result message and an artifact, and succeeds. It also obeys cancel, survives a network drop
while it waits for the person, and stops with a clear error when its credential is revoked.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hub.sdk.demo import REPORT
from tests.integration.test_sdk import FAST_ENV, Api, Relay, count
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.polling import eventually


class DemoProcess:
    """`python -m hub demo-agent ...` in its own process, its output kept in a log file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.credential_file = folder / "demo" / "demo-agent.json"
        self.proc: subprocess.Popen[str] | None = None
        self.log_path = folder / "demo-agent.log"

    def start(self, hub_url: str, code: str | None = None, step_s: float = 0.05) -> DemoProcess:
        args = [sys.executable, "-m", "hub", "demo-agent", "--hub", hub_url, "--credential-file",
                str(self.credential_file), "--step-seconds", str(step_s)]
        if code is not None:
            args += ["--code", code]
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, text=True,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1"})
        return self

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    async def said(self, line: str, timeout: float = 10.0) -> None:
        """Wait for a line in the agent's log (it logs each end of a task handler once it is over)."""
        deadline = time.monotonic() + timeout
        while line not in self.log():
            if time.monotonic() > deadline:
                raise AssertionError(f"the demo agent did not log {line!r}:\n{self.log()}")
            await asyncio.sleep(0.05)

    async def exited(self, timeout: float) -> int:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the demo agent is still running after {timeout} s:\n{self.log()}")
            await asyncio.sleep(0.05)
        return self.proc.returncode

    async def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)  # Ctrl+C: the command ends quietly
        try:
            await self.exited(10)
        except AssertionError:
            self.proc.kill()
            self.proc.wait()


class Stage:
    """A hub, its owner's API, an app socket, and demo agent processes stopped at the end."""

    def __init__(self, hub: HubProcess, tmp: Path) -> None:
        self.hub = hub
        self.tmp = tmp
        self.token = hub.token()
        self.api = Api(hub, self.token)
        self.app: LapClient
        self.demos: list[DemoProcess] = []

    async def launch(self, hub_url: str | None = None, step_s: float = 0.05) -> tuple[DemoProcess, str]:
        """Start a demo agent with a fresh pairing code; returns it and its agent id once it is online."""
        demo = DemoProcess(self.tmp / f"demo{len(self.demos)}")
        self.demos.append(demo)
        mark = len(self.app.frames)
        demo.start(hub_url or self.hub.base, await self.api.code("Demo agent"), step_s)
        paired = await self.app.wait_for(lambda f: f["type"] == "agent.paired", start=mark, timeout=20)
        agent_id = paired["payload"]["agentId"]
        await self.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["agentId"] == agent_id
                                and f["payload"]["status"] == "online", start=mark, timeout=20)
        return demo, agent_id

    async def task(self, agent_id: str, conversation_id: str = "c-demo", task_id: str = "t-demo") -> None:
        await self.app.ok("conversation.create", {"title": "Database", "agentIds": [agent_id]},
                          conversationId=conversation_id)
        await self.app.ok("task.create", {"title": "Migrate the production database",
                                          "description": "Apply the three reviewed migrations"},
                          conversationId=conversation_id, taskId=task_id)

    async def approval(self, task_id: str = "t-demo") -> dict[str, Any]:
        requested = await self.app.event("interaction.requested", taskId=task_id, timeout=15)
        return dict(requested["payload"]["interaction"])

    async def status(self, task_id: str, status: str, timeout: float = 15.0) -> dict[str, Any]:
        return await self.app.event("task.status_changed", taskId=task_id, status=status, timeout=timeout)


@pytest.fixture
async def stage(hub_factory: HubFactory, tmp_path: Path) -> AsyncIterator[Stage]:
    s = Stage(hub_factory("hub", env=FAST_ENV), tmp_path)
    s.app = await LapClient.connect(s.hub.ws_base, "app", s.token)
    yield s
    for demo in s.demos:
        await demo.stop()
    await s.app.close()


def stored(app: LapClient, type_: str, **match: Any) -> list[dict[str, Any]]:
    return [f for f in app.events() if f["type"] == type_
            and all(f.get(k, f["payload"].get(k)) == v for k, v in match.items())]


def children_of(app: LapClient, task_id: str) -> list[dict[str, Any]]:
    return [f for f in stored(app, "task.child_created") if f["payload"]["parentTaskId"] == task_id]


async def test_seed_002_section_15_end_to_end(stage: Stage) -> None:
    demo, agent_id = await stage.launch()
    assert stat.S_IMODE(demo.credential_file.stat().st_mode) == 0o600
    assert json.loads(demo.credential_file.read_text())["agent_id"] == agent_id
    agents = {a["id"]: a for a in (await stage.api.get("/api/agents"))["agents"]}
    assert (agents[agent_id]["name"], agents[agent_id]["runtime"], agents[agent_id]["status"]) == \
        ("Demo agent", "demo", "online")
    assert set(agents[agent_id]["capabilities"]) >= {"tasks", "approval"}

    await stage.task(agent_id)
    # Accepted, at least two progress steps and a child task before it asks.
    await stage.status("t-demo", "running")
    interaction = await stage.approval()
    assert (interaction["type"], interaction["risk"]) == ("approval", "high")
    assert interaction["title"] and interaction["impact"]
    assert interaction["details"] == {"migrationCount": 3, "environment": "production"}
    waiting = await stage.status("t-demo", "waiting_for_human")
    before = [f for f in stored(stage.app, "task.status_changed", taskId="t-demo")
              if f["sequence"] < waiting["sequence"] and f["payload"].get("progress") is not None]
    assert len({f["payload"]["progress"] for f in before}) >= 2, before
    assert [f["payload"]["progress"] for f in before] == sorted(f["payload"]["progress"] for f in before)
    early_children = children_of(stage.app, "t-demo")
    assert len(early_children) >= 1
    assert all(f["sequence"] < waiting["sequence"] for f in early_children)
    assert (await stage.api.get("/api/tasks/t-demo"))["task"]["status"] == "waiting_for_human"

    # Nothing moves while the person has not answered: shown below by the stored order, where the last child
    # task, the result message and the artifact all come after the answer's sequence.

    await stage.app.ok("interaction.respond", {"interactionId": interaction["id"], "response": {"optionId": "approve"}})
    done = await stage.status("t-demo", "succeeded")
    assert done["payload"]["progress"] == 100
    resolved = stored(stage.app, "interaction.resolved", interactionId=interaction["id"])
    assert [r["payload"]["outcome"] for r in resolved] == ["answered"]

    # After the answer: more work as a child task, a result message and an artifact, then success.
    later_children = [f for f in children_of(stage.app, "t-demo") if f["sequence"] > resolved[0]["sequence"]]
    assert len(later_children) == 1
    messages = [f for f in stored(stage.app, "message.created", conversationId="c-demo")
                if f["payload"]["author"]["kind"] == "agent"]
    assert len(messages) == 1 and "migration is done" in messages[0]["payload"]["content"]
    artifacts = stored(stage.app, "artifact.created", taskId="t-demo")
    assert len(artifacts) == 1
    artifact = artifacts[0]["payload"]
    assert (artifact["name"], artifact["mimeType"]) == ("migration-report.md", "text/markdown")
    assert base64.b64decode(artifact["url"].split(",", 1)[1]).decode() == REPORT
    assert resolved[0]["sequence"] < later_children[0]["sequence"] < messages[0]["sequence"] \
        < artifacts[0]["sequence"] < done["sequence"]

    # What the app reads over HTTP says the same, and every child task finished.
    detail = await stage.api.get("/api/tasks/t-demo")
    assert (detail["task"]["status"], detail["task"]["progress"]) == ("succeeded", 100)
    assert len(detail["children"]) == 3 and {c["status"] for c in detail["children"]} == {"succeeded"}
    assert [a["name"] for a in detail["artifacts"]] == ["migration-report.md"]
    assert [i["status"] for i in detail["interactions"]] == ["answered"]
    assert (await stage.api.get("/api/inbox"))["waitingForMe"] == []
    assert count(await stage.api.events(), "task.accepted", taskId="t-demo") == 1


async def test_a_declined_approval_is_respected(stage: Stage) -> None:
    _, agent_id = await stage.launch()
    await stage.task(agent_id)
    interaction = await stage.approval()
    await stage.app.ok("interaction.respond", {"interactionId": interaction["id"], "response": {"optionId": "reject"}})
    done = await stage.status("t-demo", "succeeded")
    assert done["payload"]["summary"] == "Migration skipped at your request"
    replies = [f["payload"]["content"] for f in stored(stage.app, "message.created", conversationId="c-demo")]
    assert replies == ["Understood: I did not run the migration (declined)."]
    assert not stored(stage.app, "artifact.created")
    assert len(children_of(stage.app, "t-demo")) == 2  # nothing applied after the refusal


async def test_it_replies_to_a_message_with_streamed_text(stage: Stage) -> None:
    _, agent_id = await stage.launch()
    await stage.app.ok("conversation.create", {"title": "Chat", "agentIds": [agent_id]}, conversationId="c-chat")
    await stage.app.ok("message.create", {"content": "hello there"}, conversationId="c-chat")
    reply = await stage.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                     and f["payload"]["author"]["kind"] == "agent")
    assert reply["payload"]["content"].startswith("I received: hello there\n\nThis is a plain message, not a task")
    deltas = [f for f in stage.app.frames if f["type"] == "message.delta"
              and f["payload"]["messageId"] == reply["payload"]["messageId"]]
    assert len(deltas) >= 3
    assert all(f.get("sequence") is None for f in deltas)
    assert "".join(f["payload"]["text"] for f in deltas) == reply["payload"]["content"]
    assert stage.app.frames.index(deltas[0]) < stage.app.frames.index(reply)


async def test_it_obeys_cancel_while_working(stage: Stage) -> None:
    demo, agent_id = await stage.launch(step_s=30)  # each step would take 30 s: only obeying cancel ends it soon
    await stage.task(agent_id)
    await stage.app.event("task.child_created", timeout=15)
    began = time.monotonic()
    await stage.app.ok("task.cancel_requested", {"reason": "wrong database"}, taskId="t-demo")
    cancelled = await stage.status("t-demo", "cancelled", timeout=10)
    assert time.monotonic() - began < 3  # the agent confirmed; the hub's cancel timeout is 5 s here
    assert cancelled["payload"]["summary"] == "Stopped on your request"
    assert cancelled["payload"].get("cause") != "cancel_timeout"
    # Its handler is over (it logs that after its last send was acked): what the hub has now is all it will get.
    await demo.said("task 'Migrate the production database' cancelled on your request")
    detail = await stage.api.get("/api/tasks/t-demo")
    assert detail["interactions"] == []
    assert detail["task"]["status"] == "cancelled"


async def test_it_stops_when_the_task_is_cancelled_during_the_approval(stage: Stage) -> None:
    demo, agent_id = await stage.launch()
    await stage.task(agent_id)
    interaction = await stage.approval()
    await stage.app.ok("task.cancel_requested", {}, taskId="t-demo")
    await stage.status("t-demo", "cancelled")
    # The agent hears the cancelled outcome and its handler ends (it logs that last) without carrying on with the
    # plan: what the hub has stored by then is all it will get.
    await demo.said("task 'Migrate the production database' cancelled on your request")
    detail = await stage.api.get("/api/tasks/t-demo")
    assert [i["status"] for i in detail["interactions"]] == ["cancelled"]
    assert len(detail["children"]) == 2
    assert detail["artifacts"] == []
    assert detail["task"]["status"] == "cancelled"
    answer = await stage.app.request("interaction.respond", {"interactionId": interaction["id"],
                                                             "response": {"optionId": "approve"}})
    assert answer["type"] == "system.error"


async def test_it_survives_a_network_drop_while_waiting_for_the_person(stage: Stage) -> None:
    """docs/design.md#the-mvp-demo step 6: the agent drops, the app sees it, the answer given meanwhile is not lost, and
    nothing is done twice after the agent is back."""
    relay = await Relay(stage.hub.port).start()
    try:
        _, agent_id = await stage.launch(hub_url=relay.url)
        await stage.task(agent_id)
        interaction = await stage.approval()
        await stage.status("t-demo", "waiting_for_human")

        relay.refuse = True
        tried = relay.connections
        relay.cut()
        await stage.app.event("agent.status_changed", agentId=agent_id, status="offline")
        await stage.app.ok("interaction.respond", {"interactionId": interaction["id"],
                                                   "response": {"optionId": "approve"}})
        # The agent tries to come back while the network is still down, and is refused.
        await eventually(lambda: relay.connections > tried, timeout=30, what="a refused reconnect attempt")
        relay.refuse = False
        await stage.status("t-demo", "succeeded", timeout=20)
        assert relay.connections >= 2
    finally:
        await relay.close()
    events = await stage.api.events()
    assert count(events, "task.accepted", taskId="t-demo") == 1
    assert count(events, "interaction.requested", taskId="t-demo") == 1
    assert count(events, "artifact.created", taskId="t-demo") == 1
    assert len([e for e in events if e["type"] == "task.child_created"]) == 3
    assert count(events, "task.status_changed", taskId="t-demo", status="succeeded") == 1


async def test_restart_reuses_the_credential_and_revocation_stops_it(stage: Stage) -> None:
    demo, agent_id = await stage.launch()
    await demo.stop()
    assert demo.proc is not None and demo.proc.returncode == 0
    await stage.app.event("agent.status_changed", agentId=agent_id, status="offline")

    # The second run has no code: it loads the stored credential and is the same agent.
    mark = len(stage.app.frames)
    demo.start(stage.hub.base)
    await stage.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["agentId"] == agent_id
                             and f["payload"]["status"] == "online", start=mark, timeout=20)
    assert [a["id"] for a in (await stage.api.get("/api/agents"))["agents"]] == [agent_id]
    await stage.task(agent_id)
    interaction = await stage.approval()
    assert interaction["risk"] == "high"

    # Revoked: the process ends with a clear error instead of reconnecting for ever.
    response = await stage.api.post(f"/api/agents/{agent_id}/revoke")
    assert response.status_code in (200, 204)
    code = await demo.exited(10)
    assert code != 0
    assert "unauthorized" in demo.log() and "Pair" in demo.log()
    # The SDK logs every failed connection at INFO ("connection to ... failed"): there was none.
    assert "connection to http" not in demo.log()

    # Started again with the revoked credential: it stops at once and says why.
    began = time.monotonic()
    demo.start(stage.hub.base)
    assert await demo.exited(10) != 0
    assert time.monotonic() - began < 8
    assert demo.log().count("unauthorized") >= 2
