"""The click commands: `lineup connect claude-code` and `lineup hook claude-code` (registered by hub/cli.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hub.connect.pairing_notes import STAYS_PAIRED, say_replaced, stored_agent


def register(connect: click.Group, hook: click.Group) -> None:
    connect.add_command(connect_claude_code, "claude-code")
    hook.add_command(hook_claude_code, "claude-code")


@click.command("claude-code")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project folder: hooks go into DIR/.claude/settings.json.")
@click.option("--user", "for_user", is_flag=True, default=False,
              help="For every project: hooks go into ~/.claude/settings.json.")
@click.option("--hub", "hub_url", default=None, help="The hub's address, e.g. http://192.168.1.20:9527.")
@click.option("--code", default=None, help="A pairing code from the app or `lineup pair` (first time only).")
@click.option("--name", default="Claude Code", show_default=True, help="The agent's name in the app.")
@click.option("--fingerprint", default=None, help="The hub certificate's SHA-256 (a self-signed https hub).")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where the credential is kept (default: claude-code.json in the user config folder).")
@click.option("--wait-minutes", type=float, default=15.0, show_default=True,
              help="How long a permission waits for an answer in LineUp before Claude Code asks in the terminal.")
@click.option("--remove", is_flag=True, default=False, help="Take LineUp's hooks out again (nothing else changes).")
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
    from hub.sdk import AuthError, SdkError

    if wait_minutes <= 0 or wait_minutes > 24 * 60:
        raise click.UsageError("--wait-minutes must be more than 0 and at most 1440.")
    before = stored_agent(credential_file or claude_code.default_credential_path())
    try:
        credential = claude_code.connect(settings_path, hub_url, code, name=name, fingerprint=fingerprint,
                                         credential_path=credential_file, wait_s=wait_minutes * 60)
    except (AuthError, SdkError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Claude Code is connected to {credential.hub_url} as agent {credential.agent_id}.")
    say_replaced(before, credential.agent_id, credential.replaced)
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
