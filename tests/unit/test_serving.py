"""hub/serving.py: the CLI finds the running hub's address, and ignores what a killed hub left behind."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from hub import serving


def test_the_address_of_a_live_hub_is_found_and_the_file_is_the_owners_alone(tmp_path: Path) -> None:
    serving.record(tmp_path, "http://127.0.0.1:9640/")
    assert serving.address(tmp_path) == "http://127.0.0.1:9640/"
    assert stat.S_IMODE((tmp_path / serving.FILE_NAME).stat().st_mode) == 0o600
    serving.forget(tmp_path)
    assert serving.address(tmp_path) is None and not (tmp_path / serving.FILE_NAME).exists()


def test_what_a_killed_hub_left_behind_is_ignored(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / serving.FILE_NAME).write_text(json.dumps({"url": "http://127.0.0.1:1/", "pid": int(gone.stdout)}))
    assert serving.address(tmp_path) is None
    serving.forget(tmp_path)  # not this process's record: left alone
    assert (tmp_path / serving.FILE_NAME).exists()
    (tmp_path / serving.FILE_NAME).write_text("{not json")
    assert serving.address(tmp_path) is None
