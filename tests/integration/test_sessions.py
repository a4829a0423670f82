"""Sessions from the phone (docs/sessions.md) against a real hub, with the scripted ACP agent
(tests/support/acp_agent.py) as the session's agent and real git repositories under the session roots.

One session goes the whole way: a new worktree, the agent's edit approved on a card that shows the file change, the
changes listed with counts, the file's diff, a review that reaches the agent quoted, a commit through an approval card,
the mode and model applied, usage reported, Stop, a hub restart that resumes it (one process, its ACP session
loaded), End, and a restart that keeps it ended. Then what is refused: paths outside the roots, a symlink out of them,
`..`, a worktree of a folder that is no repository, a bad or taken branch name, a removed worktree, another
workspace's owner, a member; an agent that cannot load its session ended at a restart, saying so; a task given to a
terminal agent ended at once, saying why.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

from collections.abc import Callable

from hub.store.rebuild import check, open_for_maintenance
from tests.integration.conftest import Connect
from tests.support.fixtures import HubFactory
from tests.support.hubproc import pair_agent
from tests.support.hubs import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, eventually, pair

AGENT_SCRIPT = Path(__file__).resolve().parents[1] / "support" / "acp_agent.py"
WAIT_S = 20.0


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "t@example.com",
                               "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "t@example.com"})
    return done.stdout.strip()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Tester")
    git(path, "config", "user.email", "t@example.com")
    (path / "README.md").write_text("# Project\n\nfirst line\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "Start")
    return path


@dataclass
class SessionsHub:
    hub: HubProcess
    api: Api
    app: LapClient
    token: str
    root: Path
    repo: Path
    agent_log: Path
    lap: Connect

    def received(self, method: str | None = None) -> list[dict[str, Any]]:
        if not self.agent_log.exists():
            return []
        lines = [json.loads(line) for line in self.agent_log.read_text().splitlines() if line.strip()]
        return [line for line in lines if method is None or line["method"] == method]

    async def start(self, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
        response = await self.api.post("/api/sessions", body)
        assert response.status_code == status, response.text
        return dict(response.json())

    async def reply(self, conversation_id: str, predicate: Any, timeout: float = WAIT_S) -> dict[str, Any]:
        frame = await self.app.wait_for(
            lambda f: f["type"] == "message.created" and f.get("sequence") is not None
            and f.get("conversationId") == conversation_id and f["payload"]["author"]["kind"] == "agent"
            and predicate(f["payload"]["content"]), timeout)
        return dict(frame["payload"])

    async def say(self, conversation_id: str, text: str) -> None:
        await self.app.ok("message.create", {"content": text}, conversationId=conversation_id)

    async def query(self, url: str, expect: int = 200, **params: Any) -> Any:
        response = await self.api.call("GET", url, params=params)
        assert response.status_code == expect, (url, response.status_code, response.text)
        return response.json()

    async def session(self, session_id: str) -> dict[str, Any]:
        return dict(await self.api.get(f"/api/sessions/{session_id}"))

    async def restart(self) -> None:
        await self.app.close()
        self.hub.stop()
        self.hub.start()
        self.app = await self.lap(self.hub, "app", self.token)


async def start_sessions_hub(hub_factory: Callable[..., HubProcess], lap: Connect, tmp_path: Path, *, load: bool = True,
                             extra: str = "") -> SessionsHub:
    hub = hub_factory(start=False)
    token = hub.token()
    root = tmp_path / "code"
    repo = make_repo(root / "proj")
    agent_log = tmp_path / "acp-agent.jsonl"
    env = {"ACP_TEST_LOG": str(agent_log), "ACP_TEST_MODES": "1"}
    if load:
        env["ACP_TEST_LOAD_SESSIONS"] = "1"
    (hub.data_dir / "lineup.toml").write_text("\n".join([
        "[sessions]", f"roots = [{json.dumps(str(root))}]", "max_running = 3", extra,
        "[sessions.agents.scripted]", 'name = "Scripted"',
        f"command = [{json.dumps(sys.executable)}, {json.dumps(str(AGENT_SCRIPT))}]",
        "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }",
        "init_timeout_s = 20", ""]))
    hub.start()
    app = await lap(hub, "app", token)
    return SessionsHub(hub, Api(hub, token), app, token, root, repo, agent_log, lap)


def processes_of(log: list[dict[str, Any]]) -> set[int]:
    return {entry["pid"] for entry in log}


async def test_a_session_in_a_new_worktree_from_start_to_end(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    agents = await h.api.get("/api/sessions/agents")
    scripted = next(a for a in agents if a["key"] == "scripted")
    assert scripted["installed"] is True and scripted["name"] == "Scripted" and scripted["offeredAt"] is None
    assert {a["key"] for a in agents} >= {"claude-code", "codex", "gemini", "scripted"}
    for agent in agents:  # one not installed says how to install it
        assert agent["installed"] or agent["install"]
    projects = await h.api.get("/api/sessions/projects")
    assert projects["roots"] == [str(h.root)] and projects["enabled"] is True
    [project] = [p for p in projects["projects"] if p["name"] == "proj"]
    assert project == {"path": str(h.repo), "name": "proj", "git": True, "branch": "main", "dirty": False}
    assert await h.api.get("/api/sessions/branches", project=str(h.repo)) == ["main"]
    [main] = await h.api.get("/api/sessions/worktrees", project=str(h.repo))
    assert (main["path"], main["branch"], main["main"], main["dirty"]) == (str(h.repo), "main", True, False)

    started_at = time.monotonic()
    started = await h.start({"agent": "scripted", "project": str(h.repo), "where": {"kind": "new_worktree"},
                             "mode": "plan", "model": "smart", "message": "edit notes.md hello\\nworld"})
    conversation_id, session_id = started["conversationId"], started["sessionId"]
    worktree = h.root / "proj.worktrees" / "lineup-edit-notes-md-hello-nworld"
    assert started["worktree"] == {"path": str(worktree), "branch": "lineup/edit-notes-md-hello-nworld",
                                   "created": True}
    assert git(worktree, "rev-parse", "--abbrev-ref", "HEAD") == "lineup/edit-notes-md-hello-nworld"
    # The agent asks to write the file: the card carries the change whole (approves.kind write, the file's content).
    card = (await h.app.event("interaction.requested", WAIT_S, conversationId=conversation_id))["payload"]
    card = card["interaction"]
    first_output_s = time.monotonic() - started_at
    assert card["approves"][0]["kind"] == "write" and card["approves"][0]["path"] == str(worktree / "notes.md")
    assert card["approves"][0]["content"] == "hello\nworld\n"
    await h.app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "allow_once"}})
    await h.reply(conversation_id, lambda text: text == "edited notes.md")
    [new] = h.received("session/new")
    assert new["cwd"] == str(worktree)  # the agent works in the worktree
    # The person's mode and model were applied the way the agent offers them.
    assert [e["modeId"] for e in h.received("session/set_mode")] == ["plan"]
    assert [(e["configId"], e["value"]) for e in h.received("session/set_config_option")] == [("model", "smart")]
    print(f"FIGURE first card after Start: {first_output_s:.2f} s")

    changes = await h.api.get(f"/api/sessions/{session_id}/changes", against="start")
    assert changes["files"] == [{"path": "notes.md", "status": "added", "added": 2, "removed": 0, "binary": False}]
    assert changes["truncated"] is False and changes["totals"] == {"files": 1, "added": 2, "removed": 0}
    diff = await h.query(f"/api/sessions/{session_id}/diff", path="notes.md", against="start")
    assert "+hello\n+world\n" in diff["diff"] and diff["diff"].startswith("diff --git a/notes.md b/notes.md")
    assert (await h.api.get(f"/api/sessions/{session_id}/changes", against="base"))["files"][0]["path"] == "notes.md"
    refused = await h.api.call("GET", f"/api/sessions/{session_id}/diff", params={"path": "../../etc/passwd"})
    assert refused.status_code == 404  # only a changed file's diff is shown

    # A review reaches the agent as one message: file:line, the line quoted, the comment.
    review = await h.api.post(f"/api/sessions/{session_id}/review", {
        "summary": "Nearly there.", "comments": [{"path": "notes.md", "line": 2, "side": "new",
                                                  "text": "Say it louder"}]}, status=201)
    prompted = await eventually(lambda: _prompt_with(h, "notes.md:2"), timeout=WAIT_S)
    assert "> world" in prompted and "Say it louder" in prompted and "Nearly there." in prompted
    assert review.json()["content"] == prompted

    # A commit goes through an approval card of the session's agent, and is logged.
    asked = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "Add notes"}, status=202)
    interaction_id = asked.json()["interactionId"]
    card = await _card(h, interaction_id)
    [item] = card["approves"]  # exactly what is committed: this tree, on HEAD, no hooks
    head = git(worktree, "rev-parse", "HEAD")
    assert item == {**item, "kind": "commit", "cwd": str(worktree), "message": "Add notes", "parent": head,
                    "hooks": [], "files": [{"path": "notes.md", "status": "added", "added": 2}]}
    assert "No hooks run" in card["description"]
    await h.app.ok("interaction.respond", {"interactionId": interaction_id, "response": {"optionId": "approve"}})
    resolved = await h.app.event("session.commit_resolved", WAIT_S, interactionId=interaction_id)
    assert resolved["payload"]["outcome"] == "committed"
    assert git(worktree, "log", "-1", "--format=%s") == "Add notes"
    assert git(worktree, "rev-parse", "HEAD") == resolved["payload"]["commit"]
    assert git(worktree, "rev-parse", "HEAD^{tree}") == item["tree"] and git(worktree, "rev-parse", "HEAD^") == head
    assert (await h.api.get(f"/api/sessions/{session_id}/changes", against="uncommitted"))["files"] == []
    assert [f["path"] for f in (await h.api.get(f"/api/sessions/{session_id}/changes"))["files"]] == ["notes.md"]
    await h.reply(conversation_id, lambda text: text.startswith("Committed "))

    await h.say(conversation_id, "settings")
    assert (await h.reply(conversation_id, lambda text: text.startswith("mode ")))["content"] == \
        "mode plan model smart"
    await h.say(conversation_id, "usage")
    await h.reply(conversation_id, lambda text: text == "Counted.")
    usage = await eventually(lambda: _usage(h, session_id), timeout=WAIT_S)
    assert usage == {"contextUsed": 1200, "contextSize": 200000, "cost": {"amount": 0.25, "currency": "USD"},
                     "inputTokens": 100, "outputTokens": 20, "totalTokens": 120}

    # Stop cancels the turn; the session stays.
    await h.say(conversation_id, "wait")
    await h.app.wait_for(lambda f: f["type"] == "message.delta" and f.get("conversationId") == conversation_id
                         and f["payload"]["text"].startswith("Working until cancelled"), WAIT_S)
    assert (await h.session(session_id))["status"] == "running"
    assert (await h.api.post(f"/api/sessions/{session_id}/stop", status=200)).json() == {"stopped": True}
    await eventually(lambda: _cancelled(h), timeout=WAIT_S)
    await eventually(lambda: _status(h, session_id, "idle"), timeout=WAIT_S)
    before = processes_of(h.received("initialize"))
    assert len(before) == 1
    # A commit card still waiting when the hub stops is withdrawn at the next start (nobody would act on it).
    (worktree / "later.txt").write_text("later\n")
    waiting = (await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "Later"}, status=202)).json()
    await _card(h, waiting["interactionId"])
    assert (await h.session(session_id))["pendingCommit"] == waiting["interactionId"]
    refused = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "Again"})
    assert refused.status_code == 409 and "already waits" in refused.json()["error"]["message"]

    # A restart resumes it: one new process, its ACP session loaded, the conversation going on.
    await h.restart()
    await eventually(lambda: _loaded(h, new["sessionId"]), timeout=WAIT_S)
    listed = [s for s in await h.api.get("/api/sessions") if s.get("sessionId") == session_id]
    assert len(listed) == 1 and listed[0]["status"] == "idle" and listed[0]["canEnd"] is True
    withdrawn = await h.app.event("interaction.resolved", WAIT_S, interactionId=waiting["interactionId"])
    assert withdrawn["payload"]["outcome"] == "cancelled" and "restarted" in withdrawn["payload"]["response"]["reason"]
    await eventually(lambda: _no_pending(h, session_id), timeout=WAIT_S)
    assert git(worktree, "log", "-1", "--format=%s") == "Add notes"
    await h.say(conversation_id, "after the restart")
    answer = await h.reply(conversation_id, lambda text: "after the restart" in text)
    assert answer["content"].startswith(f"session {new['sessionId']} turn ")
    assert len(processes_of(h.received("initialize")) - before) == 1
    assert (await h.session(session_id))["mode"] == "plan"

    # End stops the process and never deletes the worktree.
    assert (await h.api.post(f"/api/sessions/{session_id}/end", status=200)).json()["ended"] is True
    assert (await h.session(session_id))["status"] == "ended" and worktree.is_dir()
    await h.reply(conversation_id, lambda text: text.startswith("Session ended") and str(worktree) in text)
    assert (await h.api.post(f"/api/sessions/{session_id}/end", status=200)).json()["ended"] is False
    await h.say(conversation_id, "are you there?")
    await h.reply(conversation_id, lambda text: text.startswith("This session has ended"))
    started_processes = len(h.received("initialize"))
    await h.restart()
    listed = [s for s in await h.api.get("/api/sessions") if s.get("sessionId") == session_id]
    assert [s["status"] for s in listed] == ["ended"]
    await asyncio.sleep(1.0)
    assert len(h.received("initialize")) == started_processes  # an ended session starts no process
    remembered = next(p for p in (await h.api.get("/api/sessions/projects"))["projects"] if p["name"] == "proj")
    assert remembered["remembered"] == {"agent": "scripted", "where": "new_worktree", "mode": "plan",
                                        "model": "smart"}
    agents = await h.api.get("/api/sessions/agents")
    scripted = next(a for a in agents if a["key"] == "scripted")
    assert [m["id"] for m in scripted["modes"]] == ["default", "acceptEdits", "plan"]
    assert [m["id"] for m in scripted["models"]] == ["fast", "smart"] and scripted["offeredAt"]
    # The sessions table is a pure function of the log (lineup db check replays it).
    await h.app.close()
    h.hub.stop()
    conn = open_for_maintenance(h.hub.data_dir / "lineup.db")
    try:
        report = check(conn)
    finally:
        conn.close()
    assert report.ok, report.problems


async def _card(h: SessionsHub, interaction_id: str) -> dict[str, Any]:
    frame = await h.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
                                 and f["payload"]["interaction"]["id"] == interaction_id, WAIT_S)
    return dict(frame["payload"]["interaction"])


async def _prompt_with(h: SessionsHub, text: str) -> str | None:
    return next((e["text"] for e in h.received("session/prompt") if text in e["text"]), None)


async def _usage(h: SessionsHub, session_id: str) -> dict[str, Any] | None:
    usage = (await h.session(session_id))["usage"]
    return usage if usage and "inputTokens" in usage else None


async def _no_pending(h: SessionsHub, session_id: str) -> bool:
    return (await h.session(session_id))["pendingCommit"] is None


async def _cancelled(h: SessionsHub) -> bool:
    return bool(h.received("session/cancel"))


async def _status(h: SessionsHub, session_id: str, status: str) -> bool:
    return bool((await h.session(session_id))["status"] == status)


async def _loaded(h: SessionsHub, acp_id: str) -> bool:
    return any(e["sessionId"] == acp_id for e in h.received("session/load"))


async def _error(h: SessionsHub, body: dict[str, Any], status: int, code: str) -> dict[str, Any]:
    response = await h.api.post("/api/sessions", body)
    assert response.status_code == status, response.text
    error = dict(response.json()["error"])
    assert error["code"] == code, error
    return error


async def test_what_a_session_request_may_name_is_checked_on_the_hub(hub_factory: HubFactory, lap: Connect,
                                                                    tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path, extra="\n".join([
        "[sessions.agents.ghost]", 'name = "Ghost"', 'command = ["/nonexistent/ghost-acp"]']))
    base = {"agent": "scripted", "message": "hello"}
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    error = await _error(h, {**base, "project": str(outside)}, 403, "forbidden")
    assert "outside the folders sessions may use" in error["message"]
    (h.root / "link").symlink_to(outside)  # a symlink under the root that leads out of it
    error = await _error(h, {**base, "project": str(h.root / "link")}, 403, "forbidden")
    assert "symlink" in error["message"]
    error = await _error(h, {**base, "project": f"{h.repo}/../proj"}, 403, "forbidden")
    assert "`..`" in error["message"]
    await _error(h, {**base, "project": "proj"}, 422, "invalid_payload")  # never a relative path
    await _error(h, {**base, "project": str(h.root / "missing")}, 404, "not_found")
    plain = h.root / "plain"
    plain.mkdir()
    error = await _error(h, {**base, "project": str(plain), "where": {"kind": "new_worktree"}}, 422,
                         "invalid_payload")
    assert "not a git repository" in error["message"]
    await _error(h, {**base, "project": str(h.repo), "where": {"kind": "new_worktree", "branch": "bad..name"}}, 422,
                 "invalid_payload")
    await _error(h, {**base, "project": str(h.repo), "where": {"kind": "new_worktree", "branch": "-x"}}, 422,
                 "invalid_payload")
    error = await _error(h, {**base, "project": str(h.repo), "where": {"kind": "new_worktree", "branch": "main"}},
                         409, "conflict")
    assert "exists already" in error["message"]
    await _error(h, {**base, "project": str(h.repo), "where": {"kind": "new_worktree", "from": "nope"}}, 404,
                 "not_found")
    await _error(h, {**base, "project": str(h.repo), "where": {"kind": "worktree", "path": str(plain)}}, 404,
                 "not_found")
    await _error(h, {**base, "project": str(h.repo), "where": {"kind": "sideways"}}, 422, "invalid_payload")
    error = await _error(h, {**base, "agent": "ghost", "project": str(h.repo)}, 404, "not_found")
    assert "not installed" in error["message"] and "/nonexistent/ghost-acp" in error["hint"]
    await _error(h, {**base, "agent": "nobody", "project": str(h.repo)}, 404, "not_found")
    await _error(h, {"agent": "scripted", "project": str(h.repo), "message": " "}, 422, "invalid_payload")
    for path in ("/api/sessions/worktrees", "/api/sessions/branches"):
        assert (await h.query(path, 403, project=str(outside)))["error"]["code"] == "forbidden"
        assert (await h.query(path, 422, project=str(plain)))["error"]["code"] == "invalid_payload"
    assert not list(h.root.glob("*.worktrees"))  # nothing was made for a refused request

    # A removed worktree: a clear error on every operation, never the main checkout instead.
    started = await h.start({**base, "project": str(h.repo), "where": {"kind": "new_worktree", "branch": "feature/x"},
                             "message": "hello there"})
    session_id, conversation_id = started["sessionId"], started["conversationId"]
    worktree = Path(started["worktree"]["path"])
    assert worktree == h.root / "proj.worktrees" / "feature-x"
    await h.reply(conversation_id, lambda text: "hello there" in text)
    git(h.repo, "worktree", "remove", "--force", str(worktree))
    for url in (f"/api/sessions/{session_id}/changes", f"/api/sessions/{session_id}/diff"):
        error = (await h.query(url, 409, path="README.md"))["error"]
        assert error["code"] == "conflict" and "removed" in error["message"] and str(worktree) in error["message"]
    for url, body in ((f"/api/sessions/{session_id}/review", {"summary": "ok"}),
                      (f"/api/sessions/{session_id}/commit", {"message": "x"})):
        response = await h.api.post(url, body)
        assert response.status_code == 409 and "removed" in response.json()["error"]["message"], response.text
    await h.say(conversation_id, "still there?")
    said = await h.reply(conversation_id, lambda text: "was removed" in text)
    assert str(worktree) in said["content"]
    assert not any("still there?" in e["text"] for e in h.received("session/prompt"))
    error = await _error(h, {**base, "project": str(h.repo), "where": {"kind": "worktree", "path": str(worktree)}},
                         404, "not_found")

    # Sessions of one agent run side by side, each with its own process; at most max_running at once (3 here).
    before = processes_of(h.received("initialize"))
    side = [await h.start({**base, "project": str(h.repo), "message": f"side {n}"}) for n in range(2)]
    other: Any  # a started session here, the other workspace's API below
    for n, other in enumerate(side):
        await h.reply(other["conversationId"], lambda text, n=n: text.endswith(f"you said side {n}"))
    assert len(processes_of(h.received("initialize")) - before) == 2
    error = await _error(h, {**base, "project": str(h.repo)}, 429, "rate_limited")
    assert error["details"] == {"limit": "sessions", "max": 3}
    await h.api.post(f"/api/sessions/{session_id}/end", status=200)
    await h.start({**base, "project": str(h.repo)})

    # Another workspace's owner: not the hub's owner, and another workspace's session is not theirs to see.
    other = Api(h.hub, h.hub.token(workspace="Other team"))
    for url in ("/api/sessions", "/api/sessions/agents", f"/api/sessions/{session_id}",
                f"/api/sessions/{session_id}/changes", "/api/sessions/projects"):
        response = await other.call("GET", url)
        assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden", (url, response.text)
    response = await other.post("/api/sessions", {**base, "project": str(h.repo)})
    assert response.status_code == 403
    assert (await h.query("/api/sessions/ses_nobody", 404))["error"]["code"] == "not_found"
    assert (await h.api.call("GET", "/api/sessions", headers={"Authorization": "Bearer nope"})).status_code == 401


async def test_a_session_whose_agent_cannot_load_it_ends_at_a_restart_and_says_so(hub_factory: HubFactory, lap: Connect,
                                                                                tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path, load=False)
    started = await h.start({"agent": "scripted", "project": str(h.repo), "message": "remember me"})
    session_id, conversation_id = started["sessionId"], started["conversationId"]
    await h.reply(conversation_id, lambda text: "remember me" in text)
    assert (await h.session(session_id))["where"] == "folder"
    await h.restart()
    ended = await h.app.event("session.ended", WAIT_S, sessionId=session_id)
    assert ended["payload"]["reason"] == "hub_restarted"
    said = await h.reply(conversation_id, lambda text: text.startswith("The hub restarted"))
    assert "cannot load" in said["content"]
    listed = [s for s in await h.api.get("/api/sessions") if s.get("sessionId") == session_id]
    assert [(s["status"], s["canSend"], s["endReason"]) for s in listed] == [("ended", False, "hub_restarted")]
    # Its process was stopped: only the one from before the restart and the one that found it could not load (that
    # one said `initialize` before the hub could know it cannot load, so before session.ended).
    pids = processes_of(h.received("initialize"))
    assert len(pids) == 2
    await eventually(lambda: all(not _alive(pid) for pid in pids), timeout=30, what="both processes stopped")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


async def test_sessions_off_says_how_to_turn_them_on(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    hub = hub_factory()
    api = Api(hub, hub.token())
    projects = await api.get("/api/sessions/projects")
    assert projects["enabled"] is False and "[sessions]" in projects["hint"] and "roots" in projects["hint"]
    response = await api.post("/api/sessions", {"agent": "claude-code", "project": "/tmp", "message": "hi"})
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"reason": "sessions_off"}
    assert "roots" in response.json()["error"]["hint"]
    assert await api.get("/api/sessions") == []


async def test_a_task_for_a_terminal_agent_ends_at_once_saying_why(hub_factory: HubFactory, lap: Connect,
                                                                  tmp_path: Path) -> None:
    hub = hub_factory()
    token = hub.token()
    api = Api(hub, token)
    app = await lap(hub, "app", token)
    sdk_agent = await pair(hub, token, "An SDK agent")
    codex = await asyncio.to_thread(pair_agent, hub, token, "Codex terminal", "mcp")
    claude = await asyncio.to_thread(pair_agent, hub, token, "Claude Code", "claude-code")
    for agent, runtime in ((codex, "mcp"), (claude, "claude-code")):
        conversation = f"conv-{runtime}"
        await app.ok("conversation.create", {"title": "In my terminal", "agentIds": [agent["agentId"]]},
                     conversationId=conversation)
        await app.ok("task.create", {"title": "Fix the bug"}, conversationId=conversation, taskId=f"task-{runtime}")
        ended = await app.event("task.status_changed", WAIT_S, taskId=f"task-{runtime}")
        assert ended["payload"]["status"] == "cancelled" and ended["payload"]["cause"] == "terminal_agent"
        assert ended["payload"]["error"]["code"] == "terminal_agent"
        assert "cannot start work there" in ended["payload"]["summary"]
        # The person's message of the same "Track as task" still lands, tied to the task.
        await app.ok("message.create", {"content": "Fix the bug"}, conversationId=conversation,
                     taskId=f"task-{runtime}")
    # Another agent's task is untouched.
    await app.ok("conversation.create", {"title": "SDK", "agentIds": [sdk_agent["agentId"]]}, conversationId="c-sdk")
    await app.ok("task.create", {"title": "Work"}, conversationId="c-sdk", taskId="task-sdk")
    assert (await api.task("task-sdk"))["task"]["status"] == "queued"
    listed = await api.get("/api/sessions")
    assert {(s["kind"], s["runtime"], s["canSend"], s["canStop"], s["canEnd"]) for s in listed} == {
        ("terminal", "mcp", True, False, False), ("terminal", "claude-code", False, False, False)}
    for entry in listed:
        assert "cannot" in entry["note"] and entry["conversationId"] in ("conv-mcp", "conv-claude-code")


async def test_revoking_the_session_agent_ends_its_sessions(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    started = await h.start({"agent": "scripted", "project": str(h.repo), "message": "hello"})
    await h.reply(started["conversationId"], lambda text: "you said hello" in text)
    [pid] = processes_of(h.received("initialize"))
    await h.api.post(f"/api/agents/{started['agentId']}/revoke", status=200)
    ended = await h.app.event("session.ended", WAIT_S, sessionId=started["sessionId"])
    assert ended["payload"]["reason"] == "agent_revoked"
    await eventually(lambda: _gone(pid), timeout=WAIT_S)  # its process stopped
    response = await h.api.post("/api/sessions", {"agent": "scripted", "project": str(h.repo), "message": "again"})
    assert response.status_code == 403 and "revoked" in response.json()["error"]["message"]


async def _gone(pid: int) -> bool:
    return not _alive(pid)


async def test_the_first_message_carries_files_and_a_known_agent_checks_its_modes(hub_factory: HubFactory, lap: Connect,
                                                                                  tmp_path: Path) -> None:
    import httpx

    from tests.support.files import png

    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    image = png(4, 4)
    ids = []
    for name, body, kind in (("dot.png", image, "image/png"), ("notes.txt", b"remember the milk\n", "text/plain"),
                             ("blob.bin", b"\x00\x01", "application/octet-stream")):
        async with httpx.AsyncClient(base_url=h.hub.base, timeout=10) as client:
            uploaded = await client.post("/api/files", content=body, params={"name": name},
                                         headers={"Authorization": f"Bearer {h.token}", "Content-Type": kind})
        assert uploaded.status_code == 201, uploaded.text
        ids.append(uploaded.json()["fileId"])
    started = await h.start({"agent": "scripted", "project": str(h.repo), "message": "files please",
                             "attachments": [{"fileId": file_id} for file_id in ids]})
    said = (await h.reply(started["conversationId"], lambda text: text.startswith("image")))["content"]
    parts = said.split("; ")
    assert parts[0].startswith("image image/png ") and int(parts[0].split()[-1]) > 0
    assert parts[1].startswith(f"resource file:///lineup/attachments/{ids[1]}/notes.txt remember the milk")
    [prompt] = [e["text"] for e in h.received("session/prompt") if e["text"].startswith("files")]
    assert "blob.bin" in prompt and "could not be given to you" in prompt  # named, not passed
    # Now that the agent has offered its modes and models, a mode it does not offer is refused up front.
    response = await h.api.post("/api/sessions", {"agent": "scripted", "project": str(h.repo), "message": "hi",
                                                  "mode": "bogus"})
    assert response.status_code == 422 and "does not offer the mode 'bogus'" in response.json()["error"]["message"]
    missing = await h.api.post("/api/sessions", {"agent": "scripted", "project": str(h.repo), "message": "hi",
                                                 "attachments": [{"fileId": "file_nope"}]})
    assert missing.status_code == 404
