"""C1's map of a whole run: the CPU of every test and test file inside the full parallel suite, Chromium and agents included.

Run: `python -m bench.suite -p bench.cpu_per_test` (a pytest plugin), then `python -m bench.cpu_per_test` for the
tables. Each pytest process puts itself in a cgroup of its own (cgroup v1 `cpuacct`, so root on Linux) that every
process it starts inherits; with `--dist loadfile` a worker runs one file at a time, so the cgroup's CPU between a
test's start and end (set-up, call, tear-down: module fixtures too) is that test's, whatever else the machine runs.
`bench.file_cpu` measures a file alone; this measures it where it runs. Figures go to
bench/results/cpu-per-test/<worker>.json. Without a writable cpuacct hierarchy the plugin says so and does nothing.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
RESULTS = Path(__file__).resolve().parent / "results" / "cpu-per-test"


class Meter:
    """CPU-s of one cgroup, and each test's share of it."""

    def __init__(self, group: Path, worker: str) -> None:
        self.group, self.worker = group, worker
        self.tests: dict[str, tuple[float, float]] = {}
        self.last = self.usage()
        self.between = 0.0  # collection, start-up: CPU outside any test

    def usage(self) -> float:
        return int((self.group / "cpuacct.usage").read_text()) / 1e9

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        before, started = self.usage(), time.monotonic()
        self.between += before - self.last
        yield
        self.last = self.usage()
        self.tests[item.nodeid] = (self.last - before, time.monotonic() - started)

    def pytest_sessionfinish(self) -> None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        self.between += self.usage() - self.last
        (RESULTS / f"{self.worker}.json").write_text(json.dumps({"tests": self.tests, "between": self.between}))
        # Out of the group and the group gone (it stays, harmlessly empty-handed, if a child outlived the run).
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        with contextlib.suppress(OSError):
            self.group.rmdir()


def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    group = CPUACCT / f"lineup-suite-{worker}-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError as exc:
        print(f"bench.cpu_per_test: no cpuacct cgroup here ({exc}); nothing measured", file=sys.stderr)
        return
    if worker == "main":
        for old in RESULTS.glob("*.json"):  # this run's figures only
            old.unlink()
    config.pluginmanager.register(Meter(group, worker), "bench-cpu-meter")


def tables(results: list[dict[str, Any]], top: int = 25) -> str:
    """CPU-s per folder and per file (with the files' wall seconds), most first."""
    files: collections.Counter[str] = collections.Counter()
    walls: collections.Counter[str] = collections.Counter()
    for result in results:
        for nodeid, (cpu, wall) in result["tests"].items():
            name = nodeid.split("::")[0]
            files[name] += cpu
            walls[name] += wall
    folders: collections.Counter[str] = collections.Counter()
    for name, cpu in files.items():
        folders["/".join(name.split("/")[:2])] += cpu
    between = sum(result["between"] for result in results)
    lines = [f"{sum(files.values()):.0f} CPU-s in tests, {between:.0f} outside them (start-up, collection)", ""]
    lines += [f"{cpu:8.1f}  {folder}" for folder, cpu in folders.most_common()] + [""]
    lines += [f"{cpu:8.1f} CPU-s {walls[name]:7.1f} s  {name}" for name, cpu in files.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    found = sorted(RESULTS.glob("*.json"))
    if not found:
        sys.exit("no figures: run `python -m bench.suite -p bench.cpu_per_test` first")
    print(tables([json.loads(path.read_text()) for path in found]))


if __name__ == "__main__":
    main()
