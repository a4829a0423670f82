"""Blocked by name (LINEUP_BLOCKED_PLUGINS=blocked_me in the test): a blocked plugin is never imported."""

raise RuntimeError("blocked_me.py was imported although it is blocked")
