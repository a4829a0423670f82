"""`lineup mcp` (docs/mcp.md) as a real process, driven by the official MCP client over stdio, against a real hub.

The MCP side is `mcp`'s own stdio client session: it starts `python -m hub mcp --hub URL --code CODE
--credential-file F` exactly as Claude Code or Codex would. The person is a raw app socket (LapClient) that
answers the questions, and the owner's HTTP API reads what the app would show.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import runpy
import signal
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import mcp_types as types
import psutil
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from hub.pluginhost.loader import hub_plugins_folder
from tests.integration.test_sdk import FAST_ENV, Api, count, eventually
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient

REPO = Path(__file__).resolve().parents[2]
OPERANDS = runpy.run_path(str(hub_plugins_folder() / "calculator.py"))["OPERANDS"]  # the built-in's own limit
OWN_TOOLS = {"ask_approval", "ask_choice", "ask_input", "request_review", "report_progress", "send_message",
             "publish_artifact", "finish_task"}


@dataclass
class Mcp:
    session: ClientSession
    pid: int

    async def call(self, name: str, arguments: dict[str, Any], **options: Any) -> types.CallToolResult:
        return cast(types.CallToolResult, await self.session.call_tool(name, arguments, **options))

    async def ok(self, name: str, arguments: dict[str, Any], **options: Any) -> dict[str, Any]:
        result = await self.call(name, arguments, **options)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content


class Stage:
    """A hub, the owner's API and app socket, and where the MCP bridge keeps its credential."""

    def __init__(self, hub: HubProcess, tmp: Path) -> None:
        self.hub = hub
        self.tmp = tmp
        self.api = Api(hub, hub.token())
        self.app: LapClient
        self.credential = tmp / "mcp" / "claude-code.json"
        self.errlog = tmp / "mcp-stderr.log"
        self.running: set[int] = set()  # the pids of the `lineup mcp` processes open now

    @asynccontextmanager
    async def mcp(self, code: str | None = None) -> AsyncIterator[Mcp]:
        """`lineup mcp` through mcp's stdio client: started, initialized, and closed (stdin EOF) at the end."""
        args = ["-m", "hub", "mcp", "--hub", self.hub.base, "--credential-file", str(self.credential),
                "--name", "Claude Code", "--progress-seconds", "0.2"]
        if code is not None:
            args += ["--code", code]
        params = StdioServerParameters(command=sys.executable, args=args, cwd=str(REPO),
                                       env={"PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"})
        with open(self.errlog, "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):  # noqa: SIM117 - the session needs the streams
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    pid = self._server_pid()
                    self.running.add(pid)
                    try:
                        yield Mcp(session, pid)
                    finally:
                        self.running.discard(pid)

    def _server_pid(self) -> int:
        """The pid of the `lineup mcp` process the stdio client just started (to kill it by its id)."""
        found: list[int] = []
        for child in psutil.Process().children(recursive=True):
            try:
                if str(self.credential) in " ".join(child.cmdline()) and child.pid not in self.running:
                    found.append(child.pid)
            except psutil.Error:
                continue  # a short-lived child that is already gone
        assert len(found) == 1, found
        return found[0]

    def log(self) -> str:
        return self.errlog.read_text() if self.errlog.exists() else ""

    async def question(self, title: str, start: int = 0) -> dict[str, Any]:
        frame = await self.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence")
                                        and f["payload"]["interaction"]["title"] == title, timeout=15, start=start)
        return frame

    async def answer(self, interaction_id: str, response: dict[str, Any]) -> dict[str, Any]:
        return await self.app.ok("interaction.respond", {"interactionId": interaction_id, "response": response})


@pytest.fixture
async def stage(hub_factory: HubFactory, tmp_path: Path) -> AsyncIterator[Stage]:
    s = Stage(hub_factory("hub", env=FAST_ENV), tmp_path)
    s.app = await LapClient.connect(s.hub.ws_base, "app", s.hub.token())
    yield s
    await s.app.close()


def progress_log() -> tuple[list[tuple[float, str | None]], Any]:
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    return seen, on_progress


