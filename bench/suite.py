"""C1: the test suite's wall time and the CPU the whole machine spent on it (busy jiffies of /proc/stat, steal apart).

Run: `python -m bench.suite [pytest arguments...]`, e.g. `python -m bench.suite -n 4` against the default -n 5.
It runs `python -m pytest -p no:cacheprovider` with CI=true (nothing skips) and prints one line. The machine-wide
count includes Chromium and agent processes that /usr/bin/time misses (they are not waited for by the test run);
the machine should be otherwise idle. Linux only.

Then the durations check: each test file's time (setup, call and teardown of its tests, from pytest's JUnit report)
against bench/suite-durations.json, and every file that now adds more than FILE_LIMIT_S (a new file: takes more
than that in all) is flagged. `--save-durations` (before the pytest arguments) makes this run's times the baseline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
FILE_LIMIT_S = 10.0
# Each file's seconds in a run this check compares with (`python -m bench.suite --save-durations` writes it).
BASELINE = Path(__file__).with_name("suite-durations.json")


def file_totals(report: Path) -> dict[str, float]:
    """Seconds per test file, from a JUnit XML report written with junit_duration_report=total."""
    totals: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).iter("testcase"):  # noqa: S314 - pytest wrote it, in this run
        module = case.get("classname", "").split(".")
        # classname is the dotted module (and class, if any): the file is its longest prefix that exists.
        for size in range(len(module), 0, -1):
            path = "/".join(module[:size]) + ".py"
            if Path(path).is_file():
                totals[path] += float(case.get("time", 0) or 0)
                break
    return dict(totals)


def durations_report(totals: dict[str, float], baseline: dict[str, float]) -> list[str]:
    """One line per file that now takes more than FILE_LIMIT_S longer than in the baseline (a new file: more than
    FILE_LIMIT_S in all), longest growth first."""
    grown = {path: seconds - baseline.get(path, 0.0) for path, seconds in totals.items()}
    lines = []
    for path, more in sorted(grown.items(), key=lambda item: -item[1]):
        if more <= FILE_LIMIT_S:
            break
        was = f"{baseline[path]:.1f} s before" if path in baseline else "a new file"
        lines.append(f"  +{more:5.1f} s  {path}: {totals[path]:.1f} s, {was}")
    return lines


def cpu_counters() -> tuple[int, int]:
    """(busy, steal) jiffies since boot, over all CPUs."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq, steal


def main() -> None:
    arguments = sys.argv[1:]
    save = "--save-durations" in arguments[:1]
    arguments = arguments[1:] if save else arguments
    busy0, steal0 = cpu_counters()
    started = time.monotonic()
    report = Path(tempfile.mkdtemp(prefix="lineup-suite-")) / "junit.xml"
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}",
                             "-o", "junit_duration_report=total", *arguments],
                            check=False, env={**os.environ, "CI": "true"})
    wall = time.monotonic() - started
    busy1, steal1 = cpu_counters()
    busy = (busy1 - busy0) / TICK
    minutes, seconds = divmod(round(wall, 1), 60)  # whole minutes: a rounded format made 4:44 read "5:44"
    print(f"suite: exit {result.returncode}, {minutes:.0f}:{seconds:04.1f} wall, {busy:.0f} CPU-s busy "
          f"({busy / wall * 100:.0f} % of one core), {(steal1 - steal0) / TICK:.0f} s stolen by the host")
    if report.exists():
        totals = file_totals(report)
        baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
        lines = durations_report(totals, baseline)
        print(f"files adding more than {FILE_LIMIT_S:.0f} s against {BASELINE.name}: {len(lines)}")
        print("\n".join(lines))
        if save:
            BASELINE.write_text(json.dumps({k: round(v, 1) for k, v in sorted(totals.items())}, indent=0) + "\n")
            print(f"saved this run's times to {BASELINE}")
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
