"""The published ACP agents, run by a real hub as `[[agents]]`, against scripted fake model APIs on loopback.

claude-code-acp (Claude Code through the Anthropic Messages API), codex-acp (Codex through the OpenAI Responses
API) and `gemini --acp` (Gemini CLI through the Gemini API) are taken from the npm prefix `.ci/run` fills
(LINEUP_TEST_NPM_PREFIX). In each test the fake model makes the agent want to run a shell command; the agent's
permission request arrives in the app as an approval card, and the person's answer decides whether the command
runs. Cancelling mid-turn, killing the agent process mid-turn and restarting the hub between turns are covered
too. No request leaves loopback: every CLI gets a scratch HOME and the fake's address, and telemetry is off.

A test skips when the CLI is not installed, except in CI (CI set), where that is a failure.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

from tests.integration.conftest import Connect
from tests.support.fake_models import Reply, Step, text, tool
from tests.support.fake_models import gemini as gemini_api
from tests.support.fake_models import openai_responses as openai_api
from tests.support.fake_models.anthropic import FakeAnthropic
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient
from tests.support.live import Api, eventually
from tests.support.needs import missing

pytestmark = pytest.mark.real_agent

NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX") or Path.home() / ".cache" / "lineup-agents" / "npm")
TURN_S = 90.0  # a real CLI's first turn (start-up, side requests, the tool call, the answer) on a slow machine


def cli(name: str) -> Path:
    """The CLI from the shared npm prefix, or a skip (outside CI) / failure (in CI) saying how to get it."""
    binary = NPM_PREFIX / "node_modules" / ".bin" / name
    if not binary.exists():
        message = (f"{name} is not installed in {NPM_PREFIX}: `bash .ci/run` installs the agent CLIs there "
                   "(or set LINEUP_TEST_NPM_PREFIX to a prefix that has them)")
        missing(message)
    return binary


# ---- the three agents and their fake models ---------------------------------------------------------------

@dataclass
class Agent:
    """One published agent set up against its fake model: the command and environment for lineup.toml."""

    name: str
    command: list[str]
    env: dict[str, str]
    model: Any                                      # the fake API server (requests, close())
    shell: Callable[..., Step]                      # a scripted reply running a shell command
    home: Path
    work: Path

    def close(self) -> None:
        self.model.close()


def base_env(home: Path) -> dict[str, str]:
    env = {"HOME": str(home), "DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1", "NO_COLOR": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache")}
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # Claude Code refuses to skip its checks as root unless told it is in a sandbox
    return env


def claude_agent(home: Path, work: Path, steps: list[Step]) -> Agent:
    binary = cli("claude-code-acp")
    model = FakeAnthropic(steps)
    env = {**base_env(home), "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-test-not-a-secret"}

    def shell(command: str, **kwargs: Any) -> Reply:
        return tool("Bash", {"command": command, "description": "Run the command the task asks for"}, **kwargs)
    return Agent("Claude Code", [str(binary)], env, model, shell, home, work)


def codex_agent(home: Path, work: Path, steps: list[Step]) -> Agent:
    binary = cli("codex-acp")
    model = openai_api.FakeOpenAIResponses(steps)
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    # "untrusted": every command that is not a known read-only one asks first; the sandbox is off in tests
    # (Codex's own needs bubblewrap and user namespaces), so the approval is the only gate.
    (codex_home / "config.toml").write_text("\n".join([
        'model = "gpt-5.3-codex"', 'model_provider = "fake"', 'approval_policy = "untrusted"',
        'sandbox_mode = "danger-full-access"', "", "[model_providers.fake]", 'name = "Fake"',
        f"base_url = {json.dumps(model.base_url)}", 'env_key = "FAKE_OPENAI_API_KEY"', 'wire_api = "responses"',
        "", f"[projects.{json.dumps(str(work))}]", 'trust_level = "trusted"', ""]))
    env = {**base_env(home), "CODEX_HOME": str(codex_home), "FAKE_OPENAI_API_KEY": "sk-test-not-a-secret"}
    return Agent("Codex", [str(binary)], env, model, openai_api.shell, home, work)


def gemini_agent(home: Path, work: Path, steps: list[Step]) -> Agent:
    binary = cli("gemini")
    model = gemini_api.FakeGemini(steps)
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"},
                                                 "folderTrust": {"enabled": False}},
                                    "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
                                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}))
    env = {**base_env(home), "GOOGLE_GEMINI_BASE_URL": model.url, "GEMINI_API_KEY": "test-not-a-secret",
           "GEMINI_CLI_NO_RELAUNCH": "1"}
    return Agent("Gemini", [str(binary), "--acp"], env, model, gemini_api.shell, home, work)


MAKERS = {"claude": claude_agent, "codex": codex_agent, "gemini": gemini_agent}


# ---- a hub running one of them ----------------------------------------------------------------------------

@dataclass
class RealAgentHub:
    """A hub supervising one published agent, an app socket, and the agent's fake model."""

    hub: HubProcess
    api: Api
    app: LapClient
    agent_id: str
    agent: Agent
    lap: Connect
    frames_seen: int = 0
    durations: dict[str, float] = field(default_factory=dict)

    async def task(self, task_id: str, title: str, conversation_id: str = "c1") -> None:
        await self.app.ok("task.create", {"title": title}, taskId=task_id, conversationId=conversation_id)

    async def ended(self, task_id: str, *statuses: str, timeout: float = TURN_S) -> dict[str, Any]:
        frame = await self.app.wait_for(
            lambda f: f["type"] == "task.status_changed" and f.get("sequence") is not None
            and f.get("taskId") == task_id and f["payload"]["status"] in ("succeeded", "failed", "cancelled"),
            timeout)
        assert frame["payload"]["status"] in statuses, frame["payload"]
        return dict(frame["payload"])

    async def card(self, task_id: str) -> dict[str, Any]:
        frame = await self.app.event("interaction.requested", TURN_S, taskId=task_id)
        return dict(frame["payload"]["interaction"])

    async def answer(self, card: dict[str, Any], kind: str) -> str:
        """Choose the card's option of `kind` (allow_once, reject_once, ...); returns the option's label."""
        option = next(o for o in card["options"] if o["id"] == kind)
        await self.app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": kind}})
        return str(option["label"])

    async def reconnect(self) -> None:
        self.app = await self.lap(self.hub, "app", self.api.token)
        self.agent_id = await agent_online(self.api, self.agent.name)


