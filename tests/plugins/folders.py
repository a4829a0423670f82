"""The test plugin folders, and copies of them for a hub to load (so nothing is written into the repository)."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOOD = HERE / "good"       # everyhook (a package implementing every hook), greeter (one file), _skipped
BROKEN = HERE / "broken"   # plugins that fail in every way the hub must report

ALL_HOOKS = ["after_commit", "register_notifiers", "register_routes", "register_runtimes", "register_tools",
             "register_ui_modules", "shutdown", "startup"]


def copy_folder(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def fake_distribution(root: Path, dist: str, version: str, entry_points: dict[str, str],
                      modules: dict[str, str]) -> Path:
    """A distribution installed only by being on sys.path: `<dist>-<version>.dist-info/` with METADATA and
    entry_points.txt (group `lineup`), and its modules beside it. Put `root` on PYTHONPATH to install it."""
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(
        "[lineup]\n" + "".join(f"{name} = {target}\n" for name, target in entry_points.items()))
    for name, source in modules.items():
        (root / f"{name}.py").write_text(source)
    return root
