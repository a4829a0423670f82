"""bench/suite.py's durations check: a test file that takes more than 10 s longer than in the baseline run (or a new
file over 10 s) is flagged; the seconds of a file are those of all its tests."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

from bench.suite import durations_report, file_totals

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.unit.test_build_cache" name="test_a" time="6.5"/>
  <testcase classname="tests.unit.test_build_cache" name="test_b" time="4.0"/>
  <testcase classname="tests.packaging.test_executable" name="test_size" time="30.0"/>
  <testcase classname="tests.unit.test_suite_durations.TestGroup" name="test_c" time="2.0"/>
  <testcase classname="tests.unit.test_suite_durations" name="test_d" time="7.0"/>
</testsuite></testsuites>
"""


def test_files_that_grew_by_more_than_10_s_are_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # file_totals finds the files from the repository root
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT)
    totals = file_totals(report)
    # setup, call and teardown of every test of a file add up; a class's tests count for its file
    assert totals == {"tests/unit/test_build_cache.py": 10.5, "tests/packaging/test_executable.py": 30.0,
                      "tests/unit/test_suite_durations.py": 9.0}
    baseline = {"tests/packaging/test_executable.py": 25.0, "tests/unit/test_suite_durations.py": 0.1}
    lines = durations_report(totals, baseline)
    # executable: +5 s, long but not longer by 10 s; durations: +8.9 s; build_cache: new, 10.5 s in all
    assert lines == ["  + 10.5 s  tests/unit/test_build_cache.py: 10.5 s, a new file"]
    assert durations_report(totals, {**baseline, "tests/packaging/test_executable.py": 19.0}) == [
        "  + 11.0 s  tests/packaging/test_executable.py: 30.0 s, 19.0 s before",
        "  + 10.5 s  tests/unit/test_build_cache.py: 10.5 s, a new file"]


def test_file_cpu_runs_each_file_alone_and_reports_its_exit_code_and_cpu(tmp_path: Path) -> None:
    from bench.file_cpu import measure

    passing = tmp_path / "test_passes.py"
    passing.write_text("def test_spins():\n    assert sum(range(2_000_000)) > 0\n")
    failing = tmp_path / "test_fails.py"
    failing.write_text("def test_fails():\n    assert False\n")
    code, cpu, wall = measure(str(passing))
    assert code == 0 and cpu > 0 and wall > 0
    assert measure(str(failing))[0] == 1


def test_file_cpu_ends_a_hung_file_with_what_it_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file past its time is ended with every process it started (a browser, an agent), which would otherwise go
    on spending the CPU the next file is measured by."""
    import bench.file_cpu

    child = tmp_path / "child.pid"
    hung = tmp_path / "test_hangs.py"
    hung.write_text("import subprocess, sys, time\n"
                    "def test_hangs():\n"
                    "    started = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
                    f"    open({str(child)!r}, 'w').write(str(started.pid))\n"
                    "    time.sleep(600)\n")
    monkeypatch.setattr(bench.file_cpu, "FILE_TIMEOUT_S", 8)
    code, _, wall = bench.file_cpu.measure(str(hung))
    assert code == -1 and wall < 60
    pid = int(child.read_text())
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the hung file's child outlived it"
        time.sleep(0.05)


def test_cpu_per_test_tables_sum_each_file_and_folder_most_first() -> None:
    from bench.cpu_per_test import tables

    workers = [{"tests": {"tests/e2e/test_a.py::one": [3.0, 5.0], "tests/e2e/test_a.py::two": [1.5, 2.0],
                          "tests/unit/test_b.py::x": [0.25, 0.5]}, "between": 2.0},
               {"tests": {"tests/integration/test_c.py::y": [4.0, 9.0]}, "between": 1.0}]
    out = tables(workers).splitlines()
    assert out[0] == "9 CPU-s in tests, 3 outside them (start-up, collection)"
    assert [line.split() for line in out[2:5]] == [["4.5", "tests/e2e"], ["4.0", "tests/integration"],
                                                   ["0.2", "tests/unit"]]
    assert out[6].split() == ["4.5", "CPU-s", "7.0", "s", "tests/e2e/test_a.py"]
