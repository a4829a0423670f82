"""One command to build the single-file `lineup` executable for this platform: `python packaging/build.py`.

Runs PyInstaller on packaging/lineup.spec and prints where the executable is and how big it is. Needs the
project and PyInstaller installed in the running Python (`pip install -e '.[test]'` brings both). With `--cache DIR`
an executable built before from the same inputs (the hash of `input_hash`) is reused instead of built again.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "lineup.spec"
# What goes into the executable: the hub's code and data, the spec and its helpers, the project's metadata.
INPUT_FOLDERS = ("hub", "packaging", "ui", "plugins", "integrations")  # the last three: [tool.lineup.carried]
INPUT_FILES = ("pyproject.toml", "setup.py")
SKIPPED_PARTS = {"__pycache__", "node_modules", ".mypy_cache", ".ruff_cache"}


def executable_path(dist: Path) -> Path:
    return dist / ("lineup.exe" if sys.platform == "win32" else "lineup")


def build(dist: Path, work: Path, *, windowed: bool | None = None, quiet: bool = False) -> Path:
    """Build into `dist` (PyInstaller's intermediate files in `work`) and return the executable's path."""
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm", "--clean",
               "--distpath", str(dist), "--workpath", str(work)]
    if quiet:
        command += ["--log-level", "WARN"]
    if windowed is not None:
        command += ["--", "--windowed" if windowed else "--console"]
    subprocess.run(command, check=True, cwd=ROOT)
    return executable_path(dist)


def input_hash(windowed: bool | None = None) -> str:
    """A hash of everything the build reads: the files of INPUT_FOLDERS and INPUT_FILES (paths and bytes), the
    installed distributions with their versions (PyInstaller and the hub's dependencies are what it bundles), the
    Python and the platform. Two builds with the same hash make the same executable, so one can stand for the other."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{platform.platform()}|{platform.machine()}|{windowed}".encode())
    distributions = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    digest.update("\n".join(distributions).encode())
    paths = [ROOT / name for name in INPUT_FILES]
    for folder in INPUT_FOLDERS:
        for here, dirs, files in os.walk(ROOT / folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_PARTS)
            paths += [Path(here) / f for f in sorted(files) if not f.endswith((".pyc", ".pyo"))]
    for path in paths:
        if path.is_file():
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:32]


def build_cached(cache: Path, dist: Path, work: Path, *, windowed: bool | None = None,
                 quiet: bool = False) -> tuple[Path, bool]:
    """(the executable in `dist`, whether it came from `cache`). A new build is put in the cache under its input
    hash (written beside and renamed, so a build stopped half-way is never taken for a whole one); only the newest
    few builds are kept."""
    key = input_hash(windowed)
    kept = cache / key / executable_path(Path(".")).name
    target = executable_path(dist)
    dist.mkdir(parents=True, exist_ok=True)
    if kept.is_file():
        shutil.copy2(kept, target)
        return target, True
    built = build(dist, work, windowed=windowed, quiet=quiet)
    (cache / key).mkdir(parents=True, exist_ok=True)
    partial = kept.with_name(f".{kept.name}.{os.getpid()}.partial")
    shutil.copy2(built, partial)
    os.replace(partial, kept)
    entries = sorted((p for p in cache.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[3:]:
        shutil.rmtree(old, ignore_errors=True)
    return built, False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="Where the executable goes (default: dist/).")
    parser.add_argument("--work", type=Path, default=ROOT / "build",
                        help="PyInstaller's work folder (default: build/).")
    console = parser.add_mutually_exclusive_group()
    console.add_argument("--windowed", action="store_const", const=True, dest="windowed", default=None,
                         help="No console window (the default on Windows).")
    console.add_argument("--console", action="store_const", const=False, dest="windowed",
                         help="A console program (the default on macOS and Linux).")
    parser.add_argument("--quiet", action="store_true", help="Only PyInstaller's warnings and errors.")
    parser.add_argument("--cache", type=Path, default=None,
                        help="A folder of earlier builds: reuse the one built from the same inputs, or keep this one.")
    args = parser.parse_args()
    started = time.monotonic()
    reused = False
    try:
        if args.cache is None:
            path = build(args.dist, args.work, windowed=args.windowed, quiet=args.quiet)
        else:
            path, reused = build_cached(args.cache, args.dist, args.work, windowed=args.windowed, quiet=args.quiet)
    except subprocess.CalledProcessError as exc:
        sys.exit(f"build failed: PyInstaller exited with {exc.returncode}; its output above says why.")
    size_mb = path.stat().st_size / 1e6
    how = "reused from the cache (same inputs)" if reused else "built"
    print(f"{how} {path} ({size_mb:.1f} MB) in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