async def agent_online(api: Api, name: str) -> str:
    async def online() -> str | None:
        agents = (await api.get("/api/agents"))["agents"]
        return next((a["id"] for a in agents if a["name"] == name and a["status"] == "online"), None)
    return str(await eventually(online, timeout=60))


async def start_hub(hub_factory: HubFactory, lap: Connect, agent: Agent, *extra: str) -> RealAgentHub:
    hub: HubProcess = hub_factory(start=False)
    token = hub.token()  # makes the workspace, which the supervisor pairs its agents into
    config = ["[[agents]]", f"name = {json.dumps(agent.name)}", 'runtime = "acp"',
              "command = [" + ", ".join(json.dumps(part) for part in agent.command) + "]",
              f"cwd = {json.dumps(str(agent.work))}", "init_timeout_s = 60", "cancel_grace_s = 20",
              "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in agent.env.items()) + " }", *extra]
    (hub.data_dir / "lineup.toml").write_text("\n".join(config) + "\n")  # JSON strings are TOML strings
    hub.start()
    api = Api(hub, token)
    agent_id = await agent_online(api, agent.name)
    app = await lap(hub, "app", token)
    h = RealAgentHub(hub, api, app, agent_id, agent, lap)
    await app.ok("conversation.create", {"title": "Real agent", "agentIds": [agent_id]}, conversationId="c1")
    return h


def agent_root_pids(home: Path) -> list[int]:
    """The agent processes the hub started for this test: group leaders whose HOME is the test's scratch HOME and
    whose parent is not one of them.

    The parent rule is there because an agent may start helpers in process groups of their own (Codex runs its
    shell snapshot and git this way; CI once saw two such leaders at once), and those are the agent's, not the
    hub's. An agent left behind by a stopped hub has lost its parent to init and still counts."""
    marker = f"HOME={home}".encode()
    marked: dict[int, int] = {}  # pid -> parent pid, of every process with the test's HOME
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                # /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after its ")"
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                marked[int(entry.name)] = int(fields[1]) if int(fields[2]) == int(entry.name) else -1
        except (OSError, ValueError, IndexError):
            continue  # the process ended while it was read
    return sorted(pid for pid, parent in marked.items() if parent != -1 and parent not in marked)