async def test_lists_its_tools_and_the_hubs_and_runs_calculator_and_canvas(stage: Stage) -> None:
    async with stage.mcp(code=await stage.api.code("Claude Code")) as mcp:
        tools = {t.name: t for t in (await mcp.session.list_tools()).tools}

        # Paired once as an agent named after the client, credential kept owner-only.
        assert stat.S_IMODE(stage.credential.stat().st_mode) == 0o600
        agent_id = json.loads(stage.credential.read_text())["agent_id"]
        agent = {a["id"]: a for a in (await stage.api.get("/api/agents"))["agents"]}[agent_id]
        assert (agent["name"], agent["runtime"], agent["status"]) == ("Claude Code", "mcp", "online")

        # Its own tools, and the hub's app-side tools one per action under their own names, with their schemas;
        # the hub's person-facing tools are covered by ask_* and not offered twice.
        assert set(tools) >= OWN_TOOLS
        assert {f"calculator_{a}" for a in ("add", "subtract", "multiply", "divide")} <= set(tools)
        assert {f"canvas_{a}" for a in ("open", "draw", "undo", "clear", "export", "close")} <= set(tools)
        assert not {"choice", "confirm", "input", "review"} & set(tools)
        assert tools["calculator_add"].input_schema == OPERANDS
        assert tools["canvas_draw"].input_schema["required"] == ["instance_id", "path"]
        for name in ("ask_approval", "ask_choice", "ask_input", "request_review"):
            assert tools[name].output_schema is not None
            assert "outcome" in cast(dict[str, Any], tools[name].output_schema)["required"]

        def hints(name: str) -> tuple[bool | None, ...]:
            a = tools[name].annotations
            assert a is not None
            return a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint

        assert hints("ask_approval") == (False, False, True, True)   # a re-issued question is the same one
        assert hints("send_message") == (False, False, False, True)
        assert hints("calculator_divide") == (True, False, True, False)
        assert hints("canvas_export")[0] is True
        assert hints("canvas_clear")[:2] == (False, True)
        assert hints("canvas_draw")[:3] == (False, False, False)

        # The calculator answers through the hub; its errors come back as error results.
        assert (await mcp.ok("calculator_divide", {"a": 7, "b": 2}))["value"] == 3.5
        failed = await mcp.call("calculator_divide", {"a": 1, "b": 0})
        assert failed.is_error and "division_by_zero" in cast(types.TextContent, failed.content[0]).text
        invalid = await mcp.call("calculator_add", {"a": "x", "b": 1})
        assert invalid.is_error and "invalid_arguments" in cast(types.TextContent, invalid.content[0]).text

        # The canvas keeps its instance in the hub: open, draw, export, close.
        opened = await mcp.ok("canvas_open", {"width": 200, "height": 100, "title": "Sketch"})
        instance_id = opened["message"].split("instance_id: ", 1)[1]
        await mcp.ok("canvas_draw", {"instance_id": instance_id, "path": "M10 10 L190 90", "color": "red"})
        exported = await mcp.ok("canvas_export", {"instance_id": instance_id})
        assert 'd="M10 10 L190 90"' in exported["svg"] and 'stroke="red"' in exported["svg"]
        await mcp.ok("canvas_close", {"instance_id": instance_id})
        closed = await mcp.call("canvas_draw", {"instance_id": instance_id, "path": "M0 0 L1 1"})
        assert closed.is_error and "instance_closed" in cast(types.TextContent, closed.content[0]).text
    events = await stage.api.events()
    assert count(events, "tool.call", name="canvas") == 5
    assert not [e for e in events if e["type"] == "task.created"]  # tool calls alone start no task


