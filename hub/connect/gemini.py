"""`lineup connect gemini`: Gemini CLI's settings.json gets LineUp's MCP server and an AfterAgent hook (turn done)."""

# Gemini CLI starts MCP servers from `mcpServers` (the agent asks the person through LineUp's ask_* tools and uses
# the hub's tools; `trust: true` so it does not first ask in the terminal whether it may ask) and runs command
# hooks from `hooks` (AfterAgent: once per finished turn, JSON on stdin with the prompt and the reply). Its own
# tool confirmations stay in its terminal; for approvals on the phone the hub runs it over ACP
# (`lineup agents add gemini`). Our entries are recognised by their name on --remove; the rest of the file is
# kept (it is JSON, so it is written back with two-space indentation).

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from hub.connect.codex import lineup_command, write_atomically
from hub.connect.pairing_notes import STAYS_PAIRED
from hub.connect.shape import check_target, pair, pairing_options, target_options

SERVER = "lineup"
HOOK_NAME = "lineup-turn-finished"
TOOL_TIMEOUT_MS = 3_600_000  # a question waits for the person


def settings_path(folder: Path | None, for_user: bool) -> Path:
    base = Path.home() if for_user else (folder or Path.cwd()).expanduser().resolve()
    return base / ".gemini" / "settings.json"


def _load(path: Path) -> dict[str, Any]:
    if not path.exists() or not path.read_text().strip():
        return {}
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise click.ClickException(f"Cannot add LineUp to {path}: it is not plain JSON ({exc}); "
                                   "add the entries by hand (docs/agents.md).") from None
    if not isinstance(data, dict):
        raise click.ClickException(f"Cannot add LineUp to {path}: it is not a JSON object.")
    return data


def _ours(group: Any) -> bool:
    return isinstance(group, dict) and any(isinstance(h, dict) and h.get("name") == HOOK_NAME
                                           for h in group.get("hooks") or [])


def without_ours(data: dict[str, Any]) -> dict[str, Any]:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and isinstance(servers.get(SERVER), dict) \
            and "--credential-file" in (servers[SERVER].get("args") or []):
        del servers[SERVER]
        if not servers:
            del data["mcpServers"]
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and isinstance(hooks.get("AfterAgent"), list):
        hooks["AfterAgent"] = [g for g in hooks["AfterAgent"] if not _ours(g)]
        if not hooks["AfterAgent"]:
            del hooks["AfterAgent"]
        if not hooks:
            del data["hooks"]
    return data


def connect(path: Path, credential_path: Path, name: str) -> None:
    data = without_ours(_load(path))
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict) or SERVER in servers:
        raise click.ClickException(f"{path} already has an MCP server named {SERVER!r}; remove it first.")
    command = lineup_command()
    servers[SERVER] = {"command": command[0],
                       "args": command[1:] + ["mcp", "--name", name, "--credential-file", str(credential_path)],
                       "timeout": TOOL_TIMEOUT_MS, "trust": True}
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise click.ClickException(f"{path}: `hooks` is not an object; fix it first.")
    hook_command = shlex.join(command + ["hook", "gemini-turn", "--credential-file", str(credential_path)])
    after = hooks.setdefault("AfterAgent", [])
    if not isinstance(after, list):
        raise click.ClickException(f"{path}: `hooks.AfterAgent` is not a list; fix it first.")
    after.append({"hooks": [{"type": "command", "name": HOOK_NAME, "command": hook_command, "timeout": 20_000}]})
    write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def disconnect(path: Path) -> bool:
    if not path.exists():
        return False
    before = _load(path)
    after = without_ours(json.loads(json.dumps(before)))
    if after == before:
        return False
    write_atomically(path, json.dumps(after, indent=2, ensure_ascii=False) + "\n")
    return True


@click.command("gemini")
@target_options("A project folder (its .gemini/settings.json).", "For every project (~/.gemini/settings.json).")
@pairing_options("Gemini CLI", "mcp/<name>.json", "Take LineUp's lines out again.")
def connect_gemini(folder: Path | None, for_user: bool, hub_url: str | None, code: str | None, name: str,
                   fingerprint: str | None, credential_file: Path | None, remove: bool) -> None:
    """Connect Gemini CLI: LineUp's MCP server (ask the person, the hub's tools) and a notification per turn."""
    check_target(folder, for_user)
    path = settings_path(folder, for_user)
    if remove:
        removed = disconnect(path)
        click.echo(f"Removed LineUp from {path}." if removed else f"No LineUp entries in {path}; nothing changed.")
        if removed:
            click.echo(STAYS_PAIRED)
        return
    from hub.mcp import default_credential_path

    credential, cred_path = pair(hub_url, code, credential_file or default_credential_path(name), name=name,
                                 runtime="mcp", fingerprint=fingerprint)
    connect(path, cred_path, name)
    click.echo(f"Gemini CLI is connected to {credential.hub_url} as agent {credential.agent_id}; {path} updated.")
    from hub.cli_invocation import program

    click.echo("Gemini's own tool confirmations stay in its terminal: for approvals on your phone, let the hub run "
               f"it (`{program()} agents add gemini`). See docs/agents.md.")


@click.command("gemini-turn")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), required=True)
def hook_gemini_turn(credential_file: Path) -> None:
    """Run by Gemini CLI's AfterAgent hook (JSON on stdin): a finished turn becomes a succeeded task in LineUp."""
    from hub.connect.turn_notify import run_quietly

    try:
        event = json.loads(sys.stdin.read(4 * 1024 * 1024) or "{}")
    except (OSError, ValueError):
        event = {}
    # Gemini reads stdout as the hook's JSON answer: an empty object changes nothing, whatever happens below.
    sys.stdout.write("{}\n")
    sys.stdout.flush()
    if not isinstance(event, dict) or event.get("hook_event_name") != "AfterAgent" or event.get("stop_hook_active"):
        return
    run_quietly(credential_file, cli="gemini", session=str(event.get("session_id") or event.get("cwd") or ""),
                cwd=str(event.get("cwd") or ""), prompt=str(event.get("prompt") or ""),
                reply=str(event.get("prompt_response") or ""), turn=str(event.get("timestamp") or "") or None)


def register(connect_group: click.Group, hook_group: click.Group) -> None:
    connect_group.add_command(connect_gemini, "gemini")
    hook_group.add_command(hook_gemini_turn, "gemini-turn")
