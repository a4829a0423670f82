"""Every dangerous form the hub labels high really runs its payload in bash: each form's twin (its payload replaced by
`touch /marker/<name>`, or followed by a check that its write landed) runs with bash inside a bubblewrap sandbox
without network, with a throwaway home (/home/me) and project (/home/me/proj), and must leave its marker
(tests/support/risk_corpus.py, docs/security.md#how-the-hub-judges-the-risk).

Forms whose twin needs a server, the network or a program the machine lacks are skipped one by one, saying why;
without bubblewrap the file skips on a developer's machine and fails in CI, which installs it (.ci/run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.support.needs import missing
from tests.support.risk_corpus import DANGEROUS, Form

TIMEOUT_S = 30  # one twin; the slowest waits 3 s for `watch` on a busy two-core machine


@cache
def bwrap_problem() -> str | None:
    """Why the sandbox cannot run here, or None."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (apt-get install bubblewrap; .ci/run does it)"
    try:
        done = subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/", "/", "true"], capture_output=True,
                              timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap does not start: {error}"
    if done.returncode != 0:
        return f"bwrap cannot make a sandbox here: {done.stderr.decode(errors='replace').strip()}"
    return None


def require(problem: str | None) -> None:
    """Skip on a developer's machine; fail in CI, which installs what the sandbox and the twins need."""
    if problem:
        missing(problem)


def sandbox(marker: Path, script: str) -> list[str]:
    """bash in a sandbox as an ordinary user (bash ignores PS4 from the environment for root): the system
    read-only, no network, a fresh home, project, /tmp, /var and /usr/local."""
    command = ["bwrap", "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000", "--die-with-parent",
               "--new-session", "--ro-bind", "/usr", "/usr",
               "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var",
               "--tmpfs", "/home", "--dir", "/home/me/proj", "--tmpfs", "/usr/local", "--bind", str(marker), "/marker",
               "--chdir", "/home/me/proj", "--clearenv"]
    for folder in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / folder
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            command += ["--ro-bind", str(path), str(path)]
    for name, value in {"HOME": "/home/me", "USER": "me", "PATH": "/usr/local/bin:/usr/bin:/bin", "TERM": "xterm",
                        "LANG": "C.UTF-8", "GIT_AUTHOR_NAME": "Me", "GIT_AUTHOR_EMAIL": "me@example.com",
                        "GIT_COMMITTER_NAME": "Me", "GIT_COMMITTER_EMAIL": "me@example.com",
                        "npm_config_update_notifier": "false", "npm_config_cache": "/tmp/npm"}.items():
        command += ["--setenv", name, value]
    return [*command, "bash", "--noprofile", "--norc", "-c", script]


RUNNABLE = [form for form in DANGEROUS if not form.skip]


NOT_RUN = [form for form in DANGEROUS if form.skip]


def test_the_forms_not_run_are_few_and_each_says_why() -> None:
    """A twin that cannot run here (a database server, the network, sudo, another OS) is left out by name, never
    skipped quietly in CI: the list is the one docs/security.md states."""
    assert len(NOT_RUN) <= 40 and all(len(form.skip or "") >= 8 for form in NOT_RUN)
    assert len(RUNNABLE) >= 140


@pytest.mark.parametrize("form", RUNNABLE, ids=lambda form: form.name)
def test_bash_runs_what_the_label_warns_of(form: Form, tmp_path: Path) -> None:
    require(bwrap_problem())
    missing = [program for program in form.needs if shutil.which(program) is None]
    require(f"{form.name} needs {', '.join(missing)} (.ci/run installs it)" if missing else None)
    marker = tmp_path / "marker"
    marker.mkdir(mode=0o777)
    marker.chmod(0o777)  # the sandbox's user writes the marker
    try:
        done = subprocess.run(sandbox(marker, form.twin_script()), capture_output=True, timeout=TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{form.name}: the twin did not finish in {TIMEOUT_S} s: {error}")
    made = sorted(p.name for p in marker.iterdir())
    assert form.name in made, (f"{form.name}: bash did not run the payload of\n{form.twin_script()[:600]}\n"
                               f"exit {done.returncode}; stderr: {done.stderr.decode(errors='replace')[-800:]}")


def test_most_forms_are_proved_by_running_them() -> None:
    """Skips are the exception: servers, the network and programs a sandbox cannot have."""
    assert len(RUNNABLE) >= 0.75 * len(DANGEROUS), f"only {len(RUNNABLE)} of {len(DANGEROUS)} twins run"
    carries = ("{p}", "{b64}", "{hex}", "{pyhex}")
    assert all(any(c in form.twin for c in carries) or form.name in form.twin for form in RUNNABLE)


def test_the_sandbox_has_no_network_and_a_twin_without_its_payload_leaves_no_marker(tmp_path: Path) -> None:
    """A marker is the twin's doing, and the twins reach no other machine."""
    require(bwrap_problem())
    marker = tmp_path / "marker"
    marker.mkdir()
    script = ("touch ~/x /tmp/y && python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80), 2)\""
              " 2>/dev/null && echo reached")
    done = subprocess.run(sandbox(marker, script), capture_output=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert b"reached" not in done.stdout
    assert list(marker.iterdir()) == []