async def test_questions_return_the_persons_typed_answer(stage: Stage) -> None:
    async with stage.mcp(code=await stage.api.code()) as mcp:
        # An approval, answered from the app; the caller hears progress while it waits.
        seen, on_progress = progress_log()
        call: asyncio.Task[Any] = asyncio.create_task(mcp.call("ask_approval", {"title": "Deploy to production?", "risk": "high",
                                                             "impact": "Version 2.3 goes live"},
                                            progress_callback=on_progress))
        asked = await stage.question("Deploy to production?")
        interaction = asked["payload"]["interaction"]
        assert (interaction["type"], interaction["risk"], interaction["impact"]) == ("approval", "high",
                                                                                      "Version 2.3 goes live")
        task_id, conversation_id = asked["taskId"], asked["conversationId"]
        detail = await stage.api.get(f"/api/tasks/{task_id}")
        assert detail["task"]["status"] == "waiting_for_human"
        conversations = {c["id"]: c for c in (await stage.api.get("/api/conversations"))["conversations"]}
        assert conversations[conversation_id]["title"].endswith(f" in {REPO.name}")
        await eventually(lambda: len(seen) >= 2, what="two progress notifications while the person has not answered")
        assert not call.done()
        await stage.answer(interaction["id"], {"optionId": "approve", "comment": "go"})
        result = await call
        assert not result.is_error
        assert result.structured_content == {
            "outcome": "answered", "interactionId": interaction["id"], "taskId": task_id, "comment": "go",
            "respondedBy": result.structured_content["respondedBy"], "repeated": False, "approved": True}
        assert result.structured_content["respondedBy"]["kind"] == "user"
        assert [p for p, _ in seen] == sorted({p for p, _ in seen})  # strictly increasing, as MCP requires
        assert "Deploy to production?" in (seen[0][1] or "")

        # Rejected: declined, not approved.
        mark = len(stage.app.frames)
        call = asyncio.create_task(mcp.ok("ask_approval", {"title": "Drop the old table?"}))
        asked = await stage.question("Drop the old table?", mark)
        await stage.answer(asked["payload"]["interaction"]["id"], {"optionId": "reject"})
        assert ((await call)["outcome"], (await call)["approved"]) == ("declined", False)

        # The same question again in the same task is the same question: its answer, not a second card.
        again = await mcp.ok("ask_approval", {"title": "Deploy to production?", "risk": "high",
                                              "impact": "Version 2.3 goes live"})
        assert (again["outcome"], again["repeated"], again["interactionId"]) == ("answered", True, interaction["id"])

        # Expired: nobody answered in time.
        expired = await mcp.ok("ask_approval", {"title": "Quick one?", "expires_in_s": 1})
        assert (expired["outcome"], expired["approved"]) == ("expired", False)

        # Cancelled: the person cancels the task while a question waits.
        mark = len(stage.app.frames)
        call = asyncio.create_task(mcp.ok("ask_approval", {"title": "Rotate the keys?"}))
        asked = await stage.question("Rotate the keys?", mark)
        await stage.app.ok("task.cancel_requested", {"reason": "not today"}, taskId=task_id)
        assert (await call)["outcome"] == "cancelled"
        assert (await stage.api.get(f"/api/tasks/{task_id}"))["task"]["status"] == "cancelled"

        # The next question starts a new task in the same conversation.
        mark = len(stage.app.frames)
        call = asyncio.create_task(mcp.ok("ask_approval", {"title": "Rotate the keys?"}))
        asked = await stage.question("Rotate the keys?", mark)
        assert asked["taskId"] != task_id and asked["conversationId"] == conversation_id
        await stage.answer(asked["payload"]["interaction"]["id"], {"declined": True})
        assert ((await call)["outcome"], (await call)["repeated"]) == ("declined", False)
    events = await stage.api.events()
    assert count(events, "interaction.requested", taskId=task_id) == 4
    assert count(events, "task.created") == 2 and count(events, "conversation.created") == 1


