"""hub/notify/compose.py: which events notify. An agent that signed off (closed its own connection: stopped on
purpose, or a Claude Code hook between sessions) is no "agent offline" alert; a dropped connection is."""

from __future__ import annotations

import pytest

from hub.notify.compose import kind_of
from hub.store.events import StoredEvent


def status_changed(reason: str) -> StoredEvent:
    return StoredEvent(1, "e1", "agent.status_changed", "ws1", None, None, None, "hub", "2026-12-01T00:00:00Z",
                       "2026-12-01T00:00:00Z", {"agentId": "agt_1", "status": "offline", "reason": reason})


@pytest.mark.parametrize(("reason", "kind"), [("disconnected", "agent_offline"), ("heartbeat_timeout", "agent_offline"),
                                              ("signed_off", None), ("hub_restarted", None), ("revoked", None)])
def test_which_offline_agents_notify(reason: str, kind: str | None) -> None:
    assert kind_of(status_changed(reason)) == kind
