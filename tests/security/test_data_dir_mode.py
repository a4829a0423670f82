"""The data folder is the owner's alone (0700) at every start, also when it already existed with wider permissions
(security issue, item 11b).

`--data-dir` may name a folder made by hand or by an older version (0755): other users of the machine could list
it (the names and sizes of the database, its WAL, the chain anchor, the TLS key's folder). Before, only a folder
the hub created itself was 0700. Now `lineup serve` (and `lineup token` / `lineup pair`, which may run first) make it
0700 and say so once; a folder that is already private is left alone, silently. A real `lineup serve` each time.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.security.support import ServedHub
from tests.support.hubproc import run_cli

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_existing_wide_folder_is_made_private_and_said_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)
    hub = ServedHub(data, process=True).start()
    try:
        assert mode(data) == 0o700, oct(mode(data))
        hub.wait_banner(r"LineUp hub .* is running")
        said = [line for line in hub.banner().splitlines() if line.startswith("Made ")]
        assert said == [f"Made {data} private (was 0755): other users of this machine could list its files; now "
                        "only you can."], hub.banner()
    finally:
        hub.stop()
    # A restart finds it private: nothing to say.
    hub = ServedHub(data, process=True).start()
    try:
        hub.wait_banner(r"(?s)is running.*is running")
        assert hub.banner().count("Made ") == 1, hub.banner()
    finally:
        hub.stop()


def test_a_new_folder_is_made_private_silently(tmp_path: Path) -> None:
    data = tmp_path / "data"
    hub = ServedHub(data, process=True).start()
    try:
        assert mode(data) == 0o700, oct(mode(data))
        hub.wait_banner(r"LineUp hub .* is running")
        assert "Made " not in hub.banner(), hub.banner()
    finally:
        hub.stop()


def test_lineup_token_makes_it_private_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o775)
    done = run_cli(data, "token")
    assert mode(data) == 0o700, oct(mode(data))
    assert f"Made {data} private (was 0775)" in done.stderr, done.stderr
    assert "Made" not in done.stdout  # stdout is the token alone


def test_a_shared_folder_is_not_locked_but_said_to_be_shared(tmp_path: Path) -> None:
    """`--data-dir /tmp` must not lock the machine's /tmp: a sticky (shared) folder keeps its mode, with a warning."""
    data = tmp_path / "shared"
    data.mkdir()
    data.chmod(0o1777)
    done = run_cli(data, "token")
    assert stat.S_IMODE(data.stat().st_mode) == 0o1777
    assert f"{data} is not a folder of its own" in done.stderr and "--data-dir" in done.stderr, done.stderr
