"""Fixtures of the integration tests: raw LAP sockets that are closed when the test ends."""

from __future__ import annotations

from tests.conftest import Connect

__all__ = ["Connect"]  # the `lap` fixture itself lives in tests/conftest.py, shared by every folder
