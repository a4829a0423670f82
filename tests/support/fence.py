"""A sentinel round trip: store one more event and wait until sockets have it, instead of sleeping and counting."""

from __future__ import annotations

from tests.support.lap import LapClient


async def fence(sender: LapClient, conversation_id: str, *watchers: LapClient, timeout: float = 10.0) -> None:
    """`sender` posts a message in the conversation and every watcher waits for it: the hub delivers a socket's
    events in order, so whatever it was going to send a watcher before this message has arrived by then."""
    ack = await sender.ok("message.create", {"content": "fence"}, conversationId=conversation_id)
    for watcher in watchers:
        await watcher.wait_for(lambda f: f.get("sequence") == ack["sequence"], timeout=timeout)
