"""Every example in plugins/README.md runs: each ```python block is a file (`# file: name.py`), the plugin
files are imported and the test files' `test_*` functions run against hub.testing's in-process hub."""

from __future__ import annotations

import inspect
import os
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "plugins" / "README.md"
BLOCK = re.compile(r"^```(python|toml)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"^# file: ([a-z_][a-z0-9_]*)\.py\n")


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(README.read_text(encoding="utf-8")) if lang == kind]


def files() -> dict[str, str]:
    found: dict[str, str] = {}
    for body in blocks("python"):
        marker = MARKER.match(body)
        assert marker, f"a python example without `# file: name.py` on its first line:\n{body[:200]}"
        assert marker.group(1) not in found, f"{marker.group(1)}.py appears twice"
        found[marker.group(1)] = body
    return found


def test_the_tool_plugin_example_is_under_15_lines() -> None:
    first = blocks("python")[0]
    assert first.startswith("# file: dice.py\n")
    lines = first.splitlines()[1:]  # the `# file:` marker is not part of the plugin
    assert len(lines) < 15, len(lines)


def test_the_toml_examples_are_valid_toml() -> None:
    assert blocks("toml")
    for body in blocks("toml"):
        assert tomllib.loads(body)["plugins"]


@pytest.fixture
def examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The README's files written to a folder on sys.path, and forgotten again afterwards."""
    found = files()
    for name, body in found.items():
        (tmp_path / f"{name}.py").write_text(body, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in found:
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield found
    for name in found:
        sys.modules.pop(name, None)


async def test_every_python_example_runs(examples: dict[str, str]) -> None:
    import importlib

    tests = [name for name in examples if name.startswith("test_")]
    assert len(tests) >= 4 and len(examples) - len(tests) >= 8
    for name in examples:
        if not name.startswith("test_"):
            importlib.import_module(name)  # the plugin files import cleanly
    ran = []
    for name in tests:
        module = importlib.import_module(name)
        for attr, function in sorted(vars(module).items()):
            if attr.startswith("test_") and inspect.iscoroutinefunction(function):
                await function()
                ran.append(f"{name}.{attr}")
    assert len(ran) == len(tests), ran


def test_the_test_examples_pass_when_an_author_runs_pytest_on_them(tmp_path: Path) -> None:
    """As an author runs them: the README's files in a folder of their own, `python -m pytest` there, no config of
    this project's (its asyncio_mode = "auto" would hide a missing marker). Walking the guide, `test_dice.py` failed
    that way with pytest-asyncio's default mode: "async def functions are not natively supported"."""
    import subprocess

    for name, body in files().items():
        (tmp_path / f"{name}.py").write_text(body, encoding="utf-8")
    tests = sorted(name for name in files() if name.startswith("test_"))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                          "--rootdir", str(tmp_path), *(f"{name}.py" for name in tests)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(tmp_path), "PYTEST_ADDOPTS": ""})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert f"{len(tests)} passed" in run.stdout, run.stdout[-2000:]
