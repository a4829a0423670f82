"""Secrets at rest: the database files are the owner's alone, and a `lineup.toml` holding secrets must be too.

The data folder is made 0700, but `--data-dir` may name a folder that already exists with 0755: the files in it
must not rely on the folder. `lineup.toml` may hold an SMTP password, webhook headers (an access token) and the
relay's tokens (hub/notify/config.py, hub/relay/config.py); readable by others, it hands them out.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
import tomllib
from pathlib import Path
from typing import Any

from hub.settings import CONFIG_FILE

log = logging.getLogger("lineup.files")

SECRET_WORDS = ("password", "token", "secret", "headers", "api_key", "apikey")


def _secret_keys(table: dict[str, Any], where: str = "") -> list[str]:
    found = []
    for key, value in table.items():
        name = f"{where}.{key}" if where else key
        if isinstance(value, dict) and key.lower() != "headers":
            found += _secret_keys(value, name)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    found += _secret_keys(item, f"{name}[{index}]")
        elif value and any(word in key.lower() for word in SECRET_WORDS):
            found.append(name)
    return found


def config_secrets(path: Path) -> list[str]:
    """The keys of `lineup.toml` that hold a secret (not their values)."""
    try:
        return _secret_keys(tomllib.loads(path.read_text()))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []  # settings loading reports an unreadable file itself


def check_config_file(data_dir: Path) -> None:
    """Warn when `lineup.toml` holds secrets and others may read it; the packaged app refuses to start."""
    path = data_dir / CONFIG_FILE
    if os.name == "nt" or not path.is_file():
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if not mode & 0o044:
        return
    secrets = config_secrets(path)
    if not secrets:
        return
    message = (f"{path} holds secrets ({', '.join(secrets)}) and can be read by other users of this machine "
               f"(mode {mode:o}); make it yours alone: chmod 600 {path}")
    if getattr(sys, "frozen", False):
        raise SystemExit(f"lineup: {message}")
    log.warning("%s", message)
