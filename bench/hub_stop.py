"""Zombie hub, long form: SIGSTOP the hub for 30 s (docs/quality.md#reliability-drills), then check nothing misfired.

Run: python -m bench.hub_stop [--seconds 30]

It runs the suite's drill (tests/reliability/test_zombies_and_clocks.py, 5 s there) with a longer stop: a real
hub with 1 s heartbeats, an app and two raw agents that keep beating into the kernel's buffers while the hub
sleeps, an SDK agent that gives up on the silent hub and reconnects, five messages sent during the stop. Passes
when every queued message is acknowledged after SIGCONT, no beating peer is marked offline, the app's stream has
no gap or duplicate and `lineup db check` passes. Prints the recovery figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import Recorder

DRILL = "tests/reliability/test_zombies_and_clocks.py::test_a_stopped_hub_resumes_without_an_offline_storm_or_a_gap"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hub_stop", description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {**os.environ, "LINEUP_DRILL_HUB_STOP_S": str(args.seconds), "LINEUP_DRILL_REPORT": str(report)}
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "pytest", DRILL, "-q", "-p", "no:cacheprovider",
                              "-o", f"timeout={int(args.seconds) + 120}"], env=env, text=True, capture_output=True,
                             timeout=args.seconds + 300)
        figures = json.loads(report.read_text()) if report.exists() else {}
    result = {"seconds": args.seconds, "result": "pass" if run.returncode == 0 else "FAIL",
              "wallS": round(time.monotonic() - started, 1), **figures}
    if run.returncode != 0:
        print(run.stdout[-4000:], run.stderr[-2000:], sep="\n")
    Recorder("hub_stop").write("hub_stop", result)
    print(json.dumps(result))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
