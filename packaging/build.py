"""One command to build the single-file `lineup` executable for this platform: `python packaging/build.py`.

Runs PyInstaller on packaging/lineup.spec and prints where the executable is and how big it is. Needs the
project and PyInstaller installed in the running Python (`pip install -e '.[test]'` brings both).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "lineup.spec"


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
    args = parser.parse_args()
    started = time.monotonic()
    try:
        path = build(args.dist, args.work, windowed=args.windowed, quiet=args.quiet)
    except subprocess.CalledProcessError as exc:
        sys.exit(f"build failed: PyInstaller exited with {exc.returncode}; its output above says why.")
    size_mb = path.stat().st_size / 1e6
    print(f"built {path} ({size_mb:.1f} MB) in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
