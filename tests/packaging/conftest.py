"""The executable under test: built once per session by packaging/build.py into a temporary folder, or reused from
the build cache when nothing it is built from has changed (packaging/build.py's input hash)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# PyInstaller takes 60 to 110 s here: a build is kept per input hash (LINEUP_TEST_EXECUTABLE_CACHE to move it).
CACHE = Path(os.environ.get("LINEUP_TEST_EXECUTABLE_CACHE", Path.home() / ".cache" / "lineup-agents" / "executable"))


@dataclass(frozen=True)
class Built:
    path: Path
    size_bytes: int
    build_s: float
    reused: bool


@pytest.fixture(scope="session")
def executable(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """PyInstaller --onefile takes a minute or so: once per session (or never, from the cache), never into the
    work tree (dist/, build/)."""
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("PyInstaller is not installed; it is part of the `test` extra: pip install -e '.[test]'")
    folder = tmp_path_factory.mktemp("executable")
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(folder / "dist"),
                             "--work", str(folder / "work"), "--quiet", "--cache", str(CACHE)],
                            capture_output=True, text=True, timeout=540, cwd=ROOT)
    assert result.returncode == 0, f"build failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    path = folder / "dist" / ("lineup.exe" if sys.platform == "win32" else "lineup")
    assert path.is_file(), result.stdout
    return Built(path, path.stat().st_size, time.monotonic() - started, "reused from the cache" in result.stdout)
