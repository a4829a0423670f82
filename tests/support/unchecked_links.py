"""Tests of how the app treats addresses a hub stored before it checked them (hub/domain/links.py): an older hub's
database holds `" javascript:…"` or `//evil.example` artifacts, and the app must still never make them what they
are not. `store_links_unchecked(monkeypatch)` lets the in-process hub (tests/support/inproc.py) store any address
again, wherever `check_link` is called from."""

from __future__ import annotations

import sys

import pytest

from hub.domain import links


def store_links_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    original = links.check_link
    for name, module in list(sys.modules.items()):
        if (name == "hub" or name.startswith("hub.")) and getattr(module, "check_link", None) is original:
            monkeypatch.setattr(module, "check_link", lambda value, field: value)
