"""`lineup connect claude-code`: Claude Code's hooks written into (or removed from) its settings.json."""

from __future__ import annotations

import shlex
from pathlib import Path

from hub.connect import claude_settings
from hub.connect.hooks import hook_command_argv


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


def connect(settings: Path, credential_path: Path, *, wait_s: float) -> None:
    """Merge the hooks, which connect with the credential at `credential_path` (paired by hub/connect/shape.py), into
    `settings`."""
    # The approval hooks may wait for the person: Claude Code's own timeout is a little longer than ours.
    claude_settings.install(settings, hook_command(credential_path, wait_s), int(wait_s) + 30)


def disconnect(settings: Path) -> bool:
    return claude_settings.remove(settings)
