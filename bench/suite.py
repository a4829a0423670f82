"""C1: the test suite's wall time and the CPU the whole machine spent on it (busy jiffies of /proc/stat, steal apart).

Run: `python -m bench.suite [pytest arguments...]`, e.g. `python -m bench.suite -n 4` against the default -n 5.
It runs `python -m pytest -p no:cacheprovider` with CI=true (nothing skips) and prints one line. The machine-wide
count includes Chromium and agent processes that /usr/bin/time misses (they are not waited for by the test run);
the machine should be otherwise idle. Linux only.

Then the durations check: every test file whose tests took more than FILE_LIMIT_S in all (setup, call and teardown,
from pytest's JUnit report), longest first; a file over the limit that LONG_FILES does not name, with the reason it
may be long, is flagged NEW: a change that made a file that long should say why here (or make it shorter).
"""

from __future__ import annotations

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
# Files allowed over FILE_LIMIT_S, and why: real agent CLIs, real browsers, builds and drills that are long by nature.
LONG_FILES = {
    "tests/integration/test_openclaw_channel.py": "a real OpenClaw Gateway per test, lineup connect openclaw, npm",
    "tests/integration/test_hermes_openclaw_acp.py": "real Hermes and OpenClaw over ACP; Hermes's own 60 s give-up",
    "tests/integration/test_hermes_platform.py": "a real hermes gateway with LineUp as its platform",
    "tests/integration/test_real_agents.py": "Claude Code, Codex and Gemini CLIs against fake model servers",
    "tests/integration/test_codex_terminal.py": "interactive Codex under tmux",
    "tests/integration/test_sessions_real.py": "sessions with the real claude-code-acp",
    "tests/integration/test_typescript_sdk.py": "the TypeScript SDK's own npm test against real hubs",
    "tests/integration/test_discovery.py": "mDNS announcements and their timeouts in network namespaces",
    "tests/packaging/test_executable.py": "the PyInstaller build (0 s when cached) and the executable's starts",
    "tests/packaging/test_wheel.py": "a wheel built and installed into a fresh environment",
    "tests/e2e/test_sessions_flow.py": "the whole sessions flow in Chromium with claude-code-acp, at two sizes",
    "tests/e2e/test_hostile_messages.py": "hostile messages of 256 KiB painted in Chromium",
    "tests/reliability/test_kill9.py": "kill -9 loops on a real hub process",
}


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


def durations_report(totals: dict[str, float]) -> list[str]:
    lines = []
    for path, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        if seconds <= FILE_LIMIT_S:
            break
        why = LONG_FILES.get(path)
        lines.append(f"  {seconds:6.1f} s  {path}" + (f"  ({why})" if why else "  NEW: over 10 s, not in LONG_FILES"))
    return lines


def cpu_counters() -> tuple[int, int]:
    """(busy, steal) jiffies since boot, over all CPUs."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq, steal


def main() -> None:
    busy0, steal0 = cpu_counters()
    started = time.monotonic()
    report = Path(tempfile.mkdtemp(prefix="lineup-suite-")) / "junit.xml"
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}",
                             "-o", "junit_duration_report=total", *sys.argv[1:]],
                            check=False, env={**os.environ, "CI": "true"})
    wall = time.monotonic() - started
    busy1, steal1 = cpu_counters()
    busy = (busy1 - busy0) / TICK
    minutes, seconds = divmod(round(wall, 1), 60)  # whole minutes: a rounded format made 4:44 read "5:44"
    print(f"suite: exit {result.returncode}, {minutes:.0f}:{seconds:04.1f} wall, {busy:.0f} CPU-s busy "
          f"({busy / wall * 100:.0f} % of one core), {(steal1 - steal0) / TICK:.0f} s stolen by the host")
    if report.exists():
        lines = durations_report(file_totals(report))
        new = sum("NEW:" in line for line in lines)
        print(f"files over {FILE_LIMIT_S:.0f} s: {len(lines)}, {new} flagged NEW")
        print("\n".join(lines))
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
