"""`lineup connect openclaw`: LineUp as a channel of the person's OpenClaw Gateway (docs/agents.md, "OpenClaw as a
channel (always on)").

Connecting pairs the agent (a pairing code, as `lineup connect hermes`; the credential is written owner-only in the
SDK's format, which the plugin's TypeScript SDK reads), installs the channel plugin this LineUp carries
(integrations/openclaw-channel/package/: built from its sources, the plugin and the TypeScript SDK bundled)
with `openclaw plugins install <folder> --force --accept-capabilities`, and writes `channels.lineup` (the hub's
address, the credential file's path and whether approvals of other sessions come too; never a secret) with one
`openclaw config set --batch-json`. `--remove` uninstalls the plugin (`openclaw plugins uninstall lineup`, which
takes `channels.lineup` out too); the agent stays paired.

OpenClaw runs on Node 24.16 or newer; `--node-dir` puts a Node 24 first on the PATH of the `openclaw` commands run
here. The plugin is built and tested with OpenClaw OPENCLAW_VERSION: another version is installed all the same, with
a warning (its plugin SDK changes quickly).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import click

from hub.connect.pairing_notes import STAYS_PAIRED
from hub.connect.shape import pair, pairing_options

PLUGIN_ID = "lineup"
OPENCLAW_VERSION = "2026.9.6"  # integrations/openclaw-channel/package.json's pin; its README says why
CLI_TIMEOUT_S = 180.0
PLUGIN_FILES = ("package.json", "openclaw.plugin.json", "README.md", "dist/index.js", "dist/setup-entry.js")


def default_credential_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("lineup-agents", appauthor=False)) / "openclaw.json"


def default_plugin_copy() -> Path:
    """Where the plugin's files are put for `openclaw plugins install` (kept: `openclaw plugins update` reads it)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("lineup-agents", appauthor=False)) / "openclaw-channel"


def plugin_source() -> Path:
    """The plugin folder this LineUp carries (a wheel's package data, or the checkout)."""
    from hub.connect import integrations

    folder = integrations.folder(integrations.OPENCLAW_CHANNEL)
    missing = [name for name in PLUGIN_FILES if not (folder / name).is_file()]
    if missing:
        raise click.ClickException(f"This LineUp does not carry the OpenClaw channel plugin ({', '.join(missing)} "
                                   f"missing in {folder}): install LineUp with pip or pipx, or build it with "
                                   "`npm ci && npm run build` in integrations/openclaw-channel.")
    return folder


def copy_plugin(source: Path, target: Path) -> None:
    """The plugin's files into `target`, replaced whole (nothing of an older build stays behind)."""
    if target.exists() and not (target / "openclaw.plugin.json").is_file():
        raise click.ClickException(f"{target} exists and is not a copy of the LineUp plugin; move it away first.")
    staging = target.with_name(target.name + ".lineup-tmp")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=shutil.ignore_patterns("__pycache__", "__init__.py", "*.pyc"))
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)


