"""The gateway's subscriptions to the commit bus: fan-out to the sockets, its timers, and closing revoked sessions."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hub.gateway.broker import Broker
from hub.gateway.recent import RecentEvents
from hub.gateway.session import CLOSE_UNAUTHORIZED, CREDENTIAL_REPLACED
from hub.store.events import StoredEvent

if TYPE_CHECKING:
    from hub.bus import CommitBus
    from hub.gateway.presence import Presence
    from hub.gateway.streams import Streams


def fan_out(recent: RecentEvents, broker: Broker) -> Callable[[list[StoredEvent]], None]:
    """Into the replay window first, then to the live sessions: a session resuming meanwhile finds them there."""
    def deliver(events: list[StoredEvent]) -> None:
        recent.append(events)
        broker.publish(events)
    return deliver


def close_revoked(broker: Broker) -> Callable[[list[StoredEvent]], None]:
    """A revoked agent's or device's sockets are closed (4401) once the revocation itself has been delivered.

    An agent that paired again (`agent.credential_rotated`) has its sockets closed the same way: each was opened with
    an earlier credential, since the new one is handed out only after this commit is published.
    """
    def close(events: list[StoredEvent]) -> None:
        for event in events:
            if event.type == "agent.revoked":
                for session in broker.agent_sessions(event.payload["agentId"]):
                    session.close(CLOSE_UNAUTHORIZED, "credential revoked")
            elif event.type == "agent.credential_rotated":
                for session in broker.agent_sessions(event.payload["agentId"]):
                    session.close(CLOSE_UNAUTHORIZED, CREDENTIAL_REPLACED)
            elif event.type == "device.revoked":
                for session in broker.device_sessions(event.payload["deviceId"]):
                    session.close(CLOSE_UNAUTHORIZED, "device signed out")
    return close


def subscribe_gateway(bus: CommitBus, recent: RecentEvents, broker: Broker, presence: Presence,
                      streams: Streams) -> None:
    """First on the bus, for the life of the hub: the sockets hear of a commit before anything else reacts."""
    bus.subscribe(fan_out(recent, broker), name="gateway.fan_out")
    bus.subscribe(presence.observe, name="gateway.presence")
    bus.subscribe(streams.observe, name="gateway.streams")
    bus.subscribe(close_revoked(broker), name="gateway.close_revoked")