async def test_choice_input_with_validation_and_review(stage: Stage) -> None:
    async with stage.mcp(code=await stage.api.code()) as mcp:
        # A multiple choice: the labels come back, in the order of the options.
        call = asyncio.create_task(mcp.ok("ask_choice", {
            "title": "Which regions?", "multiple": True,
            "options": ["eu-west", {"label": "us-east", "recommended": True}, "ap-south"]}))
        asked = (await stage.question("Which regions?"))["payload"]["interaction"]
        assert [o["label"] for o in asked["options"]] == ["eu-west", "us-east", "ap-south"]
        assert asked["multiple"] is True and asked["options"][1]["recommended"] is True
        await stage.answer(asked["id"], {"optionIds": ["o1", "o3"]})
        chosen = await call
        assert (chosen["selected"], chosen["selectedIds"]) == (["eu-west", "ap-south"], ["o1", "o3"])

        # A single choice needs two options at least: refused before anything is asked.
        refused = await mcp.call("ask_choice", {"title": "Pick", "options": ["only one"]})
        assert refused.is_error and "options" in cast(types.TextContent, refused.content[0]).text

        # An input with a format: the app's wrong answer is refused, the caller gets the valid one. The MCP
        # client gives up after 1 s here; the re-issued call picks up the same question.
        mark = len(stage.app.frames)
        arguments = {"title": "How many replicas?", "format": "integer", "pattern": "[1-9]"}
        with pytest.raises(MCPError):
            await mcp.call("ask_input", arguments, read_timeout_seconds=1.0)
        asked = (await stage.question("How many replicas?", mark))["payload"]["interaction"]
        assert (asked["format"], asked["pattern"]) == ("integer", "[1-9]")
        wrong = await stage.app.request("interaction.respond", {"interactionId": asked["id"],
                                                                "response": {"text": "twelve"}})
        assert wrong["type"] == "system.error" and wrong["payload"]["code"] == "invalid_payload"
        call = asyncio.create_task(mcp.ok("ask_input", arguments))
        await asyncio.sleep(0.3)
        await stage.answer(asked["id"], {"text": "3"})
        answered = await call
        assert (answered["outcome"], answered["text"], answered["interactionId"]) == ("answered", "3", asked["id"])

        # A review: changes requested, with the person's comment.
        call = asyncio.create_task(mcp.ok("request_review", {"title": "Review the migration plan",
                                                             "content": "1. add column\n2. backfill"}))
        asked = (await stage.question("Review the migration plan"))["payload"]["interaction"]
        assert asked["content"] == "1. add column\n2. backfill"
        await stage.answer(asked["id"], {"decision": "request_changes", "comment": "backfill in batches"})
        reviewed = await call
        assert (reviewed["decision"], reviewed["approved"], reviewed["comment"]) == \
            ("request_changes", False, "backfill in batches")
    events = await stage.api.events()
    assert count(events, "interaction.requested") == 3  # the timed-out input was asked once


