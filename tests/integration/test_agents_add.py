"""`lineup agents add claude-code|codex|gemini` (docs/agents.md): the real CLI appends a valid `[[agents]]` entry to the
hub's lineup.toml (what was there kept byte for byte), `lineup runtimes` lists it, and a hub started on that data
folder runs it: here a stand-in `codex-acp` on PATH that is the scripted ACP agent, taken through a task."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import HubFactory
from tests.support.hubproc import run_cli
from tests.support.live import Api, eventually

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

AGENT_SCRIPT = Path(__file__).resolve().parents[1] / "support" / "acp_agent.py"
EXISTING = """# my settings, written by hand
port = 9527

[notify]
quiet_hours = "22:00-07:00"   # keep this comment

[[agents]]
name = "Mine"
runtime = "subprocess"
command = ["echo", "{task}"]
"""


def program(folder: Path, name: str, body: str) -> Path:
    """An executable stand-in for an npm program (a shell script), in `folder`, which goes first on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def only_path(*folders: Path) -> dict[str, str]:
    """PATH holding only these folders (the stand-ins name /bin/sh themselves): no real codex-acp, gemini or npx."""
    return {"PATH": os.pathsep.join(str(f) for f in folders)}


def agents_in(data_dir: Path) -> list[dict[str, Any]]:
    return list(tomllib.loads((data_dir / "lineup.toml").read_text()).get("agents", []))


def test_add_codex_appends_an_entry_runtimes_lists(tmp_path: Path) -> None:
    data, project, bin_dir = tmp_path / "data", tmp_path / "my project", tmp_path / "bin"
    data.mkdir()
    project.mkdir()
    (data / "lineup.toml").write_text(EXISTING)
    codex_acp = program(bin_dir, "codex-acp", "exit 0")
    done = run_cli(data, "agents", "add", "codex", "--dir", str(project), env=only_path(bin_dir))
    # The restart names the folder the entry went into: a bare `lineup serve` would start the default folder's hub.
    assert f"Restart the hub (`{sys.executable} -m hub serve --data-dir {data}`)" in done.stdout, done.stdout

    text = (data / "lineup.toml").read_text()
    assert text.startswith(EXISTING)  # appended, never rewritten
    assert agents_in(data)[1] == {"name": "Codex", "runtime": "acp", "command": [str(codex_acp)],
                                  "cwd": str(project.resolve())}
    listed = run_cli(data, "runtimes").stdout
    assert "Codex" in listed and str(codex_acp) in listed and "[ok]" in listed.split("Codex", 1)[1].splitlines()[0]

    # The same name twice is refused and leaves the file as it was; another name is a second entry.
    again = run_cli(data, "agents", "add", "codex", env=only_path(bin_dir), check=False)
    assert again.returncode != 0 and "already" in again.stderr
    assert (data / "lineup.toml").read_text() == text
    run_cli(data, "agents", "add", "codex", "--name", 'Codex "two"', env=only_path(bin_dir))
    assert [a["name"] for a in agents_in(data)] == ["Mine", "Codex", 'Codex "two"']


def test_the_help_names_every_presets_default_name() -> None:
    shown = subprocess.run([sys.executable, "-m", "hub", "agents", "add", "--help"], capture_output=True, text=True,
                           timeout=60, check=True).stdout
    text = " ".join(shown.split())
    assert "(default: the preset's: Claude Code, Codex, Gemini CLI, Hermes, OpenClaw)" in text, shown


def test_npx_fallback_and_gemini_flag(tmp_path: Path) -> None:
    data, npx_dir, gem_new, gem_old = tmp_path / "data", tmp_path / "npx", tmp_path / "new", tmp_path / "old"
    npx = program(npx_dir, "npx", "exit 0")
    run_cli(data, "agents", "add", "claude-code", env=only_path(npx_dir))
    assert agents_in(data)[0]["command"] == [str(npx), "-y", "@zed-industries/claude-code-acp"]
    assert "cwd" not in agents_in(data)[0]

    # The installed gemini says which flag it takes: `--acp` (0.61+) or only `--experimental-acp` (older).
    new = program(gem_new, "gemini", "echo '  --acp    Starts the agent in ACP mode'; "
                                      "echo '  --experimental-acp  Starts the agent in ACP mode (deprecated)'")
    old = program(gem_old, "gemini", "echo '  --experimental-acp  Starts the agent in ACP mode'")
    run_cli(data, "agents", "add", "gemini", "--name", "G1", env=only_path(gem_new))
    run_cli(data, "agents", "add", "gemini", "--name", "G2", env=only_path(gem_old))
    assert [a["command"] for a in agents_in(data)[1:]] == [[str(new), "--acp"], [str(old), "--experimental-acp"]]

    nothing = run_cli(data, "agents", "add", "codex", env=only_path(tmp_path / "empty"), check=False)
    assert nothing.returncode != 0 and "npx" in nothing.stderr and "codex-acp" in nothing.stderr


def test_hermes_runs_from_its_own_environment_with_its_deadline(tmp_path: Path) -> None:
    """Hermes pins an older agent-client-protocol than the hub: it is found on PATH (pipx, uv tool) or run with uvx,
    never installed into the hub's environment; its entry carries its 60 s deadline (hub/presets.py)."""
    data, bin_dir, uvx_dir = tmp_path / "data", tmp_path / "bin", tmp_path / "uvx"
    hermes = program(bin_dir, "hermes", "exit 0")
    done = run_cli(data, "agents", "add", "hermes", env=only_path(bin_dir))
    [entry] = agents_in(data)
    assert (entry["name"], entry["command"], entry["permission_timeout_s"]) == ("Hermes", [str(hermes), "acp"], 60)
    assert "approvals: {mode: manual}" in done.stdout and "60 s" in done.stdout
    uvx = program(uvx_dir, "uvx", "exit 0")
    run_cli(data, "agents", "add", "hermes", "--name", "Hermes 2", env=only_path(uvx_dir))
    assert agents_in(data)[1]["command"] == [str(uvx), "--from", "hermes-agent[acp]", "hermes", "acp"]
    missing = run_cli(data, "agents", "add", "hermes", "--name", "H3", env=only_path(tmp_path / "empty"), check=False)
    assert missing.returncode != 0 and "pipx install 'hermes-agent[acp]'" in missing.stderr
    assert "not into LineUp's" in missing.stderr


