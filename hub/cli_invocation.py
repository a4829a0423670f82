"""How this hub was started, as a command a person can paste: the real program, and --data-dir (and for `serve`,
--port) when not the default."""

from __future__ import annotations

import dataclasses
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


def launcher() -> list[str]:
    """The argv that starts this LineUp again from any folder, for commands written into another program's config.

    Claude Code, Codex and Gemini run their hooks and MCP servers from the project folder. `python -m hub` there
    puts that folder first on sys.path, so a repository with its own `hub/` (or `click/`, `msgspec/`, ...) package
    would run its code as LineUp's hook and could answer "allow" (docs/security.md#the-hooks-are-lineups-code).
    The console script beside this interpreter imports from its own installation; without one, `-P` keeps the
    current folder off sys.path (Python 3.11+). Never a `lineup` found on PATH: that may be another installation.
    """
    if getattr(sys, "frozen", False):  # the packaged executable (packaging/)
        return [sys.executable]
    script = console_script()
    return [str(script)] if script is not None else [sys.executable, "-P", "-m", "hub"]


def console_script() -> Path | None:
    """The `lineup` script installed beside this interpreter (a venv's bin/, pipx), if there is one."""
    folder = Path(sys.executable).parent
    for name in ("lineup", "lineup.exe", "Scripts/lineup.exe"):
        if (folder / name).is_file():
            return folder / name
    return None


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


def port_args(port: int) -> str:
    """`--port N` when the hub listens on another port than the default, so `lineup serve …` pasted to restart it
    comes back where phones and agents reach it (without it, it came back on 9527)."""
    default = next(f.default for f in dataclasses.fields(Settings) if f.name == "port")
    return "" if not port or port == default else f"--port {port}"


def describe(settings: Settings, port: int | None = None) -> dict[str, str]:
    """For /-/plugins.json: the app writes its commands with these (never a bare `lineup` that is not on PATH);
    `portArgs` for `lineup serve` only (`port`: the port the hub listens on, settings' when not given)."""
    return {"program": program(), "dataDirArgs": data_dir_args(settings),
            "portArgs": port_args(settings.port if port is None else port)}
