"""The one build step pyproject.toml cannot say: the checkout's folders beside hub/ travel inside it, as files.

pyproject.toml's [tool.lineup.carried] names them (plugins/, ui/, what `lineup connect` installs into other
programs); a wheel holds each at hub/<folder>/, where hub/layout.py looks first, so an installed hub has one
top-level name, `hub`. An editable install copies nothing: the hub finds them beside hub/ in the checkout.
"""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SKIPPED_PARTS = {"__pycache__", "node_modules"}


def carried_files() -> Iterator[tuple[Path, Path]]:
    """(file in the checkout, its path inside hub/) for every file [tool.lineup.carried] names; no bytecode, no
    pytest files (an author's `test_dice.py` beside `dice.py` stays in the checkout)."""
    carried = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["lineup"]["carried"]
    for folder, patterns in carried.items():
        for pattern in patterns:
            for path in sorted((ROOT / folder).glob(pattern)):
                relative = path.relative_to(ROOT)
                if not path.is_file() or SKIPPED_PARTS & set(relative.parts) or path.suffix == ".pyc" \
                        or path.name == "conftest.py" or path.name.startswith("test_"):
                    continue
                yield path, relative


class BuildPy(build_py):
    """setuptools' build_py, then the carried folders copied into the built hub/ (a clean one: no file of an
    earlier build's left behind)."""

    def run(self) -> None:
        if not self.editable_mode:
            shutil.rmtree(Path(self.build_lib) / "hub", ignore_errors=True)
        super().run()
        if self.editable_mode:
            return
        for source, relative in carried_files():
            target = Path(self.build_lib) / "hub" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


if __name__ == "__main__":  # run by the build backend; packaging/lineup.spec only reads carried_files
    setup(packages=find_namespace_packages(include=["hub", "hub.*"]), cmdclass={"build_py": BuildPy})
