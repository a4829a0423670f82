"""bench/suite.py's durations check: a test file whose tests take more than 10 s in all is listed, and flagged NEW
unless LONG_FILES says why it may be long."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.suite import LONG_FILES, durations_report, file_totals

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.unit.test_build_cache" name="test_a" time="6.5"/>
  <testcase classname="tests.unit.test_build_cache" name="test_b" time="4.0"/>
  <testcase classname="tests.packaging.test_executable" name="test_size" time="30.0"/>
  <testcase classname="tests.unit.test_suite_durations.TestGroup" name="test_c" time="2.0"/>
  <testcase classname="tests.unit.test_suite_durations" name="test_d" time="7.0"/>
</testsuite></testsuites>
"""


def test_files_over_the_limit_are_listed_and_the_unexplained_ones_flagged(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # file_totals finds the files from the repository root
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT)
    totals = file_totals(report)
    # setup, call and teardown of every test of a file add up; a class's tests count for its file
    assert totals == {"tests/unit/test_build_cache.py": 10.5, "tests/packaging/test_executable.py": 30.0,
                      "tests/unit/test_suite_durations.py": 9.0}
    lines = durations_report(totals)
    assert len(lines) == 2  # 9.0 s is under the limit
    assert "tests/packaging/test_executable.py" in lines[0] and LONG_FILES["tests/packaging/test_executable.py"] in \
        lines[0]
    assert "tests/unit/test_build_cache.py" in lines[1] and "NEW: over 10 s" in lines[1]


def test_every_file_named_as_long_exists() -> None:
    root = Path(__file__).resolve().parents[2]
    assert [path for path in LONG_FILES if not (root / path).is_file()] == []
