"""`lineup connect codex` and `lineup connect gemini` (docs/agents.md) against a real hub: the CLI pairs, merges
LineUp's MCP server and turn-finished hook into the agent's own config (the person's lines kept; --remove gives the file
back), and the hook a finished turn runs posts it as a succeeded task; the hub away, the hook still exits 0 at
once. With the published Codex CLI (shared npm prefix), a real `codex exec` turn against the fake Responses API
reaches the app through the `notify` program that `lineup connect codex` wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.hubproc import HubProcess
from tests.support.live import Api, eventually
from tests.support.needs import missing

NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX") or Path.home() / ".cache" / "lineup-agents" / "npm")
CODEX_CONFIG = """# my Codex settings
model = "gpt-5-codex"   # keep this comment

[model_providers.fake]
name = "Fake"
"""


def lineup(*args: str, env: dict[str, str] | None = None, stdin: str = "", check: bool = True,
           timeout: float = 60) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "hub", *args], capture_output=True, text=True, input=stdin,
                          timeout=timeout, env={**os.environ, **(env or {})})
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


async def agent_named(api: Api, name: str) -> dict[str, Any] | None:
    return next((a for a in (await api.get("/api/agents"))["agents"] if a["name"] == name), None)


async def finished_tasks(api: Api) -> list[dict[str, Any]]:
    return list((await api.get("/api/tasks", status="succeeded"))["tasks"])


def connect(hub: HubProcess, cli: str, target: list[str], credential: Path, env: dict[str, str]) -> str:
    return lineup("connect", cli, *target, "--hub", hub.base, "--code", hub.pairing_code(),
                  "--credential-file", str(credential), env=env).stdout


async def test_connect_codex_merges_posts_turns_and_removes(hub: HubProcess, tmp_path: Path) -> None:
    api = Api(hub, hub.token())
    codex_home, credential = tmp_path / "codex-home", tmp_path / "cred" / "codex.json"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    config.write_text(CODEX_CONFIG)
    env = {"CODEX_HOME": str(codex_home)}
    out = connect(hub, "codex", ["--user"], credential, env)
    assert "connected" in out
    assert (await agent_named(api, "Codex")) is not None  # paired at once: a wrong code would have failed here

    written = tomllib.loads(config.read_text())
    assert written["model"] == "gpt-5-codex" and written["model_providers"]["fake"]["name"] == "Fake"
    server = written["mcp_servers"]["lineup"]
    assert server["args"][-5:] == ["mcp", "--name", "Codex", "--credential-file", str(credential)]
    assert server["tool_timeout_sec"] == 3600 and server["default_tools_approval_mode"] == "approve"
    assert written["notify"][-4:] == ["hook", "codex-notify", "--credential-file", str(credential)]
    assert "# keep this comment" in config.read_text()

    # Connecting again (no code: the stored credential) replaces our lines instead of adding a second set.
    lineup("connect", "codex", "--user", "--credential-file", str(credential), env=env)
    assert config.read_text().count("[mcp_servers.lineup]") == 1 and config.read_text().count("notify =") == 1

    # The notify program as Codex runs it: the event as its last argument.
    event = {"type": "agent-turn-complete", "thread-id": "th-1", "turn-id": "tu-1", "cwd": str(tmp_path),
             "input-messages": ["Rename foo to bar"], "last-assistant-message": "Renamed foo to bar; tests pass."}
    lineup(*written["notify"][1:], json.dumps(event))
    [task] = await eventually(lambda: finished_tasks(api), timeout=10)
    assert task["title"] == "Rename foo to bar" and task["summary"] == "Renamed foo to bar; tests pass."
    lineup(*written["notify"][1:], json.dumps(event))  # told twice: still one task
    # Interactive Codex sends the thread's earlier prompts too (seen in a walkthrough): the newest is the turn's.
    lineup(*written["notify"][1:], json.dumps({**event, "turn-id": "tu-2",
                                               "input-messages": ["Rename foo to bar", "Now the docs"]}))
    tasks = await eventually(lambda: _at_least(finished_tasks(api), 2), timeout=10)
    assert sorted(t["title"] for t in tasks) == ["Now the docs", "Rename foo to bar"]
    assert len({t["conversationId"] for t in tasks}) == 1  # one Codex session, one conversation

    removed = lineup("connect", "codex", "--user", "--remove", env=env).stdout
    assert "Removed" in removed and "The agent stays paired" in removed
    assert config.read_text() == CODEX_CONFIG


async def _at_least(tasks: Any, n: int) -> list[dict[str, Any]] | None:
    got = await tasks
    return got if len(got) >= n else None


def test_codex_keeps_a_notify_program_of_its_own(hub: HubProcess, tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text('notify = ["my-notifier", "--loud"]\n')
    out = connect(hub, "codex", ["--user"], tmp_path / "codex.json", {"CODEX_HOME": str(codex_home)})
    assert "already runs a `notify` program" in out
    written = tomllib.loads((codex_home / "config.toml").read_text())
    assert written["notify"] == ["my-notifier", "--loud"] and "lineup" in written["mcp_servers"]
    # A config that already names a server `lineup` (not ours) is refused and left alone.
    other = tmp_path / "other"
    (other / ".codex").mkdir(parents=True)
    (other / ".codex" / "config.toml").write_text('[mcp_servers.lineup]\ncommand = "mine"\n')
    refused = lineup("connect", "codex", "--dir", str(other), "--credential-file", str(tmp_path / "codex.json"),
                     check=False)
    assert refused.returncode != 0 and "already has [mcp_servers.lineup]" in refused.stderr
    assert (other / ".codex" / "config.toml").read_text() == '[mcp_servers.lineup]\ncommand = "mine"\n'


async def test_connect_gemini_merges_posts_turns_and_removes(hub: HubProcess, tmp_path: Path) -> None:
    api = Api(hub, hub.token())
    project, credential = tmp_path / "project", tmp_path / "gemini.json"
    (project / ".gemini").mkdir(parents=True)
    settings = project / ".gemini" / "settings.json"
    mine: dict[str, Any] = {"theme": "Dracula", "mcpServers": {"other": {"command": "other-server"}},
            "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "my-hook"}]}]}}
    settings.write_text(json.dumps(mine))
    connect(hub, "gemini", ["--dir", str(project)], credential, {})
    written = json.loads(settings.read_text())
    assert written["theme"] == "Dracula" and written["mcpServers"]["other"] == {"command": "other-server"}
    server = written["mcpServers"]["lineup"]
    assert server["trust"] is True and server["args"][-5:] == ["mcp", "--name", "Gemini CLI", "--credential-file",
                                                              str(credential)]
    [theirs, ours] = written["hooks"]["AfterAgent"]
    assert theirs == mine["hooks"]["AfterAgent"][0]
    hook_command = ours["hooks"][0]["command"]
    assert hook_command.endswith(f"hook gemini-turn --credential-file {credential}")

    # The hook as Gemini CLI runs it: JSON on stdin, JSON (nothing to change) on stdout.
    event = {"session_id": "s-1", "cwd": str(project), "hook_event_name": "AfterAgent",
             "timestamp": "2026-01-01T00:00:00Z", "prompt": "Summarise the README",
             "prompt_response": "It explains LineUp.", "stop_hook_active": False}
    done = subprocess.run(hook_command, shell=True, input=json.dumps(event), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout) == {}
    [task] = await eventually(lambda: finished_tasks(api), timeout=10)
    assert task["title"] == "Summarise the README" and task["summary"] == "It explains LineUp."

    assert "The agent stays paired" in lineup("connect", "gemini", "--dir", str(project), "--remove").stdout
    assert json.loads(settings.read_text()) == mine


def test_the_hooks_never_hold_the_cli_up_when_the_hub_is_away(hub: HubProcess, tmp_path: Path) -> None:
    credential = tmp_path / "codex.json"
    codex_home = tmp_path / "codex-home"
    connect(hub, "codex", ["--user"], credential, {"CODEX_HOME": str(codex_home)})
    hub.stop()
    event = {"type": "agent-turn-complete", "thread-id": "t", "input-messages": ["x"], "last-assistant-message": "y"}
    started = time.monotonic()
    done = lineup("hook", "codex-notify", "--credential-file", str(credential), json.dumps(event))
    assert time.monotonic() - started < 30
    # Given up at once on the refused connection, as the Claude Code hooks do, not after the SDK's connect timeout
    # ("Could not connect ... within 5.0 s"): Gemini CLI waits for its AfterAgent hook before the next prompt.
    assert done.returncode == 0 and "not posted" in done.stderr and "does not answer" in done.stderr, done.stderr
    gemini = lineup("hook", "gemini-turn", "--credential-file", str(credential),
                    stdin=json.dumps({"hook_event_name": "AfterAgent", "prompt": "x", "prompt_response": "y"}))
    assert json.loads(gemini.stdout) == {} and "does not answer" in gemini.stderr, gemini.stderr


def codex_cli() -> Path:
    binary = NPM_PREFIX / "node_modules" / ".bin" / "codex"
    if not binary.exists():
        message = f"codex is not installed in {NPM_PREFIX}: `bash .ci/run` installs the agent CLIs there"
        missing(message)
    return binary


@pytest.mark.real_agent
async def test_real_codex_turn_reaches_the_app(hub: HubProcess, tmp_path: Path) -> None:
    from tests.support.fake_models import text
    from tests.support.fake_models.openai_responses import FakeOpenAIResponses

    codex = codex_cli()
    api = Api(hub, hub.token())
    home, work = tmp_path / "home", tmp_path / "work"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    work.mkdir()
    model = FakeOpenAIResponses([text("All done: nothing needed changing.")])
    try:
        (codex_home / "config.toml").write_text("\n".join([
            'model = "gpt-5-codex"', 'model_provider = "fake"', 'approval_policy = "never"',
            'sandbox_mode = "danger-full-access"', "", "[model_providers.fake]", 'name = "Fake"',
            f"base_url = {json.dumps(model.base_url)}", 'env_key = "FAKE_OPENAI_API_KEY"',
            'wire_api = "responses"', ""]))
        env = {"HOME": str(home), "CODEX_HOME": str(codex_home), "FAKE_OPENAI_API_KEY": "sk-test-not-a-secret",
               "NO_COLOR": "1", "DO_NOT_TRACK": "1"}
        connect(hub, "codex", ["--user"], tmp_path / "codex.json", env)
        listed = subprocess.run([str(codex), "mcp", "list"], capture_output=True, text=True, timeout=60,
                                env={**os.environ, **env}, cwd=work)
        assert "lineup" in listed.stdout, (listed.stdout, listed.stderr)  # Codex takes the merged config

        started = time.monotonic()
        run = subprocess.run([str(codex), "exec", "--skip-git-repo-check", "Check the project"], cwd=work,
                             capture_output=True, text=True, timeout=180, env={**os.environ, **env},
                             stdin=subprocess.DEVNULL)
        assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-4000:])
        [task] = await eventually(lambda: finished_tasks(api), timeout=30)
        print(f"codex exec turn to a finished task in the app: {time.monotonic() - started:.1f} s")
        assert task["title"] == "Check the project" and task["summary"] == "All done: nothing needed changing."
    finally:
        model.close()
