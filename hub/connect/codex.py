"""`lineup connect codex`: Codex CLI's config.toml gets LineUp's MCP server, the `notify` program (turn finished)
and, for the user's config, the PermissionRequest hook that puts Codex's approval prompts on the phone."""

# What Codex lets another program do from its own config (docs/agents.md, "Codex"): start MCP servers
# (`[mcp_servers.NAME]`), so the agent can ask the person through LineUp's ask_* tools and use the hub's tools,
# run one `notify` program with a JSON argument when a turn finishes, and run command hooks; its
# PermissionRequest hook answers its own approval prompts ("run this command?", hub/connect/codex_approvals.py).
#
# The config is the person's file: our lines sit between two marker comments, `notify` at the very top (a
# top-level key must come before the first table) and the server table at the end. --remove deletes exactly the
# marked lines, so the file is what it was. The result is parsed whole before it is written.

from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

import click

from hub.connect import codex_approvals
from hub.connect.pairing_notes import STAYS_PAIRED
from hub.connect.shape import check_target, pair, pairing_options, target_options

BEGIN = "# >>> lineup connect codex (added by `lineup connect codex`; `lineup connect codex --remove` takes it out)"
END = "# <<< lineup connect codex"
SERVER = "lineup"
TOOL_TIMEOUT_S = 3600  # a question waits for the person: Codex's default MCP tool timeout is far shorter
WAIT_S = 900           # an approval card nobody answers in 15 minutes leaves the prompt to Codex's terminal
HOOK_TIMEOUT_S = WAIT_S + 30  # Codex's own limit on the hook: a little longer than ours


def lineup_command() -> list[str]:
    """How the CLI starts us again, whatever folder it runs us from (hub/cli_invocation.py `launcher`)."""
    from hub.cli_invocation import launcher

    return launcher()


def toml_string(text: str) -> str:
    from hub.presets import toml_string as quote

    return quote(text)


def toml_array(parts: list[str]) -> str:
    return "[" + ", ".join(toml_string(p) for p in parts) + "]"


def config_path(folder: Path | None, for_user: bool) -> Path:
    if for_user:
        home = os.environ.get("CODEX_HOME")
        return (Path(home).expanduser() if home else Path.home() / ".codex") / "config.toml"
    assert folder is not None
    return folder.expanduser().resolve() / ".codex" / "config.toml"


