"""The catalog of programs the hub knows, each with a small function that reads its arguments; a program not in it
is "LineUp cannot tell what this runs". A path to a program is judged by where it is: the system's own folders and
the project's tool folders (`.venv/bin/python`, `node_modules/.bin/jest`) are the program they name, another file
in the project is the project's script (medium), anything else runs from outside the project (high)."""

from __future__ import annotations

import re
from dataclasses import replace

from hub.domain.risk import (
    builtins,
    databases,
    editors,
    files,
    git,
    interpreters,
    network,
    node_packages,
    packages,
    readers,
    system,
    tools,
    wrappers,
)
from hub.domain.risk.scope import Call, Judge, Scope
from hub.domain.risk.scripts import run_written

CATALOG: dict[str, Judge] = {
    **readers.PROGRAMS, **tools.PROGRAMS, **system.PROGRAMS, **network.PROGRAMS, **databases.PROGRAMS,
    **packages.PROGRAMS, **node_packages.PROGRAMS, **files.PROGRAMS, **editors.PROGRAMS, **interpreters.PROGRAMS,
    **wrappers.PROGRAMS, **builtins.PROGRAMS, "git": git.git,
}
SYSTEM_PROGRAM = re.compile(r"^/(usr/(local/)?|opt/homebrew/|opt/local/|run/current-system/sw/|nix/var/nix/profiles/"
                            r"default/)?s?bin/[^/]+$")
# Folders of a project whose programs are the tools they are named after (its virtual environment, its packages).
TOOL_FOLDERS = re.compile(r"(^|/)(\.?venv[\w.-]*/bin|env/bin|\.tox/[^/]+/bin|\.nox/[^/]+/bin|node_modules/\.bin"
                          r"|vendor/bin)/[^/]+$"
                          r"|(^|/)(gradlew|mvnw|manage\.py)$")
_VERSIONED = re.compile(r"^(.*?)-?\d+(?:\.\d+)*$")


def lookup(name: str) -> Judge | None:
    program = CATALOG.get(name)
    if program is None and (versioned := _VERSIONED.match(name)) is not None:
        program = CATALOG.get(versioned.group(1))
    return program


def judge(call: Call, scope: Scope) -> None:
    name = call.name
    if "/" in name:
        base = name.rpartition("/")[2]
        if not SYSTEM_PROGRAM.match(name):
            place = scope.folders.place(name)
            if place is None:
                scope.cannot_tell(name)
                return
            if (known := scope.known(name)) is not None:  # written by this same command
                run_written(known, scope, place.shown)
                return
            if not place.inside or place.kind in ("project_all", "workdir_all"):
                scope.raise_to("high", "runs_outside", place.shown)
                return
            program = lookup(base) if TOOL_FOLDERS.search(place.shown) else None
            if program is None:
                scope.raise_to("medium", "runs_script", place.shown)
                return
        name = base
    program = lookup(name)
    if program is None:
        scope.cannot_tell(name, "unknown_program")
        return
    program(replace(call, name=name), scope)
