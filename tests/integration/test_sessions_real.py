"""Sessions from the phone with the real agents: claude-code-acp and codex-acp (from the npm prefix `.ci/run` fills)
against the fake model APIs on loopback, run by the hub as session agents (`[sessions.agents.<preset>] command`).

Claude Code goes the whole way in a new worktree: the model writes a file (Write), the card shows the file change
(approves.kind write), the changes and the diff list it, a review reaches the model quoted, a commit goes through a
card, Stop ends a slow turn, a hub restart resumes the session (its process started again, the conversation loaded:
the model sees what was said before) and End stops the process, the worktree kept. Codex runs a command from a card,
reports its token use (`usage_update`), takes the model chosen from its configuration options, and ends.
A test skips when the CLI is not installed, except in CI (CI set), where that is a failure.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

from tests.integration.conftest import Connect
from tests.integration.test_real_agents import TURN_S, Agent, agent_root_pids, claude_agent, codex_agent
from tests.integration.test_sessions import git, make_repo
from tests.support.fake_models import text, tool
from tests.support.fixtures import HubFactory
from tests.support.lap import LapClient
from tests.support.live import Api, eventually

pytestmark = pytest.mark.real_agent


async def start(hub_factory: HubFactory, lap: Connect, tmp_path: Path, key: str, agent: Agent) -> tuple[Any, Api, LapClient,
                                                                                                 str]:
    hub = hub_factory(start=False)
    token = hub.token()
    (hub.data_dir / "lineup.toml").write_text("\n".join([
        "[sessions]", f"roots = [{json.dumps(str(tmp_path / 'code'))}]",
        f"[sessions.agents.{key}]", "command = [" + ", ".join(json.dumps(p) for p in agent.command) + "]",
        "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in agent.env.items()) + " }",
        "init_timeout_s = 60", "cancel_grace_s = 20", ""]))
    hub.start()
    return hub, Api(hub, token), await lap(hub, "app", token), token


async def card_in(app: LapClient, conversation_id: str, start: int = 0) -> dict[str, Any]:
    frame = await app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
                               and f.get("conversationId") == conversation_id, TURN_S, start=start)
    return dict(frame["payload"]["interaction"])


async def reply(app: LapClient, conversation_id: str, predicate: Any, start: int = 0) -> str:
    frame = await app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                               and f.get("conversationId") == conversation_id
                               and f["payload"]["author"]["kind"] == "agent" and predicate(f["payload"]["content"]),
                               TURN_S, start=start)
    return str(frame["payload"]["content"])


async def test_claude_code_session_in_a_new_worktree(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "code" / "proj")
    worktree = tmp_path / "code" / "proj.worktrees" / "feature-notes"
    home = tmp_path / "claude-home"
    home.mkdir()
    agent = claude_agent(home, worktree, [])
    agent.model.script.add(
        tool("Write", {"file_path": str(worktree / "notes.md"), "content": "hello\nworld\n"}, say="Writing it."),
        text("I wrote notes.md."),
        text("I will say it louder."),
        text("Thinking for a long while...", delay_s=60),
        text("Still here after the restart."))
    try:
        hub, api, app, token = await start(hub_factory, lap, tmp_path, "claude-code", agent)
        started_at = time.monotonic()
        response = await api.post("/api/sessions", {
            "agent": "claude-code", "project": str(repo), "where": {"kind": "new_worktree", "branch": "feature/notes"},
            "mode": "default", "model": "haiku", "message": "Write notes.md with two lines"}, status=201)
        session_id, conversation_id = response.json()["sessionId"], response.json()["conversationId"]
        card = await card_in(app, conversation_id)
        print(f"FIGURE claude-code: Start to the first card {time.monotonic() - started_at:.1f} s")
        assert (card.get("approves") or [{}])[0].get("kind") in ("write", "edit"), json.dumps(card)
        assert card["approves"][0]["path"].endswith("notes.md")
        assert not (worktree / "notes.md").exists()
        await app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "allow_once"}})
        await reply(app, conversation_id, lambda t: "I wrote notes.md." in t)
        assert (worktree / "notes.md").read_text() == "hello\nworld\n"
        assert "haiku" in agent.model.main_requests()[0].body["model"]  # the model chosen was set (session/set_model)
        session = await api.get(f"/api/sessions/{session_id}")
        assert (session["mode"], session["model"], session["folder"]) == ("default", "haiku", str(worktree))

        changes = await api.get(f"/api/sessions/{session_id}/changes")
        assert changes["files"] == [{"path": "notes.md", "status": "added", "added": 2, "removed": 0,
                                     "binary": False}]
        diff = (await api.call("GET", f"/api/sessions/{session_id}/diff", params={"path": "notes.md"})).json()
        assert "+world" in diff["diff"]
        await api.post(f"/api/sessions/{session_id}/review", {"comments": [
            {"path": "notes.md", "line": 2, "text": "Say it louder"}]}, status=201)
        await reply(app, conversation_id, lambda t: "louder" in t)
        asked = json.dumps(agent.model.main_requests()[-1].body)
        assert "notes.md:2" in asked and "> world" in asked and "Say it louder" in asked

        commit = await api.post(f"/api/sessions/{session_id}/commit", {"message": "Add notes"}, status=202)
        interaction_id = commit.json()["interactionId"]
        await app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
                           and f["payload"]["interaction"]["id"] == interaction_id, TURN_S)
        await app.ok("interaction.respond", {"interactionId": interaction_id, "response": {"optionId": "approve"}})
        await app.event("session.commit_resolved", TURN_S, interactionId=interaction_id, outcome="committed")
        assert git(worktree, "log", "-1", "--format=%s") == "Add notes"

        await app.ok("message.create", {"content": "Think about it for a long time"}, conversationId=conversation_id)
        await eventually(lambda: _remaining(agent, 1), timeout=TURN_S)  # the slow reply is streaming
        assert (await api.post(f"/api/sessions/{session_id}/stop", status=200)).json() == {"stopped": True}
        await eventually(lambda: _idle(api, session_id), timeout=30)
        [pid] = agent_root_pids(home)

        await app.close()
        hub.stop()
        assert agent_root_pids(home) == []
        hub.start()
        app = await lap(hub, "app", token)
        await eventually(lambda: _pids(home), timeout=TURN_S)  # resumed at once: its process and its session
        [new_pid] = agent_root_pids(home)
        assert new_pid != pid
        await app.ok("message.create", {"content": "Are you still there?"}, conversationId=conversation_id)
        await reply(app, conversation_id, lambda t: "Still here after the restart." in t)
        last = json.dumps(agent.model.main_requests()[-1].body)
        assert "Write notes.md with two lines" in last and "Are you still there?" in last  # the history was loaded
        assert agent_root_pids(home) == [new_pid]
        listed = [s for s in await api.get("/api/sessions") if s.get("sessionId") == session_id]
        assert len(listed) == 1 and listed[0]["status"] == "idle"

        assert (await api.post(f"/api/sessions/{session_id}/end", status=200)).json()["ended"] is True
        assert agent_root_pids(home) == []
        assert worktree.is_dir() and (worktree / "notes.md").exists()
    finally:
        agent.close()


async def test_codex_session_runs_a_command_and_reports_usage(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "code" / "proj")
    home = tmp_path / "codex-home"
    home.mkdir()
    agent = codex_agent(home, repo, [])
    agent.model.script.add(agent.shell("printf 'hello\\n' > made.txt", say="Making the file."),
                           text("The file is made."))
    try:
        hub, api, app, _ = await start(hub_factory, lap, tmp_path, "codex", agent)
        agents = await api.get("/api/sessions/agents")
        assert next(a for a in agents if a["key"] == "codex")["installed"] is True
        response = await api.post("/api/sessions", {"agent": "codex", "project": str(repo), "model": "gpt-5.4",
                                                    "message": "Make made.txt"}, status=201)
        session_id, conversation_id = response.json()["sessionId"], response.json()["conversationId"]
        card = await card_in(app, conversation_id)
        assert card["approves"][0]["kind"] == "command" and "made.txt" in card["approves"][0]["command"]
        await app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "allow_once"}})
        await reply(app, conversation_id, lambda t: "The file is made." in t)
        assert (repo / "made.txt").read_text() == "hello\n"
        assert agent.model.main_requests()[0].body["model"] == "gpt-5.4"  # set through its configOptions
        session = await eventually(lambda: _with_usage(api, session_id), timeout=30)
        assert session["usage"]["contextUsed"] > 0 and session["usage"]["contextSize"] > 0
        changes = await api.get(f"/api/sessions/{session_id}/changes")
        assert [(f["path"], f["status"], f["added"]) for f in changes["files"]] == [("made.txt", "added", 1)]
        offered = next(a for a in await api.get("/api/sessions/agents") if a["key"] == "codex")
        assert "gpt-5.4" in [m["id"] for m in offered["models"]] and offered["offeredAt"]
        assert (await api.post(f"/api/sessions/{session_id}/end", status=200)).json()["ended"] is True
        assert agent_root_pids(home) == []
    finally:
        agent.close()


async def _remaining(agent: Agent, count: int) -> bool:
    return bool(agent.model.script.remaining == count)


async def _idle(api: Api, session_id: str) -> bool:
    return bool((await api.get(f"/api/sessions/{session_id}"))["status"] == "idle")


async def _pids(home: Path) -> list[int] | None:
    return agent_root_pids(home) or None


async def _with_usage(api: Api, session_id: str) -> dict[str, Any] | None:
    session = await api.get(f"/api/sessions/{session_id}")
    return session if (session.get("usage") or {}).get("contextUsed") else None
