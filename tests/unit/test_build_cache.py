"""packaging/build.py's cache: the input hash changes with any file the executable is built from, and a cached
executable is reused only for the same inputs (the suite's executable tests would otherwise test a stale build)."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_build(root: Path) -> Any:  # packaging/build.py, loaded from a file: mypy does not see its names
    spec = importlib.util.spec_from_file_location("lineup_build_under_test", root / "packaging" / "build.py")
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ROOT = root
    return module


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of what the build reads, small enough to change freely."""
    root = tmp_path / "src"
    for folder in ("hub", "ui", "plugins", "packaging"):
        (root / folder).mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / "build.py", root / "packaging" / "build.py")
    (root / "hub" / "core.py").write_text("X = 1\n")
    (root / "ui" / "app.js").write_text("let x = 1;\n")
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return root


def test_the_hash_follows_every_input_and_nothing_else(tree: Path) -> None:
    build = load_build(tree)
    first = build.input_hash()
    assert build.input_hash() == first
    (tree / "hub" / "__pycache__").mkdir()
    (tree / "hub" / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"compiled")
    assert build.input_hash() == first  # compiled files are not inputs
    seen = {first}
    change: Callable[[], object]
    for change in (lambda: (tree / "hub" / "core.py").write_text("X = 2\n"),
                   lambda: (tree / "ui" / "app.js").write_text("let x = 2;\n"),
                   lambda: (tree / "ui" / "new.css").write_text("a{}"),
                   lambda: (tree / "plugins" / "dice.py").write_text("X = 1\n"),
                   lambda: (tree / "setup.py").write_text("# the package map\n"),
                   lambda: (tree / "pyproject.toml").write_text("[project]\nname = 'y'\n"),
                   lambda: (tree / "packaging" / "lineup.spec").write_text("# spec\n")):
        change()
        now = build.input_hash()
        assert now not in seen
        seen.add(now)
    assert build.input_hash(windowed=True) not in seen


def test_a_cached_build_is_reused_only_for_the_same_inputs(tree: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    build = load_build(tree)
    runs: list[Path] = []

    def fake_pyinstaller(dist: Path, work: Path, **_: Any) -> Path:
        """PyInstaller itself is tested by tests/packaging; here only what the cache does around it."""
        runs.append(dist)
        dist.mkdir(parents=True, exist_ok=True)
        made: Path = build.executable_path(dist)
        made.write_text(f"executable of build {len(runs)}")
        return made

    monkeypatch.setattr(build, "build", fake_pyinstaller)
    cache = tmp_path / "cache"
    path, reused = build.build_cached(cache, tmp_path / "d1", tmp_path / "w")
    assert (reused, len(runs), path.read_text()) == (False, 1, "executable of build 1")
    path, reused = build.build_cached(cache, tmp_path / "d2", tmp_path / "w")
    assert (reused, len(runs), path.read_text()) == (True, 1, "executable of build 1")
    assert path == build.executable_path(tmp_path / "d2")
    (tree / "hub" / "core.py").write_text("X = 3\n")
    path, reused = build.build_cached(cache, tmp_path / "d3", tmp_path / "w")
    assert (reused, len(runs), path.read_text()) == (False, 2, "executable of build 2")
    assert not list(cache.rglob("*.partial"))