def without_ours(text: str) -> str:
    """The text with every marked block taken out (markers included), the rest untouched."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        if stripped == BEGIN:
            inside = True
            continue
        if inside and stripped == END:
            inside = False
            continue
        if not inside:
            kept.append(line)
    return "".join(kept)


def merged(text: str, mcp_args: list[str], notify: list[str], *, approvals: tuple[Path, str] | None = None,
           ) -> tuple[str, bool]:
    """The config with our blocks; (text, whether `notify` is ours). Raises ValueError if it cannot be merged.

    `approvals` (this file's path, the hook's command): add the PermissionRequest hook and its trust entry."""
    base = without_ours(text)
    try:
        current = tomllib.loads(base)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"it is not valid TOML ({exc})") from None
    if SERVER in (current.get("mcp_servers") or {}):
        raise ValueError(f"it already has [mcp_servers.{SERVER}]; remove that entry first")
    command = lineup_command()
    # Codex runs one notify program; a person's own is kept (the finished turn then does not reach LineUp).
    own_notify = "notify" not in current
    top = f"{BEGIN}\nnotify = {toml_array(notify)}\n{END}\n" if own_notify else ""
    table = (f"{BEGIN}\n[mcp_servers.{SERVER}]\ncommand = {toml_string(command[0])}\n"
             f"args = {toml_array(command[1:] + mcp_args)}\n"
             f"tool_timeout_sec = {TOOL_TIMEOUT_S}\n"
             # LineUp's tools ask the person themselves: Codex asking first in the terminal would defeat them.
             f'default_tools_approval_mode = "approve"\n')
    if approvals is not None:
        hooks: dict[str, Any] = current["hooks"] if isinstance(current.get("hooks"), dict) else {}
        groups = hooks.get("PermissionRequest") or []
        table += codex_approvals.hook_tables(approvals[0], len(groups) if isinstance(groups, list) else 0,
                                             approvals[1], HOOK_TIMEOUT_S)
    table += f"{END}\n"
    body = base if not base or base.endswith("\n") else base + "\n"
    result = top + body + table
    parsed = tomllib.loads(result)  # raises if our lines clash with the person's (reported by the caller)
    assert parsed["mcp_servers"][SERVER]["command"] == command[0]
    return result, own_notify


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    tmp = path.with_name(path.name + ".lineup-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def permission_hook_command(credential_path: Path) -> str:
    return shlex.join(lineup_command() + ["hook", "codex-permission", "--credential-file", str(credential_path),
                                      "--wait-seconds", str(WAIT_S)])


def connect(path: Path, credential_path: Path, name: str, *, approvals: bool) -> bool:
    """Write our blocks (again: an earlier run's are replaced). Returns whether the notify program is ours."""
    text = path.read_text() if path.exists() else ""
    mcp_args = ["mcp", "--name", name, "--credential-file", str(credential_path)]
    notify = lineup_command() + ["hook", "codex-notify", "--credential-file", str(credential_path)]
    try:
        result, own_notify = merged(text, mcp_args, notify, approvals=(path.resolve(), permission_hook_command(
            credential_path)) if approvals else None)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise click.ClickException(f"Cannot add LineUp to {path}: {exc}.") from None
    write_atomically(path, result)
    return own_notify


def disconnect(path: Path) -> bool:
    if not path.exists():
        return False
    text = path.read_text()
    rest = without_ours(text)
    if rest == text:
        return False
    write_atomically(path, rest)
    return True


@click.command("codex")
@target_options("A project folder (its .codex/config.toml).", "For every project (~/.codex/config.toml).")
@pairing_options("Codex", "mcp/<name>.json", "Take LineUp's lines out again.")
def connect_codex(folder: Path | None, for_user: bool, hub_url: str | None, code: str | None, name: str,
                  fingerprint: str | None, credential_file: Path | None, remove: bool) -> None:
    """Connect Codex CLI: LineUp's MCP server (ask the person, the hub's tools) and a notification per finished turn."""
    check_target(folder, for_user)
    path = config_path(folder, for_user)
    if remove:
        removed = disconnect(path)
        click.echo(f"Removed LineUp from {path}." if removed else f"No LineUp lines in {path}; nothing changed.")
        if removed:
            click.echo(STAYS_PAIRED)
        return
    from hub.mcp import default_credential_path

    credential, cred_path = pair(hub_url, code, credential_file or default_credential_path(name), name=name,
                                 runtime="mcp", fingerprint=fingerprint)
    own_notify = connect(path, cred_path, name, approvals=for_user)
    click.echo(f"Codex is connected to {credential.hub_url} as agent {credential.agent_id}; {path} updated.")
    if not own_notify:
        # What Codex would run, as the rest of its config does (hub/cli_invocation.py `launcher`), not `lineup`.
        notify = shlex.join([*lineup_command(), "hook", "codex-notify", "--credential-file", str(cred_path)])
        click.echo("Your config already runs a `notify` program: it is kept, so finished turns are not posted to "
                   f"LineUp (add `{notify}` to it to have both).")
    if folder is not None:
        click.echo("Codex reads a project's .codex/config.toml only in a project it trusts; "
                   "use --user to have it everywhere.")
        click.echo("Codex's own approval prompts stay in its terminal with --dir: Codex keeps a hook's trust in "
                   "your user config, so only --user hands them to LineUp. See docs/agents.md.")
    else:
        click.echo("Interactive `codex` now asks you in LineUp before a command that needs your approval; when the "
                   "hub cannot be reached, or nobody answers in 15 minutes, it asks in its terminal as before.")


@click.command("codex-notify")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.argument("payload", required=False)
def hook_codex_notify(credential_file: Path, payload: str | None) -> None:
    """Run by Codex's `notify` with the event as JSON: a finished turn becomes a succeeded task in LineUp."""
    from hub.connect.turn_notify import run_quietly

    try:
        event = json.loads(payload or "{}")
    except ValueError:
        event = {}
    if not isinstance(event, dict) or event.get("type") != "agent-turn-complete":
        return  # other (future) notifications are not turns
    if side_thread(event):
        return
    # Interactive Codex lists the thread's earlier prompts too: the turn is its newest one.
    inputs = event.get("input-messages") or []
    prompt = str(inputs[-1]) if isinstance(inputs, list) and inputs else str(inputs or "")
    run_quietly(credential_file, cli="codex", session=str(event.get("thread-id") or event.get("cwd") or ""),
                cwd=str(event.get("cwd") or ""), prompt=prompt, reply=str(event.get("last-assistant-message") or ""),
                turn=str(event["turn-id"]) if event.get("turn-id") else None)


def side_thread(event: dict[str, Any]) -> bool:
    """A turn of a thread Codex keeps no session file for: its own side work, not the person's.

    Interactive Codex names each new thread by a turn of its own in a throwaway thread ("Generate a concise,
    single-line task title…"), and `notify` runs for that turn too. A session of the person's has a rollout
    file (`sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl`) by the time its first turn ends; that thread has
    none. Only the interactive client is checked: `codex exec --ephemeral` keeps no file either, and its turns
    are the person's."""
    thread = str(event.get("thread-id") or "")
    if event.get("client") != "codex-tui" or not thread or "/" in thread:
        return False
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
    return not any((home / "sessions").glob(f"*/*/*/rollout-*-{thread}.jsonl"))


@click.command("codex-permission")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--wait-seconds", type=click.IntRange(10, 24 * 3600), default=WAIT_S, show_default=True)
def hook_codex_permission(credential_file: Path, wait_seconds: int) -> None:
    """Run by Codex's PermissionRequest hook (event JSON on stdin): ask the person, print Codex's decision."""
    answer = codex_approvals.run(credential_file, float(wait_seconds), sys.stdin.read())
    if answer:
        click.echo(answer)


def register(connect_group: click.Group, hook_group: click.Group) -> None:
    connect_group.add_command(connect_codex, "codex")
    hook_group.add_command(hook_codex_notify, "codex-notify")
    hook_group.add_command(hook_codex_permission, "codex-permission")
