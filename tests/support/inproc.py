"""The in-process hub's old module: its names are tests/support/hubs.py's, kept for the files that import them here."""

from tests.support.hubs import STOP_TIMEOUT_S as STOP_TIMEOUT_S
from tests.support.hubs import InProcessHub as InProcessHub
