"""`lineup connect hermes` and `lineup connect openclaw` on a machine that lacks what they connect (docs/agents.md):
the real CLI against a real hub says what is missing and how to get it, before the pairing code is used, so the same
code works once the person has installed it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.support.hubproc import HubProcess


def program(folder: Path, name: str, body: str) -> Path:
    """An executable stand-in (a shell script) in `folder`, which the command's PATH holds."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def lineup(home: Path, *args: str, path: list[Path]) -> subprocess.CompletedProcess[str]:
    """`lineup ARGS` as a person whose home is `home` and whose PATH is only `path` (no real hermes, openclaw, node)."""
    env = {**os.environ, "HOME": str(home), "HERMES_HOME": str(home / ".hermes"),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "PATH": os.pathsep.join(str(p) for p in path)}
    return subprocess.run([sys.executable, "-m", "hub", *args], capture_output=True, text=True, timeout=120,
                          env=env, check=False)


def test_hermes_not_installed_says_how_to_install_it_and_keeps_the_code(hub: HubProcess, tmp_path: Path) -> None:
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    code = hub.pairing_code()
    refused = lineup(home, "connect", "hermes", "--hub", hub.base, "--code", code, path=[bin_dir])
    assert refused.returncode != 0
    said = " ".join(refused.stderr.split())
    assert "Hermes is not installed" in said and "pipx install 'hermes-agent[acp]'" in said, said
    assert "uv tool install 'hermes-agent[acp]'" in said and "hermes setup" in said, said
    assert "No Hermes folder" not in said and not (home / ".hermes").exists()

    # Installed and set up: the same code pairs (the refusal did not spend it).
    program(bin_dir, "hermes", "exit 0")
    (home / ".hermes").mkdir()
    done = lineup(home, "connect", "hermes", "--hub", hub.base, "--code", code, path=[bin_dir])
    assert done.returncode == 0, done.stderr
    assert "Hermes is connected" in done.stdout and "Warning" not in done.stderr


def test_a_hermes_folder_without_hermes_on_path_connects_and_warns(hub: HubProcess, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".hermes").mkdir(parents=True)
    done = lineup(home, "connect", "hermes", "--hub", hub.base, "--code", hub.pairing_code(),
                  path=[tmp_path / "empty"])
    assert done.returncode == 0, done.stderr
    assert "Hermes is connected" in done.stdout
    assert (home / ".hermes" / "plugins" / "lineup").is_dir()  # the plugin is in place for when Hermes runs
    warning = " ".join(done.stderr.split())
    assert "Warning: no `hermes` program was found on PATH" in warning, warning
    assert "pipx install 'hermes-agent[acp]'" in warning


def test_openclaw_on_an_old_node_says_every_problem_in_connects_words(hub: HubProcess, tmp_path: Path) -> None:
    """Node 20 and no openclaw: both are said, and the Node advice is about the `openclaw` commands connect runs and
    the Gateway, not about a hub running OpenClaw (that is `lineup agents add`). The code is not spent."""
    home, old_node, bin_dir = tmp_path / "home", tmp_path / "node20", tmp_path / "bin"
    home.mkdir()
    program(old_node, "node", "echo v20.20.2")
    code = hub.pairing_code()
    refused = lineup(home, "connect", "openclaw", "--hub", hub.base, "--code", code, path=[old_node, bin_dir])
    said = " ".join(refused.stderr.split())
    assert refused.returncode != 0
    assert "OpenClaw is not installed here" in said and "npm install -g openclaw" in said, said
    assert "OpenClaw needs Node 24.16 or newer" in said and "node on PATH is 20.20" in said and "--node-dir" in said, said
    assert "the hub runs OpenClaw" not in said and "OpenClaw Gateway needs Node 24" in said, said

    # openclaw installed, Node still 20: only the Node is said; and the code still pairs (here a stand-in openclaw).
    program(bin_dir, "openclaw", 'echo "openclaw $*" >> "${0%/*}/ran"; exit 0')
    refused = lineup(home, "connect", "openclaw", "--hub", hub.base, "--code", code, path=[old_node, bin_dir])
    assert refused.returncode != 0 and "not installed" not in refused.stderr
    program(tmp_path / "node24", "node", "echo v24.22.3")
    done = lineup(home, "connect", "openclaw", "--hub", hub.base, "--code", code, "--node-dir",
                  str(tmp_path / "node24"), path=[old_node, bin_dir])
    assert done.returncode == 0, done.stderr
    assert "OpenClaw is connected" in done.stdout


def test_openclaw_remove_says_it_needs_openclaw_uninstall(tmp_path: Path) -> None:
    """--remove runs `openclaw plugins uninstall lineup` (OpenClaw's config is OpenClaw's to edit): on Node 20 it says
    so instead of only asking for Node 24."""
    home, old_node, bin_dir = tmp_path / "home", tmp_path / "node20", tmp_path / "bin"
    home.mkdir()
    program(old_node, "node", "echo v20.20.2")
    program(bin_dir, "openclaw", 'echo "openclaw $*" >> "${0%/*}/ran"; exit 0')
    refused = lineup(home, "connect", "openclaw", "--remove", path=[old_node, bin_dir])
    said = " ".join(refused.stderr.split())
    assert refused.returncode != 0
    assert "Taking LineUp out runs `openclaw plugins uninstall lineup`" in said and "Node 24.16" in said, said
    assert not (bin_dir / "ran").exists()
    program(tmp_path / "node24", "node", "echo v24.22.3")
    done = lineup(home, "connect", "openclaw", "--remove", "--node-dir", str(tmp_path / "node24"),
                  path=[old_node, bin_dir])
    assert done.returncode == 0, done.stderr
    assert "openclaw plugins uninstall lineup --force" in (bin_dir / "ran").read_text()
