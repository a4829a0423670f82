"""The `acp` runtime against a real hub: a supervised ACP agent process (tests/support/acp_agent.py, built with
the same `agent-client-protocol` package) driven through tasks and messages, the person answering on an app
socket; and, where npm can install it, a published ACP agent taken through `initialize` and `session/new`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

from hub.acp import AcpRuntime, TurnError
from hub.runtimes.base import AgentConfig
from hub.sdk.client import AgentClient
from hub.sdk.credentials import Credential
from tests.integration.conftest import Connect
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, eventually, of_type

AGENT_SCRIPT = Path(__file__).resolve().parents[1] / "support" / "acp_agent.py"
PUBLISHED_AGENT = "@zed-industries/claude-code-acp"
PUBLISHED_VERSION = "0.16"  # pinned, so that a new release shows up as a deliberate bump
# Where .ci/run installs the agent CLIs (this one among them); used when it holds the pinned version.
NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX") or Path.home() / ".cache" / "lineup-agents" / "npm")


@dataclass
class AcpHub:
    """A hub supervising the scripted ACP agent, an app socket, and the agent's log of what it received."""

    hub: HubProcess
    api: Api
    app: LapClient
    agent_id: str
    agent_log: Path

    def received(self, method: str | None = None) -> list[dict[str, Any]]:
        if not self.agent_log.exists():
            return []
        lines = [json.loads(line) for line in self.agent_log.read_text().splitlines() if line.strip()]
        return [line for line in lines if method is None or line["method"] == method]

    async def conversation(self, conversation_id: str) -> None:
        await self.app.ok("conversation.create", {"title": conversation_id, "agentIds": [self.agent_id]},
                          conversationId=conversation_id)

    async def task(self, task_id: str, title: str, conversation_id: str | None = "c1") -> None:
        fields: dict[str, Any] = {"conversationId": conversation_id} if conversation_id else {}
        payload: dict[str, Any] = {"title": title} if conversation_id else {"title": title,
                                                                            "targetAgentId": self.agent_id}
        await self.app.ok("task.create", payload, taskId=task_id, **fields)

    async def ended(self, task_id: str, status: str, timeout: float = 15.0) -> dict[str, Any]:
        frame = await self.app.event("task.status_changed", timeout, taskId=task_id, status=status)
        return dict(frame["payload"])

    async def reply(self, predicate: Any, timeout: float = 15.0, task_id: str | None = None) -> dict[str, Any]:
        """The agent's stored message matching `predicate(content)` (and posted for `task_id`, if given)."""
        return await self.app.wait_for(
            lambda f: f["type"] == "message.created" and f.get("sequence") is not None
            and f["payload"]["author"]["kind"] == "agent" and predicate(f["payload"]["content"])
            and (task_id is None or f.get("taskId") == task_id), timeout)

    async def interaction(self, task_id: str) -> dict[str, Any]:
        frame = await self.app.event("interaction.requested", 15, taskId=task_id)
        return dict(frame["payload"]["interaction"])


async def start_acp_hub(hub_factory: HubFactory, lap: Connect, tmp_path: Path, *extra: str,
                        env: dict[str, str] | None = None) -> AcpHub:
    """A hub whose lineup.toml runs the scripted agent (plus the `extra` lines), up and the agent online."""
    hub: HubProcess = hub_factory(start=False)
    token = hub.token()  # makes the workspace, which the supervisor pairs its agents into
    agent_log = tmp_path / "acp-agent.jsonl"
    # JSON strings are valid TOML basic strings.
    config = ["[[agents]]", 'name = "Scripted"', 'runtime = "acp"',
              f"command = [{json.dumps(sys.executable)}, {json.dumps(str(AGENT_SCRIPT))}]",
              "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in
                                     {"ACP_TEST_LOG": str(agent_log), **(env or {})}.items()) + " }", *extra]
    (hub.data_dir / "lineup.toml").write_text("\n".join(config) + "\n")
    hub.start()
    api = Api(hub, token)

    async def online() -> str | None:
        agents = (await api.get("/api/agents"))["agents"]
        return next((a["id"] for a in agents if a["name"] == "Scripted" and a["status"] == "online"), None)

    agent_id = await eventually(online, timeout=20)
    app = await lap(hub, "app", token)
    acp_hub = AcpHub(hub, api, app, agent_id, agent_log)
    await acp_hub.conversation("c1")
    return acp_hub


