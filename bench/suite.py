"""C1: the test suite's wall time and the CPU the whole machine spent on it (busy jiffies of /proc/stat, steal apart).

Run: `python -m bench.suite [pytest arguments...]`, e.g. `python -m bench.suite -n 4` against the default -n 5.
It runs `python -m pytest -p no:cacheprovider` with CI=true (nothing skips) and prints one line. The machine-wide
count includes Chromium and agent processes that /usr/bin/time misses (they are not waited for by the test run);
the machine should be otherwise idle. Linux only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_counters() -> tuple[int, int]:
    """(busy, steal) jiffies since boot, over all CPUs."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq, steal


def main() -> None:
    busy0, steal0 = cpu_counters()
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *sys.argv[1:]],
                            check=False, env={**os.environ, "CI": "true"})
    wall = time.monotonic() - started
    busy1, steal1 = cpu_counters()
    busy = (busy1 - busy0) / TICK
    minutes, seconds = divmod(round(wall, 1), 60)  # whole minutes: a rounded format made 4:44 read "5:44"
    print(f"suite: exit {result.returncode}, {minutes:.0f}:{seconds:04.1f} wall, {busy:.0f} CPU-s busy "
          f"({busy / wall * 100:.0f} % of one core), {(steal1 - steal0) / TICK:.0f} s stolen by the host")
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
