"""`lineup connect claude-code`: pair Claude Code as an agent and write (or remove) its hooks in settings.json."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

from hub.connect import claude_settings
from hub.connect.hooks import hook_command_argv
from hub.sdk import Credential, pair_or_load


def default_credential_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("lineup-agents", appauthor=False)) / "claude-code.json"


def state_dir(credential_path: Path) -> Path:
    """Where the hooks keep their cursor, sessions and log: beside the credential they belong to."""
    return credential_path.with_name(credential_path.stem + ".state")


def settings_path(folder: Path | None, for_user: bool) -> Path:
    if for_user:
        return Path.home() / ".claude" / "settings.json"
    assert folder is not None
    return folder.expanduser().resolve() / ".claude" / "settings.json"


def hook_command(credential_path: Path, wait_s: float) -> str:
    return shlex.join(hook_command_argv() + ["--credential-file", str(credential_path.resolve()),
                                         "--wait-seconds", str(int(wait_s))])


def connect(settings: Path, hub_url: str | None, code: str | None, *, name: str, fingerprint: str | None,
            credential_path: Path | None, wait_s: float) -> Credential:
    """Pair (or reuse the stored credential), then merge the hooks into `settings`."""
    from hub import __version__

    path = credential_path or default_credential_path()
    options = {"name": name, "runtime": "claude-code", "agent_version": __version__}
    if fingerprint:
        options["tls_fingerprint"] = fingerprint
    credential = asyncio.run(pair_or_load(hub_url, code, path, **options))
    # The approval hooks may wait for the person: Claude Code's own timeout is a little longer than ours.
    claude_settings.install(settings, hook_command(path, wait_s), int(wait_s) + 30)
    return credential


def disconnect(settings: Path) -> bool:
    return claude_settings.remove(settings)