async def test_streamed_reply_and_one_session_per_conversation(hub_factory: HubFactory, lap: Connect,
                                                               tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    [agent] = (await h.api.get("/api/agents"))["agents"]
    assert (agent["runtime"], agent["agentVersion"]) == ("acp", "scripted-acp-agent 1.0")  # from `initialize`
    await h.task("t1", "stream")
    done = await h.ended("t1", "succeeded")
    assert done["summary"] == "Streaming one word at a time."
    deltas = [f["payload"] for f in h.app.frames if f["type"] == "message.delta"]
    assert len(deltas) >= 3 and len({d["messageId"] for d in deltas}) == 1
    assert "".join(d["text"] for d in sorted(deltas, key=lambda d: d["offset"])) == "Streaming one word at a time."
    stored = await h.reply(lambda text: text.startswith("Streaming"))
    assert stored["payload"]["messageId"] == deltas[0]["messageId"] and stored["taskId"] == "t1"
    assert stored["payload"]["content"] == "Streaming one word at a time."
    assert not any("Thinking quietly" in f["payload"].get("content", "") for f in of_type(h.app, "message.created"))

    # A person's message in the same conversation is the next prompt of the same ACP session.
    await h.app.ok("message.create", {"content": "hello again"}, conversationId="c1")
    answer = await h.reply(lambda text: "hello again" in text)
    assert answer["payload"]["content"] == "session s1 turn 2: you said hello again"
    assert answer.get("taskId") is None
    # Another conversation gets its own session; a task without a conversation too.
    await h.conversation("c2")
    await h.task("t2", "first words", conversation_id="c2")
    await h.ended("t2", "succeeded")
    assert (await h.reply(lambda text: "first words" in text))["payload"]["content"] == \
        "session s2 turn 1: you said first words"
    await h.task("t3", "on my own", conversation_id=None)
    assert (await h.ended("t3", "succeeded"))["summary"] == "session s3 turn 1: you said on my own"

    # File access and terminals are not offered by default, and a request for them is refused.
    await h.task("t4", "read /etc/hostname")
    await h.ended("t4", "succeeded")
    refused = await h.reply(lambda text: text.startswith("read"))
    assert refused["payload"]["content"].startswith("read refused: File access is not offered")
    await h.task("t5", "terminal echo hi")
    await h.ended("t5", "succeeded")
    refused = await h.reply(lambda text: text.startswith("terminal"))
    assert refused["payload"]["content"].startswith("terminal refused: Terminals are not offered")
    [init] = h.received("initialize")
    assert init["clientCapabilities"]["fs"] == {"readTextFile": False, "writeTextFile": False}
    assert init["clientCapabilities"]["terminal"] is False
    assert init["clientInfo"] == "lineup-agents"
    assert [s["cwd"] for s in h.received("session/new")] == [str(h.hub.data_dir.resolve())] * 3


async def test_plan_entries_become_child_tasks_and_progress(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t1", "plan")
    await h.ended("t1", "succeeded")
    detail = await h.api.task("t1")
    children = detail["children"]
    assert [(c["title"], c["status"]) for c in children] == [
        ("Read the notes", "succeeded"), ("Write the summary", "succeeded"), ("Check the links", "succeeded")]
    progress = [e["payload"]["progress"] for e in detail["timeline"]
                if e["type"] == "task.status_changed" and e["payload"].get("progress") is not None]
    assert progress == sorted(progress) and {33, 66, 100} <= set(progress)
    summaries = [e["payload"].get("summary") for e in detail["timeline"] if e["type"] == "task.status_changed"]
    assert "Tool: Read notes.md" in summaries and "Done: Read notes.md" in summaries
    assert "Plan: 1 of 3 done; now: Write the summary" in summaries
    # Each child went through the states the hub allows: queued → running → succeeded.
    for child in children:
        moves = [e["payload"]["status"] for e in of_type(h.app, "task.status_changed", taskId=child["id"])]
        assert moves == ["running", "succeeded"], (child["title"], moves)
    await h.reply(lambda text: text == "Plan done.")


async def test_permission_request_is_answered_from_the_app(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)

    async def answer(task_id: str, response: dict[str, Any]) -> tuple[dict[str, Any], str]:
        await h.task(task_id, "permission")
        spec = await h.interaction(task_id)
        await h.app.event("task.status_changed", taskId=task_id, status="waiting_for_human")
        await h.app.ok("interaction.respond", {"interactionId": spec["id"], "response": response})
        await h.ended(task_id, "succeeded")
        said = await h.reply(lambda text: text.startswith("Permission outcome"), task_id=task_id)
        return spec, said["payload"]["content"]

    said: Any  # a reply's text, then a frame
    spec, said = await answer("t1", {"optionId": "allow_once"})
    # `rm -rf build/` deletes a folder inside the project: medium, saying so (docs/security.md#how-the-hub-judges-the-risk)
    assert spec["type"] == "approval" and spec["title"] == "Allow Delete build/?" and spec["risk"] == "medium"
    # "Always allow deleting" (an agent's own rule, of a width LineUp cannot state) is left out beside "Allow once"
    # (hub/acp/permission.py; tests/integration/test_approval_sources.py).
    assert [(o["id"], o["label"], o.get("style")) for o in spec["options"]] == [
        ("allow_once", "Allow once", "primary"), ("reject_once", "Reject", "danger"),
        ("reject_always", "Never allow", "danger")]
    # What it approves travels whole in `approves` (the hub judged it), not as a clipped copy in details.
    assert spec["details"] == {"kind": "Deletes files"}  # in words, without the agent's call id
    assert spec["approves"][0]["kind"] == "command" and spec["approves"][0]["command"] == "rm -rf build/"
    assert "deletes build/ in the project" in spec["riskReasons"]
    assert said == "Permission outcome: selected opt-allow-once"
    # A reject option is the agent's own reject option (the hub records the card as declined) ...
    assert (await answer("t2", {"optionId": "reject_once"}))[1] == "Permission outcome: selected opt-reject-once"
    # ... and a refusal without an option is ACP's "cancelled" outcome.
    assert (await answer("t3", {"declined": True}))[1] == "Permission outcome: cancelled"
    # A person's message that leads to a permission request: the card belongs to the conversation only.
    start = len(h.app.frames)
    await h.app.ok("message.create", {"content": "permission"}, conversationId="c1")
    requested = await h.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence"), 15, start)
    assert requested.get("taskId") is None and requested["conversationId"] == "c1"
    await h.app.ok("interaction.respond", {"interactionId": requested["payload"]["interaction"]["id"],
                                           "response": {"optionId": "allow_once"}})
    said = await h.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence")
                                and f["payload"]["content"].startswith("Permission outcome"), 15, start)
    assert said["payload"]["content"] == "Permission outcome: selected opt-allow-once" and not said.get("taskId")
    answers = [a["outcome"] for a in h.received("permission/answer")]
    assert answers == ["selected opt-allow-once", "selected opt-reject-once", "cancelled",
                       "selected opt-allow-once"]
    outcomes = [f["payload"]["outcome"] for f in of_type(h.app, "interaction.resolved")]
    assert outcomes == ["answered", "declined", "declined", "answered"]


async def test_cancel_sends_session_cancel(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t1", "wait")
    await h.app.wait_for(lambda f: f["type"] == "message.delta" and f["payload"]["text"] == "Working until cancelled",
                         15)
    assert h.received("session/cancel") == []
    await h.app.ok("task.cancel_requested", {"reason": "enough"}, taskId="t1")
    cancelled = await h.ended("t1", "cancelled")
    assert cancelled.get("cause") != "cancel_timeout" and cancelled["summary"] == "Stopped on request"
    assert [c["sessionId"] for c in h.received("session/cancel")] == ["s1"]
    await h.reply(lambda text: text == "Working until cancelled")  # what was streamed is kept

    # Waiting for the person: the hub cancels at once, and the pending permission request is answered cancelled.
    await h.task("t2", "permission")
    await h.app.event("task.status_changed", 15, taskId="t2", status="waiting_for_human")
    await h.app.ok("task.cancel_requested", {}, taskId="t2")
    await h.ended("t2", "cancelled")

    async def both_arrived() -> bool:  # in either order: the two travel separately
        return bool(h.received("permission/answer")) and len(h.received("session/cancel")) == 2

    await eventually(both_arrived)
    assert [a["outcome"] for a in h.received("permission/answer")] == ["cancelled"]
    assert [c["sessionId"] for c in h.received("session/cancel")] == ["s1", "s1"]


async def test_failures_and_a_restart_after_the_agent_dies(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t1", "refuse")
    refused = await h.ended("t1", "failed")
    assert refused["error"]["code"] == "refusal" and "refused" in refused["error"]["message"]

    await h.task("t2", "die")
    died = await h.ended("t2", "failed")
    assert died["error"]["code"] == "agent_exited"
    assert "exited with code 3" in died["error"]["message"]
    assert "exiting on purpose" in died["error"]["message"]  # the end of its stderr

    # The next task starts the agent again, in a new session for the conversation.
    await h.task("t3", "still there?")
    await h.ended("t3", "succeeded")
    assert (await h.reply(lambda text: "still there?" in text))["payload"]["content"] == \
        "session s2 turn 1: you said still there?"
    assert len({i["pid"] for i in h.received("initialize")}) == 2


@pytest.mark.hub_process  # kill -9
async def test_a_conversation_keeps_its_session_across_a_hub_crash(hub_factory: HubFactory, lap: Connect,
                                                                   tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path, env={"ACP_TEST_LOAD_SESSIONS": "1"})
    await h.app.ok("message.create", {"content": "before"}, conversationId="c1")
    assert (await h.reply(lambda text: "before" in text))["payload"]["content"] == \
        "session s1 turn 1: you said before"
    await h.app.close()
    h.hub.kill()  # kill -9: the supervised agent's cursor may be older than "before", which then comes again
    h.hub.start()
    h.app = await lap(h.hub, "app", h.api.token)
    await h.app.ok("message.create", {"content": "after"}, conversationId="c1")
    assert (await h.reply(lambda text: "after" in text, timeout=20))["payload"]["content"] == \
        "session s1 turn 2: you said after"
    assert [e["sessionId"] for e in h.received("session/load")] == ["s1"]
    assert len(h.received("session/new")) == 1
    assert [p["text"] for p in h.received("session/prompt")] == ["before", "after"]  # "before" not asked twice


async def test_history_replayed_late_after_a_session_load_is_not_shown_as_the_reply(
        hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path, env={"ACP_TEST_LOAD_SESSIONS": "1",
                                                             "ACP_TEST_REPLAY_LATE": "1"})
    await h.app.ok("message.create", {"content": "before"}, conversationId="c1")
    await h.reply(lambda text: "before" in text)
    await h.app.close()
    h.hub.stop()
    h.hub.start()
    h.app = await lap(h.hub, "app", h.api.token)
    await h.app.ok("message.create", {"content": "after"}, conversationId="c1")
    reply = await h.reply(lambda text: "after" in text, timeout=20)
    assert [e["sessionId"] for e in h.received("session/load")] == ["s1"]
    assert reply["payload"]["content"] == "session s1 turn 2: you said after"


async def test_file_access_and_terminals_when_configured(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello from the notes")
    h = await start_acp_hub(hub_factory, lap, tmp_path, f"cwd = {json.dumps(str(work))}", "fs = true",
                            "terminal = true")
    [init] = h.received("initialize")
    assert init["clientCapabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
    assert init["clientCapabilities"]["terminal"] is True

    async def run(task_id: str, title: str, prefix: str) -> str:
        await h.task(task_id, title)
        await h.ended(task_id, "succeeded")
        return str((await h.reply(lambda text: text.startswith(prefix), task_id=task_id))["payload"]["content"])

    assert await run("t1", f"read {work / 'notes.txt'}", "read") == "read: hello from the notes"
    assert "is not inside the working directory" in await run("t2", "read /etc/hostname", "read")
    assert await run("t3", f"write {work / 'out' / 'new.txt'} written by the agent", "wrote") == \
        f"wrote {work / 'out' / 'new.txt'}"
    assert (work / "out" / "new.txt").read_text() == "written by the agent"
    assert await run("t4", "terminal cat notes.txt", "terminal") == "terminal: hello from the notes (exit 0)"
    assert h.received("session/new")[0]["cwd"] == str(work.resolve())


# ---- a published ACP agent ----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def published_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`claude-code-acp` from the shared npm prefix when it has the pinned version (an npm install costs the
    suite ~7 s of CPU), else installed with npm into a temporary folder, or a skip saying why it is not there."""
    shared = NPM_PREFIX / "node_modules" / ".bin" / "claude-code-acp"
    try:
        version = json.loads((NPM_PREFIX / "node_modules" / PUBLISHED_AGENT / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        version = ""
    if shared.exists() and (version == PUBLISHED_VERSION or version.startswith(PUBLISHED_VERSION + ".")):
        yield shared
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the published ACP agent cannot be installed here")
    prefix = tmp_path_factory.mktemp("npm-acp")
    try:
        result = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--prefer-offline",
                                 "--fetch-retries=1", "--loglevel=error", f"{PUBLISHED_AGENT}@{PUBLISHED_VERSION}"],
                                capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {PUBLISHED_AGENT} did not finish within 120 s")
    binary = prefix / "node_modules" / ".bin" / "claude-code-acp"
    if result.returncode != 0 or not binary.exists():
        pytest.skip(f"npm install {PUBLISHED_AGENT} failed (exit {result.returncode}): {result.stderr[-500:]}")
    yield binary


@pytest.mark.real_agent
async def test_published_agent_initialize_and_session_new(published_agent: Path, tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = {"HOME": str(home),                                 # no stored sign-in, nothing of the real user's
           "ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # no model can be reached
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # Claude Code refuses to start as root unless told it runs in a sandbox
    # The same runtime code the hub runs; the SDK client is never connected (no task reaches it here).
    client = AgentClient(Credential("http://127.0.0.1:9", "agent", "workspace", "unused"))
    config = AgentConfig("Claude Code", "acp", [str(published_agent)], cwd=work, env=env,
                         options={"kill_grace_s": 1.0})
    runtime = AcpRuntime(config, client)
    try:
        await runtime.start()  # spawn + `initialize`, as the supervisor does
        agent = runtime.agent
        assert agent is not None and agent.info is not None, "initialize failed (see the log)"
        assert agent.info.protocol_version == 1
        assert agent.info.agent_info is not None and "claude-code-acp" in agent.info.agent_info.name
        assert client.agent_version.startswith("Claude Code ")  # what the app would show
        try:
            session_id = await runtime.open_session("c1")
        except TurnError as exc:  # a proper ACP answer that it needs a sign-in first is fine
            assert exc.code == "auth_required", exc.message
            print(f"{PUBLISHED_AGENT} {agent.info.agent_info.version}: session/new needs a sign-in")
        else:
            assert session_id and runtime.sessions_by_acp_id[session_id].key == "c1"
            print(f"{PUBLISHED_AGENT} {agent.info.agent_info.version}: session/new opened {session_id}")
        assert agent.alive, agent.describe_exit()
    finally:
        await runtime.stop()
    assert agent.returncode is not None


async def test_an_agent_that_stops_waiting_withdraws_its_card(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    """The agent gives up on its own (as Hermes denies by itself after 60 s): the card must not stay approvable, and
    the task, whose command did not run, does not end as succeeded (it did: the turn's end_turn counted)."""
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t1", "impatient 1")
    spec = await h.interaction("t1")
    assert spec["approves"][0]["command"] == "git push origin main" and spec["risk"] == "high"
    closed = await h.app.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                  and f["payload"]["interactionId"] == spec["id"], 15)
    assert closed["payload"]["outcome"] == "cancelled"
    assert closed["payload"]["response"] == {"cause": "withdrawn",
                                             "reason": "The agent stopped waiting for this answer and went on."}
    assert h.received("permission/gave_up")
    late = await h.app.request("interaction.respond", {"interactionId": spec["id"],
                                                       "response": {"optionId": "allow_once"}})
    assert late["type"] == "system.error" and "withdrew" in late["payload"]["message"]
    ended = await h.ended("t1", "failed")
    assert ended["error"] == {"code": "approval_timed_out", "message": "Nobody answered in time, so the agent denied "
                              "this request and did not run it: “git push”: The agent stopped waiting for the answer "
                              "and denied it by itself."}, ended


async def test_a_prompt_the_bridge_could_not_send_goes_again_on_a_fresh_bridge(hub_factory: HubFactory, lap: Connect,
                                                                              tmp_path: Path) -> None:
    """OpenClaw's `openclaw acp` answers a prompt with "gateway not connected" for seconds after its Gateway restarts:
    the prompt never left it. The task failed with that error; now the hub starts a fresh bridge (which connects as it
    starts) and sends the prompt again on it, once."""
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t1", "bridge_down")
    ended = await h.ended("t1", "succeeded", timeout=30)
    assert ended["summary"] == "bridge up", ended
    assert len(h.received("initialize")) == 2  # the bridge that could not send it was replaced
    assert [p["text"] for p in h.received("session/prompt")] == ["bridge_down", "bridge_down"]


async def test_a_bridge_that_lost_its_service_mid_turn_ends_the_task_saying_so(hub_factory: HubFactory, lap: Connect,
                                                                             tmp_path: Path) -> None:
    """The bridge's link to its service dropped while the turn waited on a card ("Gateway disconnected: 1006"): the
    task ends saying so (not "Internal error {'details': …}"), the run is cancelled where it may still run, its card
    ends, and the next task gets a fresh bridge and a new session."""
    h = await start_acp_hub(hub_factory, lap, tmp_path, 'unavailable_hint = "Start the Gateway."',
                            env={"ACP_TEST_LOAD_SESSIONS": "1"})
    await h.task("t1", "link_lost")
    card = await h.interaction("t1")
    ended = await h.ended("t1", "failed", timeout=30)
    assert ended["error"]["code"] == "agent_disconnected", ended
    assert ended["error"]["message"].startswith("The agent lost its link to the service it runs on while this task "
                                                "ran (Gateway disconnected: 1006:)"), ended
    assert ended["error"]["message"].endswith("\nStart the Gateway."), ended
    # The cancel goes to the agent as the task ends; the agent logs it once it has read it.
    await eventually(lambda: h.received("session/cancel"), what="what the service may still run of it is cancelled")
    closed = await h.app.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                  and f["payload"]["interactionId"] == card["id"], 15)
    assert closed["payload"]["outcome"] == "cancelled"
    await h.task("t2", "hello")
    await h.ended("t2", "succeeded")
    assert len(h.received("initialize")) == 2
    # The cut session is not loaded again (OpenClaw reruns its interrupted turn by itself, and a prompt queued behind
    # that was counted done at once): the conversation goes on in a new one.
    assert not h.received("session/load") and len(h.received("session/new")) == 2


async def test_an_agent_with_a_known_deadline_shows_it_and_its_card_runs_out(hub_factory: HubFactory, lap: Connect,
                                                                           tmp_path: Path) -> None:
    """`permission_timeout_s` (Hermes denies by itself after 60 s and tells the client nothing): the card carries the
    deadline from the start and ends, as withdrawn saying why, when the agent has stopped waiting."""
    h = await start_acp_hub(hub_factory, lap, tmp_path, "permission_timeout_s = 3")
    asked_at = datetime.now(UTC)
    await h.task("t1", "impatient 30")  # the scripted agent itself would wait 30 s: only the deadline ends it
    spec = await h.interaction("t1")
    deadline = datetime.fromisoformat(spec["expiresAt"].replace("Z", "+00:00"))
    assert timedelta(seconds=1) <= deadline - asked_at <= timedelta(seconds=5)
    closed = await h.app.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                  and f["payload"]["interactionId"] == spec["id"], 15)
    assert closed["payload"]["outcome"] == "cancelled"
    assert closed["payload"]["response"] == {
        "cause": "withdrawn", "reason": "The agent stops waiting after 3 s and denies by itself: this card ran out."}
    assert datetime.fromisoformat(closed["occurredAt"].replace("Z", "+00:00")) < deadline  # before the hub's expiry
    ended = await h.ended("t1", "failed")  # not succeeded: nobody allowed the command, so it did not run
    assert ended["error"]["code"] == "approval_timed_out", ended
    assert "“git push”: The agent stops waiting after 3 s and denies by itself" in ended["error"]["message"], ended
