"""How this hub was started, as a command a person can paste: the real program, and --data-dir when not the default."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from hub.settings import Settings, default_data_dir


def program() -> str:
    """`lineup` when that name on PATH is this hub's program; else the path it was started by (README's install puts
    it in .venv/bin, which is not on PATH), or `python -m hub` with this interpreter."""
    if getattr(sys, "frozen", False):  # the packaged executable (packaging/)
        return _shortest(sys.executable)
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name in ("lineup", "lineup.exe"):
        return _shortest(os.path.abspath(argv0))
    return f"{shlex.quote(sys.executable)} -m hub"


def _shortest(path: str) -> str:
    found = shutil.which(Path(path).name)
    try:
        if found and os.path.samefile(found, path):
            return Path(path).name
    except OSError:
        pass
    return shlex.quote(path)


def data_dir_args(settings: Settings) -> str:
    """`--data-dir PATH` when the hub uses another folder than the default one, so a pasted command finds it."""
    try:
        if settings.data_dir.resolve() == default_data_dir().resolve():
            return ""
    except OSError:
        pass
    return f"--data-dir {shlex.quote(str(settings.data_dir))}"


def describe(settings: Settings) -> dict[str, str]:
    """For /-/plugins.json: the app writes its commands with these (never a bare `lineup` that is not on PATH)."""
    return {"program": program(), "dataDirArgs": data_dir_args(settings)}
