"""Fails to import: its name and the reason must be reported, and the hub must start without it."""

import lineup_test_no_such_module  # noqa: F401
