"""AgentClient.send() is for messages the hub acks: one it never acks is refused at once, not waited on forever."""

from __future__ import annotations

import pytest

from hub.sdk import AgentClient, Credential


def test_a_system_message_is_refused_by_send_instead_of_waiting_forever() -> None:
    # Walking the SDK as a new agent author: send("system.ping", {}) waited for an ack the hub never sends
    # (it answers with system.pong), so the caller hung.
    client = AgentClient(Credential("http://127.0.0.1:9", "agt_1", "ws_1", "secret"))
    with pytest.raises(ValueError, match="system.ping is the connection's own"):
        client.send_nowait("system.ping", {})
    assert client.outbox.pending() == []  # nothing queued to be re-sent after a reconnect either
