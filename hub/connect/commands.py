"""The click commands: `lineup connect claude-code` and `lineup hook claude-code` (registered by hub/cli.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hub.connect.pairing_notes import STAYS_PAIRED
from hub.connect.shape import pair, pairing_options, target_options


def register(connect: click.Group, hook: click.Group) -> None:
    connect.add_command(connect_claude_code, "claude-code")
    hook.add_command(hook_claude_code, "claude-code")


@click.command("claude-code")
@target_options("The project folder: hooks go into DIR/.claude/settings.json.",
                "For every project: hooks go into ~/.claude/settings.json.")
@pairing_options("Claude Code", "claude-code.json", "Take LineUp's hooks out again (nothing else changes).")
@click.option("--wait-minutes", type=float, default=15.0, show_default=True,
              help="How long a permission waits for an answer in LineUp before Claude Code asks in the terminal.")
def connect_claude_code(folder: Path | None, for_user: bool, hub_url: str | None, code: str | None, name: str,
                        fingerprint: str | None, credential_file: Path | None, wait_minutes: float,
                        remove: bool) -> None:
    """Connect Claude Code: it asks you in LineUp before anything that needs permission, and shows its work there."""
    from hub.connect import claude_code

    if (folder is None) == (not for_user):
        raise click.UsageError("Give exactly one of --dir DIR (a project) or --user (every project).")
    settings_path = claude_code.settings_path(folder, for_user)
    if remove:
        removed = claude_code.disconnect(settings_path)
        click.echo(f"Removed LineUp's hooks from {settings_path}." if removed
                   else f"No LineUp hooks in {settings_path}; nothing changed.")
        if removed:
            click.echo(STAYS_PAIRED)
        return
    if wait_minutes <= 0 or wait_minutes > 24 * 60:
        raise click.UsageError("--wait-minutes must be more than 0 and at most 1440.")
    credential, path = pair(hub_url, code, credential_file or claude_code.default_credential_path(), name=name,
                            runtime="claude-code", fingerprint=fingerprint)
    claude_code.connect(settings_path, path, wait_s=wait_minutes * 60)
    click.echo(f"Claude Code is connected to {credential.hub_url} as agent {credential.agent_id}.")
    click.echo(f"Hooks written to {settings_path}. Run `claude` there as usual; `--remove` undoes it.")
    click.echo("If the hub cannot be reached, Claude Code asks in the terminal as before.")


@click.command("claude-code")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--wait-seconds", type=float, default=900.0)
@click.option("--keep", "keep_session", default=None, hidden=True)
@click.option("--watch-pid", type=int, default=0, hidden=True)
def hook_claude_code(credential_file: Path, wait_seconds: float, keep_session: str | None, watch_pid: int) -> None:
    """Handle one Claude Code hook event: JSON on stdin, Claude Code's answer (or nothing) on stdout."""
    from hub.connect.claude_code import state_dir
    from hub.connect.hooks import run_hook, run_keeper

    if keep_session is not None:
        run_keeper(credential_file, state_dir(credential_file), keep_session, watch_pid)
        return
    try:
        raw = sys.stdin.read(4 * 1024 * 1024)
    except (OSError, ValueError):
        raw = ""
    out = run_hook(credential_file, state_dir(credential_file), wait_seconds, raw)
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
