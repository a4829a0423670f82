"""The MVP demo (docs/design.md#the-mvp-demo), done by the REAL Claude Code CLI in a terminal (`claude -p`),
connected with `lineup connect claude-code`, against a scripted fake Anthropic API
(tests/support/fake_models/anthropic.py).

What the person does is what tests/integration/test_mvp_demo.py does with raw sockets; the agent is Claude Code:
its own task list (TaskCreate/TaskUpdate) becomes the task's steps and progress, its permission requests become
approval cards answered from the inbox, a file it writes is an artifact, its last words the result message.
Step 6 cuts the link between Claude Code's hooks and the hub while a question waits (a relay in between, like a
dropped Wi-Fi), the person answers meanwhile, and the link comes back: the answer reaches Claude, nothing runs
twice.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_claude_code import CLAUDE, Stage, _need, finished
from tests.integration.test_mvp_demo import is_subsequence
from tests.integration.test_sdk import FAST_ENV
from tests.support.cutproxy import CutProxy
from tests.support.fake_models.anthropic import FakeAnthropic, text, tool
from tests.support.fixtures import HubFactory
from tests.support.lap import LapClient
from tests.support.live import Api as PlainApi

pytestmark = [pytest.mark.real_agent, pytest.mark.timeout(300)]

PROMPT = "Release 1.0: tag it and write the release notes"
TAG = "echo v1.0 > TAG"
NOTES = "# Release 1.0\n\n- First release.\n"
REPLY = "Released 1.0: tagged v1.0, notes in NOTES.md."


def script(project: Path) -> list[Any]:
    """What the fake model makes Claude do, one step per model call."""
    return [tool("TaskCreate", {"subject": "Tag the release", "description": "Write the tag file",
                                "activeForm": "Tagging the release"}),
            tool("TaskCreate", {"subject": "Write the release notes", "description": "NOTES.md"}),
            tool("TaskUpdate", {"taskId": "1", "status": "in_progress"}),
            tool("Bash", {"command": TAG, "description": "Tag v1.0"}),
            tool("TaskUpdate", {"taskId": "1", "status": "completed"}),
            tool("TaskUpdate", {"taskId": "2", "status": "in_progress"}),
            tool("Write", {"file_path": str(project / "NOTES.md"), "content": NOTES}),
            tool("TaskUpdate", {"taskId": "2", "status": "completed"}),
            text(REPLY)]


async def test_the_mvp_demo_done_by_real_claude_code(hub_factory: HubFactory, tmp_path: Path) -> None:
    _need(CLAUDE.exists(), f"the Claude Code CLI is not installed at {CLAUDE} (npm i @anthropic-ai/claude-code)")
    hub = hub_factory("demo", env=FAST_ENV)

    # ---- 1. first-run setup creates the workspace and its owner -------------------------------------------
    anonymous = PlainApi(hub, None)
    owner = (await anonymous.post("/api/setup", {"username": "ada", "displayName": "Ada Lovelace",
                                                 "password": "analytical-engine", "workspaceName": "Demo"},
                                  status=201)).json()
    token = owner["token"]
    api = PlainApi(hub, token)
    assert (await api.get("/api/me"))["workspace"]["name"] == "Demo"

    # ---- 2. pair Claude Code with a one-time code: `lineup connect claude-code` -----------------------------
    proxy = await CutProxy(hub.port).start()   # Claude Code's hooks reach the hub through a link we can cut
    model = FakeAnthropic()
    stage = Stage(hub, tmp_path, model, token)
    model.script.add(*script(stage.project))
    stage.hub_url = proxy.url
    app = stage.app = await LapClient.connect(hub.ws_base, "app", token)
    try:
        await stage.connect()
        [agent] = (await api.get("/api/agents"))["agents"]
        assert (agent["name"], agent["runtime"]) == ("Claude Code", "claude-code")

        # ---- 3. the person starts the task (the prompt); closes the app; opens it again -----------------------
        claude = stage.claude_print(PROMPT)
        created = await app.event("task.created", timeout=90)
        task_id, conversation_id = created["taskId"], created["conversationId"]
        assert created["payload"]["title"] == PROMPT
        await app.close()
        app = stage.app = await LapClient.connect(hub.ws_base, "app", token, last_sequence=0)
        assert [f["taskId"] for f in app.events() if f["type"] == "task.created"
                and not f["payload"].get("parentTaskId")] == [task_id]
        assert conversation_id in [c["id"] for c in (await api.get("/api/conversations"))["conversations"]]

        # ---- 4. two progress changes and child tasks (Claude's own task list) ----------------------------------
        card = await stage.card()
        assert card["title"] == f"Claude wants to run: {TAG}"
        detail = await api.task(task_id)
        assert [(c["title"], c["status"]) for c in detail["children"]] == \
            [("Tag the release", "running"), ("Write the release notes", "queued")]
        progress = [f["payload"].get("summary") for f in app.events()
                    if f["type"] == "task.status_changed" and f["taskId"] == task_id and "progress" in f["payload"]]
        assert progress[:3] == ["0 of 1 steps done", "0 of 2 steps done", "Step 1 of 2: Tag the release"]

        # ---- 5. the approval, handled in the inbox; Claude goes on ------------------------------------------
        inbox = await api.get("/api/inbox")
        assert [(i["id"], i["taskId"]) for i in inbox["waitingForMe"]] == [(card["id"], task_id)]
        assert not (stage.project / "TAG").exists()
        await stage.answer(card["id"], {"optionId": "allow_once"})
        second = await app.wait_for(lambda f: f["type"] == "interaction.requested" and f["payload"]["interaction"]
                                    ["id"] != card["id"], timeout=90)
        assert (stage.project / "TAG").read_text().strip() == "v1.0"
        assert second["payload"]["interaction"]["title"] == f"Claude wants to write {stage.project / 'NOTES.md'}"
        await app.event("task.status_changed", taskId=task_id, progress=50)

        # ---- 6. the link drops while the question waits; the app sees it; the answer given meanwhile arrives --
        cut_at, seen = time.monotonic(), len(app.frames)
        proxy.cut()
        offline = await app.wait_for(lambda f: f["type"] == "agent.status_changed"
                                     and f["payload"]["status"] == "offline", timeout=15, start=seen)
        assert offline["payload"]["reason"] != "signed_off"  # dropped, not a hook process ending its run
        offline_after = time.monotonic() - cut_at
        assert (await api.task(task_id))["task"]["connectionLostAt"] is not None
        await stage.answer(second["payload"]["interaction"]["id"], {"optionId": "allow_once"})
        assert not (stage.project / "NOTES.md").exists()
        proxy.mend()
        code, out, err = await finished(claude, timeout=120)
        assert code == 0, err
        assert REPLY in out
        assert (stage.project / "NOTES.md").read_text() == NOTES
        await app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["status"] == "online"
                           and f["sequence"] > offline["sequence"], timeout=30)

        # ---- 7. the result message, an artifact, success; the whole story in the timeline ----------------------
        await app.event("task.status_changed", taskId=task_id, status="succeeded", timeout=30)
        detail = await api.task(task_id)
        assert (detail["task"]["status"], detail["task"]["progress"], detail["task"]["summary"]) == \
            ("succeeded", 100, REPLY)
        assert [(c["title"], c["status"]) for c in detail["children"]] == \
            [("Tag the release", "succeeded"), ("Write the release notes", "succeeded")]
        [artifact] = detail["artifacts"]
        assert (artifact["name"], artifact["mimeType"]) == ("NOTES.md", "text/markdown")
        assert artifact["url"].startswith("data:text/plain;charset=utf-8,%23%20Release%201.0")
        assert [(i["id"], i["status"]) for i in detail["interactions"]] == \
            [(card["id"], "answered"), (second["payload"]["interaction"]["id"], "answered")]
        kinds = [e["type"] for e in detail["timeline"]]
        assert is_subsequence(["task.created", "task.accepted", "interaction.requested", "interaction.resolved",
                               "message.created", "interaction.requested", "interaction.resolved",
                               "artifact.created", "message.created"], kinds), kinds
        messages = (await api.get(f"/api/conversations/{conversation_id}/messages"))["messages"]
        assert [m["content"] for m in messages] == [f"Ran `{TAG}` → exit 0", "Created NOTES.md (+3 −0)", REPLY]
        wrote = messages[1]["blocks"][0]["changes"][0]
        assert "+# Release 1.0" in wrote["diff"] and wrote["created"]  # the diff one tap away on the phone
        # Nothing twice: one task, one card per question, each command run once.
        events = await api.get("/api/events", after=0, limit=1000)
        stored = events["events"]
        assert sum(e["type"] == "interaction.requested" for e in stored) == 2
        assert sum(e["type"] == "task.created" and not e["payload"].get("parentTaskId") for e in stored) == 1
        assert [r for r in stage.model.tool_results() if r.get("is_error")] == []
        print(f"FIGURE claude_code_mvp_demo_offline_seen: {offline_after * 1000:.0f} ms")
    finally:
        await stage.app.close()
        model.close()
        await proxy.close()
