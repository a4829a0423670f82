"""The scripted ACP agent (tests/support/acp_agent.py) that takes `$ACP_TEST_START_DELAY_S` seconds to start, as a
real agent's process does on a loaded machine (Node's start, its login): what the app shows meanwhile is tested."""

from __future__ import annotations

import os
import runpy
import time
from pathlib import Path

time.sleep(float(os.environ.get("ACP_TEST_START_DELAY_S") or 0))
runpy.run_path(str(Path(__file__).with_name("acp_agent.py")), run_name="__main__")
