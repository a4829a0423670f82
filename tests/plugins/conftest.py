"""Fixtures of the plugin tests: raw LAP sockets closed at the end of each test."""

from __future__ import annotations

from tests.conftest import Connect

__all__ = ["Connect"]  # the `lap` fixture itself lives in tests/conftest.py, shared by every folder