async def test_progress_steps_messages_and_artifacts_appear_on_the_task(stage: Stage) -> None:
    async with stage.mcp(code=await stage.api.code()) as mcp:
        hello = await mcp.ok("send_message", {"text": "Starting."})  # the conversation exists before any task
        assert hello["taskId"] is None
        first = await mcp.ok("report_progress", {"title": "Upgrade the database", "percent": 10,
                                                 "summary": "Reading the schema",
                                                 "steps": [{"title": "Scan", "status": "running"},
                                                           {"title": "Migrate", "status": "queued"}]})
        task_id, conversation_id = first["taskId"], first["conversationId"]
        assert conversation_id == hello["conversationId"]
        second = await mcp.ok("report_progress", {"percent": 60, "summary": "Migrating",
                                                  "steps": [{"title": "Scan", "status": "succeeded"},
                                                            {"title": "Migrate", "status": "running"}]})
        assert second["taskId"] == task_id

        sent = await mcp.ok("send_message", {"text": "Three migrations to apply."})
        await stage.app.ok("message.create", {"content": "Take a backup first"}, conversationId=conversation_id)
        await stage.app.event("message.created", conversationId=conversation_id, content="Take a backup first")
        third = await mcp.ok("report_progress", {"percent": 80, "summary": "Backing up"})
        assert [m["text"] for m in third["messages"]] == ["Take a backup first"]

        report = "# Report\n\n3 migrations applied."
        published = await mcp.ok("publish_artifact", {"name": "report.md", "content": report,
                                                      "mime_type": "text/markdown", "summary": "all applied"})
        await mcp.ok("publish_artifact", {"name": "dashboard", "url": "https://example.invalid/d/1"})
        too_big = await mcp.call("publish_artifact", {"name": "big.txt", "content": "x" * 5000})
        assert too_big.is_error and "url" in cast(types.TextContent, too_big.content[0]).text

        finished = await mcp.ok("finish_task", {"summary": "Upgraded"})
        assert (finished["taskId"], finished["status"]) == (task_id, "succeeded")
        assert (await mcp.ok("finish_task", {}))["status"] == "succeeded"  # nothing more to finish

        detail = await stage.api.get(f"/api/tasks/{task_id}")
        assert (detail["task"]["title"], detail["task"]["status"], detail["task"]["progress"]) == \
            ("Upgrade the database", "succeeded", 100)
        assert detail["task"]["conversationId"] == conversation_id
        assert {c["title"]: c["status"] for c in detail["children"]} == {"Scan": "succeeded", "Migrate": "succeeded"}
        artifacts = {a["name"]: a for a in detail["artifacts"]}
        assert artifacts["report.md"]["id"] == published["artifactId"]
        assert artifacts["report.md"]["mimeType"] == "text/markdown"
        assert base64.b64decode(artifacts["report.md"]["url"].split(",", 1)[1]).decode() == report
        assert artifacts["dashboard"]["url"] == "https://example.invalid/d/1"
        statuses = [e["payload"] for e in await stage.api.events()
                    if e["type"] == "task.status_changed" and e.get("taskId") == task_id]
        assert [s.get("progress") for s in statuses if s.get("progress") is not None] == [10, 60, 80, 100]
        assert "Migrating" in [s.get("summary") for s in statuses]
        messages = (await stage.api.get(f"/api/conversations/{conversation_id}/messages"))["messages"]
        mine = [m for m in messages if m["id"] == sent["messageId"]]
        assert mine and mine[0]["content"] == "Three migrations to apply."

        # After finishing, the next report starts a new task in the same conversation.
        fresh = await mcp.ok("report_progress", {"title": "Tidy up", "percent": 5})
        assert fresh["taskId"] != task_id and fresh["conversationId"] == conversation_id
        # The person cancels it: the bridge confirms, and the next call is told to stop.
        await stage.app.ok("task.cancel_requested", {"reason": "enough"}, taskId=fresh["taskId"])
        await stage.app.event("task.status_changed", taskId=fresh["taskId"], status="cancelled")
        told = await mcp.call("report_progress", {"percent": 50})
        assert told.is_error and "cancelled" in cast(types.TextContent, told.content[0]).text
        assert "enough" in cast(types.TextContent, told.content[0]).text
    cancelled = await stage.app.event("task.status_changed", taskId=fresh["taskId"], status="cancelled")
    assert cancelled["payload"].get("cause") != "cancel_timeout"  # the bridge confirmed it, the hub did not wait


async def test_a_pending_approval_survives_killing_and_restarting_the_mcp_server(stage: Stage) -> None:
    """Kill -9 while two approvals wait; one is answered while the bridge is down, one after it is back. The
    re-issued calls get the answers, and nothing is asked twice."""
    early = {"title": "Apply migration 0007?", "risk": "high"}
    late = {"title": "Apply migration 0008?", "risk": "high"}
    async with stage.mcp(code=await stage.api.code()) as mcp:
        agent_id = json.loads(stage.credential.read_text())["agent_id"]
        first = asyncio.create_task(mcp.call("ask_approval", early))
        second = asyncio.create_task(mcp.call("ask_approval", late))
        early_asked = await stage.question(early["title"])
        late_asked = await stage.question(late["title"])
        os.kill(mcp.pid, signal.SIGKILL)
        call: asyncio.Task[Any]
        for call in (first, second):
            with pytest.raises(MCPError, match="Connection closed"):  # the server is gone mid-call
                await asyncio.wait_for(call, 10)
    await stage.app.event("agent.status_changed", agentId=agent_id, status="offline")
    await stage.answer(early_asked["payload"]["interaction"]["id"], {"optionId": "approve"})
    # The worst moment to die: the SDK had saved its cursor past that answer, but the bridge had not yet noted
    # it (the SDK saves the cursor before handlers run). The bridge must still hear the answer after a restart.
    [cursor] = list(stage.credential.parent.glob("*-sessions/*.cursor.json"))
    head = (await stage.api.get("/api/state"))["headSequence"]
    cursor.write_text(json.dumps({**json.loads(cursor.read_text()), "lastSequence": head}))

    mark = len(stage.app.frames)
    async with stage.mcp() as mcp:  # no code: the stored credential, the same agent
        await stage.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f.get("sequence")
                                 and f["payload"]["agentId"] == agent_id and f["payload"]["status"] == "online",
                                 start=mark, timeout=15)
        answered_meanwhile = await mcp.ok("ask_approval", early)
        assert (answered_meanwhile["outcome"], answered_meanwhile["approved"]) == ("answered", True)
        assert answered_meanwhile["interactionId"] == early_asked["payload"]["interaction"]["id"]

        seen, on_progress = progress_log()
        call = asyncio.create_task(mcp.ok("ask_approval", late, progress_callback=on_progress))
        await eventually(lambda: seen, what="progress while the re-issued question waits")
        assert not call.done()  # still waiting for the person, and saying so
        await stage.answer(late_asked["payload"]["interaction"]["id"], {"optionId": "approve"})
        answered_later = await call
        assert (answered_later["outcome"], answered_later["repeated"]) == ("answered", False)
        assert answered_later["interactionId"] == late_asked["payload"]["interaction"]["id"]
        assert answered_later["taskId"] == early_asked["taskId"]  # the same task, continued
    agents = (await stage.api.get("/api/agents"))["agents"]
    assert [a["id"] for a in agents] == [agent_id]
    events = await stage.api.events()
    assert count(events, "interaction.requested") == 2
    assert count(events, "task.created") == 1
    assert "Traceback" not in stage.log(), stage.log()