@pytest.fixture
def make_agent(tmp_path: Path) -> Iterator[Callable[[str, Callable[[Agent], list[Step]]], Agent]]:
    """`make_agent(kind, script)`: the agent of that kind with a scratch HOME and work folder, its fake model
    scripted by `script(agent)`; the fake stops at the end of the test."""
    made: list[Agent] = []

    def make(kind: str, script: Callable[[Agent], list[Step]]) -> Agent:
        home, work = tmp_path / f"{kind}-home", tmp_path / f"{kind}-work"
        home.mkdir()
        work.mkdir()
        holder: list[Step] = []
        agent = MAKERS[kind](home, work, holder)  # the script refers to the agent's own shell step
        agent.model.script.add(*script(agent))
        made.append(agent)
        return agent

    yield make
    for agent in made:
        agent.close()


def tool_outputs(agent: Agent) -> list[Any]:
    """What the agent sent back to its model as the results of tool calls, in that API's own shape."""
    model = agent.model
    if isinstance(model, FakeAnthropic):
        return model.tool_results()
    if isinstance(model, openai_api.FakeOpenAIResponses):
        return model.function_call_outputs()
    return list(model.function_responses())


def touch_script(agent: Agent) -> list[Step]:
    return [agent.shell(f"touch {agent.work / 'made.txt'}", say="I will create the file."),
            text("The command has run; the file is there.")]


# ---- allow and reject, each agent ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
async def test_an_approved_command_runs(kind: str, hub_factory: HubFactory, lap: Connect, make_agent: Any) -> None:
    agent = make_agent(kind, touch_script)
    h = await start_hub(hub_factory, lap, agent)
    await h.task("t1", "Create made.txt in the project folder")
    card = await h.card("t1")
    assert card["type"] == "approval"
    assert {"allow_once", "reject_once"} <= {o["id"] for o in card["options"]}, card["options"]
    assert "made.txt" in json.dumps(card), card  # the person sees what would run
    assert "`" not in card["title"], card["title"]  # plain text (claude-code-acp titles a command as a code span)
    assert not (agent.work / "made.txt").exists()  # nothing ran before the answer
    await h.app.event("task.status_changed", 15, taskId="t1", status="waiting_for_human")
    answered = time.monotonic()
    await h.answer(card, "allow_once")
    await eventually(lambda: _async((agent.work / "made.txt").exists()), timeout=TURN_S)
    print(f"{kind}: approval round trip (answer sent -> command run) {1000 * (time.monotonic() - answered):.0f} ms")
    done = await h.ended("t1", "succeeded")
    assert tool_outputs(agent) != []  # the command's result went back to the model
    assert "file is there" in done["summary"]
    # What the agent said before the command and after it are messages of their own, in that order: the answer last.
    reply = await h.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                 and f.get("taskId") == "t1" and f["payload"]["author"]["kind"] == "agent"
                                 and "The command has run" in f["payload"]["content"], 15)
    said = [e["payload"]["content"] for e in h.app.events() if e["type"] == "message.created"
            and e.get("taskId") == "t1" and e["payload"]["author"]["kind"] == "agent"]
    assert said[-1] == reply["payload"]["content"], said
    assert agent.model.script.remaining == 0  # the model was asked again after the command's result


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
async def test_a_rejected_command_does_not_run(kind: str, hub_factory: HubFactory, lap: Connect, make_agent: Any) -> None:
    agent = make_agent(kind, lambda a: [a.shell(f"touch {a.work / 'made.txt'}"),
                                        text("Understood, I left the folder alone.")])
    h = await start_hub(hub_factory, lap, agent)
    await h.task("t1", "Create made.txt in the project folder")
    card = await h.card("t1")
    await h.answer(card, "reject_once")
    resolved = await h.app.event("interaction.resolved", 15, interactionId=card["id"])
    assert resolved["payload"]["outcome"] == "declined"
    # Each adapter ends the turn its own way after a refusal; none runs the command.
    if kind == "claude":  # claude-code-acp interrupts the turn: the model is not asked again
        done = await h.ended("t1", "succeeded")
        assert len(agent.model.main_requests()) == 1 and tool_outputs(agent) == []
    elif kind == "codex":  # "No, and tell Codex what to do differently" aborts the turn (stop reason cancelled)
        done = await h.ended("t1", "cancelled")
        assert "stopped this turn by itself" in done["summary"]  # nobody asked to cancel
        assert len(agent.model.main_requests()) == 1 and tool_outputs(agent) == []
    else:  # Gemini CLI tells the model the call was cancelled and lets it answer
        done = await h.ended("t1", "succeeded")
        assert done["summary"] == "Understood, I left the folder alone."
        [refused] = tool_outputs(agent)
        assert "canceled by the user" in refused["response"]["error"]
    assert not (agent.work / "made.txt").exists()


