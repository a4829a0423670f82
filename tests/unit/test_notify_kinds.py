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


def message(actor: str, **payload: object) -> StoredEvent:
    return StoredEvent(2, "e2", "message.created", "ws1", "conv_1", "task_1", None, actor, "2026-12-01T00:00:00Z",
                       "2026-12-01T00:00:00Z", {"messageId": "msg_1", "content": "Claude is waiting", **payload})


def test_only_an_agents_message_that_asks_for_attention_notifies() -> None:
    assert kind_of(message("agent:agt_1", attention=True)) == "agent_waiting"
    assert kind_of(message("agent:agt_1")) is None  # an ordinary message is no news
    assert kind_of(message("agent:agt_1", attention="yes")) is None  # only the boolean counts
    assert kind_of(message("user:usr_1", attention=True)) is None  # the domain refuses it; notify never trusts it
