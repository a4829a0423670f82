"""`lineup agents add claude-code|codex|gemini`: the `[[agents]]` entry for a known agent CLI, and the presets list."""

# The hub runs these agents itself through the `acp` runtime (hub/plugins/runtimes/acp), so their permission requests
# become approval cards. People should not have to write TOML for that: this module knows each preset's ACP
# command, finds it on PATH (or falls back to `npx -y <package>`), and appends one well-formed `[[agents]]`
# table to the hub's lineup.toml. The file is only ever appended to, after the whole result was parsed: comments,
# secrets and the order of what the person wrote stay exactly as they were. The same list is served to the app
# (`/-/agent-presets.json`), so the Agents screen shows the one command to run for each.

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from starlette.requests import Request
from starlette.responses import JSONResponse

from hub.runtimes.base import RuntimeConfigError, parse_agent_configs
from hub.settings import SettingsError, load_settings


@dataclass(frozen=True)
class Preset:
    key: str            # what `lineup agents add KEY` takes
    name: str           # the agent's default name in the app
    program: str        # the ACP program looked up on PATH
    package: str        # the npm package that provides it (for npx)
    args: tuple[str, ...] = ()
    install: str = ""   # how a person installs the program for good


PRESETS: dict[str, Preset] = {p.key: p for p in (
    Preset("claude-code", "Claude Code", "claude-code-acp", "@zed-industries/claude-code-acp",
           install="npm install -g @zed-industries/claude-code-acp"),
    Preset("codex", "Codex", "codex-acp", "@zed-industries/codex-acp",
           install="npm install -g @zed-industries/codex-acp"),
    # Gemini CLI speaks ACP itself; the flag was `--experimental-acp` before `--acp` (gemini_flag decides).
    Preset("gemini", "Gemini CLI", "gemini", "@google/gemini-cli", ("--acp",),
           install="npm install -g @google/gemini-cli"),
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


def resolve_command(preset: Preset) -> list[str]:
    """The program on PATH (by its full path: the hub may run with another PATH), else `npx -y <package>`."""
    found = shutil.which(preset.program)
    if found:
        args = list(preset.args)
        if preset.key == "gemini":
            args = [gemini_flag(found)]
        return [found, *args]
    npx = shutil.which("npx")
    if npx:
        return [npx, "-y", preset.package, *preset.args]
    raise click.ClickException(f"Neither {preset.program} nor npx is on PATH. Install Node.js, then "
                               f"`{preset.install}` (or let npx fetch it on first start).")


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


def agent_table(name: str, command: list[str], cwd: Path | None, preset: Preset) -> str:
    lines = [f"# Added by `lineup agents add {preset.key}`.", "[[agents]]", f"name = {toml_string(name)}",
             'runtime = "acp"', "command = [" + ", ".join(toml_string(part) for part in command) + "]"]
    if cwd is not None:
        lines.append(f"cwd = {toml_string(str(cwd))}")
    return "\n".join(lines) + "\n"


def append_agent(config_path: Path, name: str, command: list[str], cwd: Path | None, preset: Preset) -> str:
    """Append the entry after checking that the whole file still parses and names every agent once."""
    old = config_path.read_text() if config_path.exists() else ""
    try:
        existing = parse_agent_configs(tomllib.loads(old), str(config_path))
    except (tomllib.TOMLDecodeError, RuntimeConfigError) as exc:
        raise click.ClickException(f"{config_path} cannot be read as it is ({exc}); fix it first.") from None
    if any(config.name == name for config in existing):
        raise click.ClickException(f"An agent named {name!r} is already in {config_path}; choose another "
                                   "with --name, or edit that entry.")
    block = agent_table(name, command, cwd, preset)
    separator = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
    try:  # the file as it will be, parsed whole before a byte is written
        parse_agent_configs(tomllib.loads(old + separator + block), str(config_path))
    except (tomllib.TOMLDecodeError, RuntimeConfigError) as exc:  # e.g. `agents = [...]` written inline
        raise click.ClickException(f"Cannot add to {config_path}: {exc}. Add the entry by hand:\n{block}") from None
    config_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Appending never rewrites what is there; a new file is the owner's alone (it may later hold secrets).
    fd = os.open(config_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a") as handle:
        handle.write(separator + block)
    return block


def presets_payload() -> list[dict[str, Any]]:
    return [{"key": p.key, "name": p.name, "program": p.program, "package": p.package,
             "command": f"lineup agents add {p.key} --dir ~/code/my-project"} for p in PRESETS.values()]


async def agent_presets(request: Request) -> JSONResponse:
    """The presets for the app's Agents screen: static, no secrets, public like the app itself."""
    return JSONResponse({"presets": presets_payload()})


@click.group("agents")
def agents() -> None:
    """Agents the hub runs itself (`[[agents]]` in lineup.toml)."""


@agents.command("add")
@click.argument("preset", type=click.Choice(sorted(PRESETS)))
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project folder the agent works in (default: the hub's data folder).")
@click.option("--name", default=None, help="The agent's name in the app (default: Claude Code, Codex, Gemini CLI).")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the database and settings live (default: the user data folder).")
def add(preset: str, folder: Path | None, name: str | None, data_dir: Path | None) -> None:
    """Add Claude Code (claude-code-acp), Codex (codex-acp) or Gemini CLI (gemini --acp) for the hub to run."""
    chosen = PRESETS[preset]
    name = (name or chosen.name).strip()
    if not name:
        raise click.UsageError("--name cannot be empty.")
    cwd = None
    if folder is not None:
        cwd = folder.expanduser().resolve()
        if not cwd.is_dir():
            raise click.UsageError(f"--dir {folder}: no such folder.")
    command = resolve_command(chosen)
    try:
        settings = load_settings({"data_dir": data_dir})
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    config_path = settings.data_dir / "lineup.toml"
    block = append_agent(config_path, name, command, cwd, chosen)
    click.echo(f"Added to {config_path}:\n\n{block}")
    click.echo("Restart the hub (`lineup serve`) to start it; it then shows in the app's Agents screen, and "
               "its permission requests arrive as approval cards.")