# ---- cancel, a killed agent, a hub restart ------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
async def test_cancel_mid_turn_keeps_the_agent(kind: str, hub_factory: HubFactory, lap: Connect, make_agent: Any) -> None:
    agent = make_agent(kind, lambda a: [text("Still thinking about it...", delay_s=60),
                                        text("Second task done.")])
    h = await start_hub(hub_factory, lap, agent)
    [pid] = await eventually(lambda: _pids(agent), timeout=30)
    await h.task("t1", "Think for a long time")
    await eventually(lambda: _async(agent.model.script.remaining == 1), timeout=TURN_S)  # the model is asked
    await h.app.ok("task.cancel_requested", {"reason": "enough"}, taskId="t1")
    cancelled = await h.ended("t1", "cancelled", timeout=30)
    assert cancelled.get("cause") != "cancel_timeout", cancelled  # the agent ended its turn itself
    # The agent process lives on and takes the next task in the same conversation.
    assert agent_root_pids(agent.home) == [pid]
    await h.task("t2", "Now something quick")
    done = await h.ended("t2", "succeeded")
    assert done["summary"] == "Second task done."
    assert agent_root_pids(agent.home) == [pid]


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
async def test_an_agent_killed_mid_turn_fails_the_task_and_is_restarted(kind: str, hub_factory: HubFactory, lap: Connect,
                                                                        make_agent: Any) -> None:
    agent = make_agent(kind, lambda a: [text("Working on it...", delay_s=60), text("Back again.")])
    h = await start_hub(hub_factory, lap, agent)
    [pid] = await eventually(lambda: _pids(agent), timeout=30)
    await h.task("t1", "Think for a long time")
    await eventually(lambda: _async(agent.model.script.remaining == 1), timeout=TURN_S)
    os.killpg(pid, signal.SIGKILL)
    failed = await h.ended("t1", "failed", timeout=30)
    assert failed["error"]["code"] == "agent_exited", failed
    assert "killed by signal 9" in failed["error"]["message"]
    await h.task("t2", "Are you back?")
    done = await h.ended("t2", "succeeded")
    assert done["summary"] == "Back again."
    [new_pid] = agent_root_pids(agent.home)
    assert new_pid != pid


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
async def test_a_hub_restart_between_turns(kind: str, hub_factory: HubFactory, lap: Connect, make_agent: Any) -> None:
    agent = make_agent(kind, lambda a: [text("First answer."), text("Second answer.")])
    h = await start_hub(hub_factory, lap, agent)
    await h.task("t1", "The first question")
    assert (await h.ended("t1", "succeeded"))["summary"] == "First answer."
    [pid] = agent_root_pids(agent.home)
    await h.app.close()
    h.hub.stop()  # the agent process stops with the hub
    assert agent_root_pids(agent.home) == []
    h.hub.start()
    await h.reconnect()
    await h.task("t2", "The second question")
    assert (await h.ended("t2", "succeeded"))["summary"] == "Second answer."
    assert agent_root_pids(agent.home) not in ([], [pid])
    last = json.dumps(agent.model.main_requests()[-1].body)
    assert "The second question" in last
    # claude-code-acp and codex-acp continue the conversation (session/load). Gemini CLI 0.61 sometimes does, and
    # sometimes answers session/load "No previous sessions found for this project", and the runtime starts a new
    # session: both were seen here. Why it varies is not known (perhaps whether its session file was written before
    # it was stopped); either way the second turn is answered.
    if kind != "gemini":
        assert "The first question" in last


async def _pids(agent: Agent) -> list[int] | None:
    return agent_root_pids(agent.home) or None


async def _async(value: Any) -> Any:
    return value
