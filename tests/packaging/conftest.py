"""The executable under test: built once per session by packaging/build.py into a temporary folder."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Built:
    path: Path
    size_bytes: int
    build_s: float


@pytest.fixture(scope="session")
def executable(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """PyInstaller --onefile takes a minute or so: once per session, never into the work tree (dist/, build/)."""
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("PyInstaller is not installed; it is part of the `test` extra: pip install -e '.[test]'")
    folder = tmp_path_factory.mktemp("executable")
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(folder / "dist"),
                             "--work", str(folder / "work"), "--quiet"],
                            capture_output=True, text=True, timeout=540, cwd=ROOT)
    assert result.returncode == 0, f"build failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    path = folder / "dist" / ("lineup.exe" if sys.platform == "win32" else "lineup")
    assert path.is_file(), result.stdout
    return Built(path, path.stat().st_size, time.monotonic() - started)