async def test_two_windows_in_one_folder_work_side_by_side_and_a_restart_gets_its_own_session(stage: Stage) -> None:
    """Two `lineup mcp` processes from one MCP client entry (two Claude Code windows in one folder): one agent,
    one credential, two sibling connections. Neither replaces the other, each has a session (task) of its own,
    and a window restarted while the other still runs picks up its own session, not the other's."""
    first_q = {"title": "Deploy window one?", "risk": "high"}
    second_q = {"title": "Deploy window two?", "risk": "high"}

    async def window(code: str | None, question: dict[str, Any], close: asyncio.Event) -> dict[str, Any]:
        async with stage.mcp(code=code) as mcp:
            result = await mcp.ok("ask_approval", question)
            await close.wait()  # the window stays open until the test closes it
            return result

    close_one, close_two = asyncio.Event(), asyncio.Event()
    one = asyncio.create_task(window(await stage.api.code(), first_q, close_one))
    first_asked = await stage.question(first_q["title"])
    agent_id = json.loads(stage.credential.read_text())["agent_id"]
    two = asyncio.create_task(window(None, second_q, close_two))  # the same credential, the same folder
    second_asked = await stage.question(second_q["title"])
    assert first_asked["taskId"] != second_asked["taskId"]  # a session (task) each, not one shared
    await stage.answer(first_asked["payload"]["interaction"]["id"], {"optionId": "approve"})
    close_one.set()
    assert (await one)["approved"] is True  # window one is closed now (stdin EOF, its process exits)
    assert not two.done()
    sessions = [p.name for p in stage.credential.parent.glob("*-sessions/*.json") if ".cursor." not in p.name]
    assert len(sessions) == 2, sessions

    # Window one is started again while window two still waits: its own session again, the same task.
    mark = len(stage.app.frames)
    async with stage.mcp() as again:
        repeated = await again.ok("ask_approval", first_q)
        assert (repeated["outcome"], repeated["repeated"]) == ("answered", True)
        assert repeated["taskId"] == first_asked["taskId"]
    assert not [f for f in stage.app.frames[mark:] if f["type"] == "interaction.requested"]
    await stage.answer(second_asked["payload"]["interaction"]["id"], {"optionId": "reject"})
    close_two.set()
    assert (await two)["outcome"] == "declined"
    agents = (await stage.api.get("/api/agents"))["agents"]
    assert [a["id"] for a in agents] == [agent_id]
    events = await stage.api.events()
    assert count(events, "interaction.requested") == 2
    log = stage.log()
    assert "Traceback" not in log and "replaced" not in log.lower() and ".tmp" not in log, log