def test_openclaw_needs_node_24_and_says_what_else_it_needs(tmp_path: Path) -> None:
    """OpenClaw needs Node 24.16+ (node:sqlite), its Gateway running, and an exec policy that asks: each is said."""
    data, bin_dir, old_node, new_node = tmp_path / "data", tmp_path / "bin", tmp_path / "node20", tmp_path / "node24"
    # A stand-in openclaw: its Gateway does not answer, its exec policy is unset (OpenClaw's default: never asks).
    openclaw = program(bin_dir, "openclaw", 'case "$1 $2" in "gateway status") echo \'{"rpc": {"ok": false}}\'; exit 1;; '
                                           '"config get") echo "Config path is valid but unset";; esac')
    program(old_node, "node", "echo v20.20.2")
    program(new_node, "node", "echo v24.22.3")
    refused = run_cli(data, "agents", "add", "openclaw", env=only_path(bin_dir, old_node), check=False)
    assert refused.returncode != 0
    assert "OpenClaw needs Node 24.16 or newer" in refused.stderr and "20.20" in refused.stderr
    assert "--node-dir" in refused.stderr
    done = run_cli(data, "agents", "add", "openclaw", "--node-dir", str(new_node), env=only_path(bin_dir, old_node))
    [entry] = agents_in(data)
    assert entry["command"] == [str(openclaw), "acp"]
    assert entry["env"]["PATH"].split(os.pathsep)[0] == str(new_node.resolve())
    assert "openclaw gateway run" in entry["unavailable_hint"]
    assert "Gateway does not answer" in done.stdout and "openclaw config set tools.exec.mode ask" in done.stdout


def test_openclaw_not_installed_is_said_not_its_gateway(tmp_path: Path) -> None:
    """Without openclaw the entry is written with npx (docs/agents.md), and the message says OpenClaw is not installed
    and how to install it, instead of asking to start a Gateway that is not there (or running `npx gateway status`)."""
    data, npx_dir, new_node = tmp_path / "data", tmp_path / "npx", tmp_path / "node24"
    npx = program(npx_dir, "npx", 'echo "npx $*" >> "${0%/*}/ran"; exit 0')
    program(new_node, "node", "echo v24.22.3")
    done = run_cli(data, "agents", "add", "openclaw", "--node-dir", str(new_node), env=only_path(npx_dir))
    [entry] = agents_in(data)
    assert entry["command"] == [str(npx), "-y", "openclaw", "acp"]
    said = " ".join(done.stdout.split())
    assert "OpenClaw is not installed" in said and "npm install -g openclaw" in said, said
    assert "Gateway does not answer" not in said and not (npx_dir / "ran").exists()  # no npx gateway status


def test_a_file_that_cannot_take_the_entry_is_left_alone(tmp_path: Path) -> None:
    data, bin_dir = tmp_path / "data", tmp_path / "bin"
    data.mkdir()
    inline = 'agents = [{name = "Inline", runtime = "acp", command = ["x"]}]\n'
    (data / "lineup.toml").write_text(inline)
    program(bin_dir, "codex-acp", "exit 0")
    refused = run_cli(data, "agents", "add", "codex", env=only_path(bin_dir), check=False)
    assert refused.returncode != 0 and "[[agents]]" in refused.stderr  # the entry, to add by hand
    assert (data / "lineup.toml").read_text() == inline


# A process: the hub starts the agent it was told about at start-up, and under CI's load an in-process hub once left
# the supervised agent's socket to the garbage collector at teardown (a ResourceWarning; not seen alone in 3 runs).
@pytest.mark.hub_process
async def test_the_hub_runs_the_added_agent(hub_factory: HubFactory, lap: Any, tmp_path: Path) -> None:
    hub = hub_factory(start=False)
    token = hub.token()
    project, bin_dir, log = tmp_path / "project", tmp_path / "bin", tmp_path / "acp.jsonl"
    project.mkdir()
    # The stand-in codex-acp is the scripted ACP agent (tests/support/acp_agent.py), logging what it receives.
    program(bin_dir, "codex-acp", f"ACP_TEST_LOG={json.dumps(str(log))} exec {json.dumps(sys.executable)} "
                                  f"{json.dumps(str(AGENT_SCRIPT))}")
    run_cli(hub.data_dir, "agents", "add", "codex", "--dir", str(project), env=only_path(bin_dir))
    hub.start()
    api = Api(hub, token)

    async def online() -> str | None:
        agents = (await api.get("/api/agents"))["agents"]
        return next((a["id"] for a in agents if a["name"] == "Codex" and a["status"] == "online"), None)

    agent_id = await eventually(online, timeout=20)
    app = await lap(hub, "app", token)
    await app.ok("conversation.create", {"title": "c1", "agentIds": [agent_id]}, conversationId="c1")
    await app.ok("task.create", {"title": "hello codex"}, taskId="t1", conversationId="c1")
    await app.event("task.status_changed", 15, taskId="t1", status="succeeded")
    sessions = [json.loads(line) for line in log.read_text().splitlines() if '"session/new"' in line]
    assert sessions and sessions[0]["cwd"] == str(project.resolve())
