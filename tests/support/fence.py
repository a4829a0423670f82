"""A sentinel round trip: store one more event and wait until sockets have it, instead of sleeping and counting."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from tests.support.lap import LapClient


async def fence(sender: LapClient, conversation_id: str, *watchers: LapClient, timeout: float = 10.0) -> None:
    """`sender` posts a message in the conversation and every watcher waits for it: the hub delivers a socket's
    events in order, so whatever it was going to send a watcher before this message has arrived by then."""
    ack = await sender.ok("message.create", {"content": "fence"}, conversationId=conversation_id)
    for watcher in watchers:
        await watcher.wait_for(lambda f: f.get("sequence") == ack["sequence"], timeout=timeout)


async def _expired(agent: LapClient, app: LapClient, conversation_id: str, in_s: float, timeout: float) -> None:
    for _ in range(5):
        interaction_id = f"clock-{uuid.uuid4().hex[:12]}"
        expires_at = (datetime.now(UTC) + timedelta(seconds=in_s)).isoformat().replace("+00:00", "Z")
        answer = await agent.request("interaction.requested", {"interaction": {
            "id": interaction_id, "type": "approval", "title": "A clock for the test", "expiresAt": expires_at}},
            conversationId=conversation_id)
        if answer["type"] == "system.ack":
            break
        # On a loaded machine the moment can pass before the hub reads it, which it refuses as in the past: that
        # moment is behind us anyway, so the next one a little later does the same job.
        assert "in the past" in answer["payload"].get("message", ""), answer
        in_s = 0.2
    else:
        raise AssertionError(f"the hub refused five expiring questions in a row: {answer}")
    await app.wait_for(lambda f: f["type"] == "interaction.expired" and f.get("sequence") is not None
                       and f["payload"].get("interactionId") == interaction_id, timeout=timeout)


async def timer_pass(agent: LapClient, app: LapClient, conversation_id: str, *, not_before_s: float = 0.0,
                     timeout: float = 10.0) -> None:
    """The fence for what the hub does on its own clock. Its timer loop (hub/gateway/presence.py) runs in ticks
    that each check, in order, heartbeat silence, the grace period, cancel deadlines, expiries, then stream
    snapshots; this returns once a whole tick that began `not_before_s` from now or later has run, and whatever
    that tick and the ones before it stored has reached `app`.

    `agent` asks two questions in the conversation that expire: the first expires in the first tick at or after
    that moment, after that tick's earlier checks; the second is asked once the first has expired, so it expires
    in a later tick, after the first tick's snapshots were stored. Each adds an interaction.requested and an
    interaction.expired (and the notifier may add an in-app notification) to the conversation's log."""
    await _expired(agent, app, conversation_id, max(not_before_s, 0.2), timeout + not_before_s)
    await _expired(agent, app, conversation_id, 0.2, timeout)
