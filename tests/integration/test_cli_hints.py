"""Terminal hints name the program the person can run (issue "When something goes wrong, the person sees it",
item 14): `lineup …` only when `lineup` on PATH is this installation, else its full path (or `python -m hub`), as the
app's commands do (hub/cli_invocation.py `program`), with `--data-dir` when the folder is not the default one.

The real console script of this venv is run; .venv/bin is not on the tests' PATH unless a test puts it there.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from hub.cli_invocation import console_script

SCRIPT = console_script()
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="no `lineup` console script beside this interpreter")


def run(*args: str, path_has_script: bool = False) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINEUP_")}
    folders = [f for f in env.get("PATH", "").split(os.pathsep) if f and Path(f).resolve() != SCRIPT.parent.resolve()]
    env["PATH"] = os.pathsep.join(([str(SCRIPT.parent)] if path_has_script else []) + folders)
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=60, env=env)


def test_hints_name_the_full_path_when_lineup_is_not_on_path(tmp_path: Path) -> None:
    assert SCRIPT is not None
    data = tmp_path / "my data"  # a space: the folder is quoted as a shell would need it
    program = shlex.quote(str(SCRIPT))
    made = run("token", "--data-dir", str(data))
    assert made.returncode == 0, made.stderr
    # A fresh hub: where its owner sets it up, with the command that serves this folder.
    assert f"`{program} serve --data-dir {shlex.quote(str(data))}` prints" in made.stderr, made.stderr
    assert "`lineup serve`" not in made.stderr

    verified = run("db", "verify", "--data-dir", str(data))
    assert verified.returncode == 0, verified.stderr
    found = re.search(r"check later with `(.+) --anchor \d+:[0-9a-f]+`", verified.stdout)
    assert found is not None, verified.stdout
    assert found.group(1) == f"{program} db verify --data-dir {shlex.quote(str(data))}"
    # The hint is a command that runs as it is shown.
    again = subprocess.run(shlex.split(found.group(0)[len("check later with `"):-1]), capture_output=True, text=True,
                           timeout=60)
    assert again.returncode == 0 and "ok: the chain holds" in again.stdout, again.stderr


def test_hints_say_lineup_when_it_is_on_path(tmp_path: Path) -> None:
    assert SCRIPT is not None and shutil.which("lineup", path=str(SCRIPT.parent)) is not None
    made = run("token", "--data-dir", str(tmp_path / "data"), path_has_script=True)
    assert f"`lineup serve --data-dir {shlex.quote(str(tmp_path / 'data'))}` prints" in made.stderr, made.stderr
    verified = run("db", "verify", "--data-dir", str(tmp_path / "data"), path_has_script=True)
    assert f"`lineup db verify --data-dir {shlex.quote(str(tmp_path / 'data'))} --anchor" in verified.stdout
