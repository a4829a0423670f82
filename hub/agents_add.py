"""`lineup agents add claude-code|codex|gemini|hermes|openclaw`: the command line's side of the agent presets
(hub/presets.py), which writes the preset's `[[agents]]` entry into the hub's lineup.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from hub.presets import (
    HERMES_PERMISSION_TIMEOUT_S,
    PRESETS,
    PresetError,
    append_agent,
    openclaw_checks,
    openclaw_node_path,
    resolve_command,
)
from hub.settings import SettingsError, load_settings


@click.group("agents")
def agents() -> None:
    """Agents the hub runs itself (`[[agents]]` in lineup.toml)."""


@agents.command("add")
@click.argument("preset", type=click.Choice(sorted(PRESETS)))
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project folder the agent works in (default: the hub's data folder).")
@click.option("--name", default=None, help="The agent's name in the app (default: the preset's: "
              + ", ".join(p.name for p in PRESETS.values()) + ").")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the database and settings live (default: the user data folder).")
@click.option("--node-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="OpenClaw only: the folder of a Node 24.16+ `node`, when the one on PATH is older.")
def add(preset: str, folder: Path | None, name: str | None, data_dir: Path | None, node_dir: Path | None) -> None:
    """Add Claude Code (claude-code-acp), Codex (codex-acp), Gemini CLI (gemini --acp), Hermes (hermes acp) or
    OpenClaw (openclaw acp, through its Gateway) for the hub to run."""
    chosen = PRESETS[preset]
    name = (name or chosen.name).strip()
    if not name:
        raise click.UsageError("--name cannot be empty.")
    cwd = None
    if folder is not None:
        cwd = folder.expanduser().resolve()
        if not cwd.is_dir():
            raise click.UsageError(f"--dir {folder}: no such folder.")
    if node_dir is not None and preset != "openclaw":
        raise click.UsageError("--node-dir is for OpenClaw only.")
    try:
        command, env, notes = _resolve(preset, node_dir)
    except PresetError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        settings = load_settings({"data_dir": data_dir})
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    config_path = settings.data_dir / "lineup.toml"
    try:
        block = append_agent(config_path, name, command, cwd, chosen, env)
    except PresetError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Added to {config_path}:\n\n{block}")
    for note in notes:
        click.echo(f"Note: {note}")
    from hub.cli_invocation import data_dir_args, program

    serve = " ".join(part for part in (program(), "serve", data_dir_args(settings)) if part)  # this data folder's hub
    click.echo(f"Restart the hub (`{serve}`) to start it; it then shows in the app's Agents screen, and "
               "its permission requests arrive as approval cards.")


def _resolve(preset: str, node_dir: Path | None) -> tuple[list[str], dict[str, str], list[str]]:
    """The preset's command, the environment it runs with, and what the person must still do (notes)."""
    chosen = PRESETS[preset]
    env: dict[str, str] = {}
    notes: list[str] = []
    if preset == "openclaw":
        path = openclaw_node_path(node_dir)
        if path is not None:
            env["PATH"] = path
        env.update(OPENCLAW_HIDE_BANNER="1", OPENCLAW_SUPPRESS_NOTES="1")
    command = resolve_command(chosen, env.get("PATH"))
    if preset == "openclaw" and shutil.which(chosen.program, path=env.get("PATH")) is None:  # npx -y openclaw acp
        notes = ["OpenClaw is not installed: the entry runs `npx -y openclaw acp`, which npm fetches on first start, "
                 "but that is only a bridge to your OpenClaw Gateway, which must be installed, set up and running "
                 "before the hub gives OpenClaw a task: install it with `npm install -g openclaw` (with Node 24.16 "
                 "or newer), then start the Gateway with `openclaw gateway run` (or as a service: `openclaw onboard "
                 "--install-daemon`)."]
    elif preset == "openclaw":
        notes = openclaw_checks(command[0], env.get("PATH"))
    elif preset == "hermes":
        notes = ["Hermes asks only for the commands on its dangerous list (rm -r, chmod 777, git push --force, curl | "
                 "sh, ...) and for file edits; set `approvals: {mode: manual}` in ~/.hermes/config.yaml for a card "
                 "every time (its default, smart, lets a model screen them first). It stops waiting for an answer "
                 f"after {HERMES_PERMISSION_TIMEOUT_S} s and denies: the card counts down."]
    return command, env, notes
