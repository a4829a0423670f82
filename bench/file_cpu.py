"""C1's map: the machine CPU and wall time each test file costs when it runs alone, to see where the suite's CPU goes.

Run: `python -m bench.file_cpu FILE [FILE ...]`. Each file runs by itself (`pytest -n 0`, CI=true, nothing skips)
and one line is printed per file: its exit code, the CPU the whole machine spent (busy jiffies of /proc/stat, so
Chromium and agent processes count) and the wall time. The suite is CPU-bound on two cores, so CPU-s, not a
file's duration under load, is what a change must lower. The machine should be otherwise idle. Linux only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from bench.suite import TICK, cpu_counters

FILE_TIMEOUT_S = 900  # a hung file is reported as such, and the next one runs


def measure(path: str) -> tuple[int, float, float]:
    """(exit code, machine CPU-s, wall s) of one test file run alone."""
    busy0, _ = cpu_counters()
    started = time.monotonic()
    # A session of its own, so a hung file's Chromium and agents go with it, not only pytest (they would go on
    # spending the CPU the next file is measured by).
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                           env={**os.environ, "CI": "true"})
    try:
        code = run.wait(timeout=FILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
        code = -1
    busy1, _ = cpu_counters()
    return code, (busy1 - busy0) / TICK, time.monotonic() - started


def main() -> None:
    paths = sys.argv[1:]
    if not paths:
        sys.exit("usage: python -m bench.file_cpu FILE [FILE ...]")
    total = 0.0
    for path in paths:
        code, cpu, wall = measure(path)
        total += cpu
        print(f"{cpu:6.0f} CPU-s {wall:6.0f} s wall  exit {code}  {path}", flush=True)
    print(f"{total:6.0f} CPU-s in all")


if __name__ == "__main__":
    main()
