"""Where a running hub can be opened, recorded in its data folder so the CLI on the same folder can say so."""

from __future__ import annotations

import json
import os
from pathlib import Path

FILE_NAME = "serving.json"


def record(data_dir: Path, url: str) -> None:
    """Called once the hub listens: its address on this machine and its process id (owner-only file)."""
    path = data_dir / FILE_NAME
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump({"url": url, "pid": os.getpid()}, file)


def forget(data_dir: Path) -> None:
    """Called when the hub stops; a hub killed with -9 leaves the file behind, which `address` then ignores."""
    try:
        record_pid = json.loads((data_dir / FILE_NAME).read_text()).get("pid")
    except (OSError, ValueError, AttributeError):
        return
    if record_pid == os.getpid():
        (data_dir / FILE_NAME).unlink(missing_ok=True)


def address(data_dir: Path) -> str | None:
    """The address of the hub serving this data folder now, if one is (its process still alive)."""
    try:
        found = json.loads((data_dir / FILE_NAME).read_text())
        url, pid = str(found["url"]), int(found["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's: still the hub of this folder
        pass
    return url
