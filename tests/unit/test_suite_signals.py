"""The suite's own ground: a process the tests start stops on Ctrl+C (SIGINT), however the suite was launched."""

from __future__ import annotations

import signal
import subprocess
import sys


def test_a_child_process_stops_on_sigint_even_when_the_suite_runs_as_a_background_job() -> None:
    # tests/conftest.py's pytest_configure puts SIGINT back when a shell without job control ignored it; without
    # that, this child inherits "ignored" and sleeps on (the demo-agent tests then waited 10 s per teardown).
    child = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=10)
    finally:
        child.kill()
        child.wait()
    # Python ends an uncaught KeyboardInterrupt by dying of SIGINT itself, as a C program would: -2, with a traceback.
    assert child.returncode == -signal.SIGINT and "KeyboardInterrupt" in err