class OpenClaw:
    """The `openclaw` CLI, run with the PATH that has a Node it accepts."""

    def __init__(self, program: str, path: str | None) -> None:
        self.program = program
        self.env = {**os.environ, **({"PATH": path} if path else {})}

    def run(self, *args: str, timeout: float = CLI_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run([self.program, *args], capture_output=True, text=True, timeout=timeout,
                                  env=self.env, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            raise click.ClickException(f"`openclaw {args[0]} {args[1] if len(args) > 1 else ''}` did not finish "
                                       f"within {timeout:g} s.") from None
        except OSError as exc:
            raise click.ClickException(f"Could not run {self.program}: {exc}") from None

    def must(self, *args: str, what: str) -> str:
        done = self.run(*args)
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip())[-2000:]
            raise click.ClickException(f"OpenClaw could not {what} (`openclaw {' '.join(args[:2])}` exited with "
                                       f"{done.returncode}):\n{said}")
        return done.stdout

    def version(self) -> str:
        done = self.run("--version", timeout=30)
        found = done.stdout.split()
        return found[1] if len(found) > 1 and done.returncode == 0 else ""


def find_openclaw(program: str | None, node_dir: Path | None, removing: bool = False) -> OpenClaw:
    """The `openclaw` program with a Node 24.16+ first on its PATH; else every problem said at once (no openclaw, an
    old Node), each with what to do. Removing runs `openclaw plugins uninstall` too, so it needs both."""
    from hub.presets import openclaw_node

    path, node_problem = openclaw_node(node_dir)
    found = shutil.which(program or "openclaw", path=path)
    problems = []
    if removing:
        problems.append("Taking LineUp out runs `openclaw plugins uninstall lineup`: the plugin's install record and "
                        "channels.lineup are in OpenClaw's own config, which only OpenClaw edits.")
    if not found:
        problems.append("OpenClaw is not installed here (no `openclaw` on PATH): install it with "
                        "`npm install -g openclaw` (with Node 24.16 or newer), or give --openclaw PATH.")
    if node_problem is not None:
        problems.append(f"{node_problem}: the `openclaw` commands this runs use it (your OpenClaw Gateway needs Node "
                        "24 too).")
    if found is None or node_problem is not None:
        raise click.ClickException("\n".join(problems))
    return OpenClaw(found, path if node_dir is not None else None)


def channel_config(hub_url: str, credential_path: Path, forward: bool) -> dict[str, Any]:
    return {"enabled": True, "hub": hub_url, "credentialFile": str(credential_path), "forwardApprovals": forward}


def exec_policy_note(openclaw: OpenClaw) -> str | None:
    mode = openclaw.run("config", "get", "tools.exec.mode", timeout=60).stdout.strip().strip('"')
    if mode in ("ask", "allowlist", "auto"):
        return None
    return ("OpenClaw's exec policy never asks by default, so no approval card would come: set it to ask with "
            "`openclaw config set tools.exec.mode ask` (or `openclaw exec-policy preset cautious`).")


@click.command("openclaw")
@pairing_options("OpenClaw", "openclaw.json", "Take the LineUp channel out of OpenClaw again.")
@click.option("--forward-approvals/--no-forward-approvals", default=False, show_default=True,
              help="Also bring approvals of OpenClaw sessions started elsewhere (Telegram, WhatsApp, the TUI, "
                   "`openclaw agent`), each session's in a conversation of its own.")
@click.option("--openclaw", "program", default=None, help="The `openclaw` program (default: the one on PATH).")
@click.option("--node-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder of a Node 24.16+ `node`, when the one on PATH is older.")
def connect_openclaw(hub_url: str | None, code: str | None, name: str, fingerprint: str | None,
                     credential_file: Path | None, forward_approvals: bool, program: str | None,
                     node_dir: Path | None, remove: bool) -> None:
    """Connect your OpenClaw Gateway: LineUp becomes one of its channels (conversations and exec approvals)."""
    openclaw = find_openclaw(program, node_dir, removing=remove)
    if remove:
        _remove(openclaw)
        return
    source = plugin_source()
    version = openclaw.version()
    credential, credential_path = pair(hub_url, code, credential_file or default_credential_path(), name=name,
                                       runtime="openclaw", fingerprint=fingerprint)
    copy = default_plugin_copy()
    copy_plugin(source, copy)
    # --force: a local folder (outside ClawHub) and a reinstall over an older copy; --accept-capabilities: the person
    # asked for this plugin by running this command.
    openclaw.must("plugins", "install", str(copy), "--force", "--accept-capabilities",
                  what="install the LineUp channel plugin")
    batch = [{"path": f"channels.{PLUGIN_ID}",
              "value": channel_config(credential.hub_url, credential_path, forward_approvals)}]
    openclaw.must("config", "set", "--batch-json", json.dumps(batch), what="write channels.lineup")
    click.echo(f"OpenClaw is connected to {credential.hub_url} as agent {credential.agent_id}.")
    click.echo(f"The LineUp channel plugin is installed in OpenClaw (from {copy}) and configured in channels.lineup "
               f"(credential: {credential_path}).")
    if version and version != OPENCLAW_VERSION:
        click.echo(f"Note: this plugin is built and tested with OpenClaw {OPENCLAW_VERSION}; yours is {version}. "
                   "OpenClaw's plugin SDK changes quickly: if the channel does not start, `openclaw channels status` "
                   "says why.")
    note = exec_policy_note(openclaw)
    if note:
        click.echo(note)
    if forward_approvals:
        click.echo("Approvals of OpenClaw sessions started elsewhere come to LineUp too, each session's in a "
                   "conversation of its own.")
    click.echo("Restart the OpenClaw Gateway for the channel to start (`openclaw gateway restart`, or stop and start "
               "`openclaw gateway run`); `--remove` takes it out again.")


def _remove(openclaw: OpenClaw) -> None:
    done = openclaw.run("plugins", "uninstall", PLUGIN_ID, "--force")
    said = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        if "not installed" in said.lower() or "not found" in said.lower() or "unknown plugin" in said.lower():
            click.echo("The LineUp channel was not installed in this OpenClaw; nothing changed.")
            return
        raise click.ClickException(f"OpenClaw could not uninstall the LineUp channel:\n{said[-2000:]}")
    shutil.rmtree(default_plugin_copy(), ignore_errors=True)
    click.echo("Removed the LineUp channel from OpenClaw (the plugin and channels.lineup). Restart the OpenClaw "
               "Gateway for it to take effect.")
    click.echo(STAYS_PAIRED)


def register(connect_group: click.Group, hook_group: click.Group) -> None:
    del hook_group  # the channel runs inside OpenClaw's Gateway: no hook command
    connect_group.add_command(connect_openclaw, "openclaw")
