"""Fan-out: which sessions see a committed event (docs/protocol.md#what-each-receiver-sees)."""

from __future__ import annotations

from collections import defaultdict

from hub.gateway.session import Session
from hub.store.events import StoredEvent


class Broker:
    def __init__(self) -> None:
        self.apps: dict[str, set[Session]] = defaultdict(set)     # workspace id -> app sessions
        self.agents: dict[str, set[Session]] = defaultdict(set)   # agent id -> agent sessions

    def add(self, session: Session) -> None:
        if session.kind == "agent":
            self.agents[session.actor.id].add(session)
        else:
            self.apps[session.actor.workspace_id].add(session)

    def remove(self, session: Session) -> None:
        bucket, key = ((self.agents, session.actor.id) if session.kind == "agent"
                       else (self.apps, session.actor.workspace_id))
        sessions = bucket.get(key)
        if sessions is not None:
            sessions.discard(session)
            if not sessions:
                del bucket[key]

    def publish(self, events: list[StoredEvent]) -> None:
        for event in events:
            if event.workspace_id is not None:
                for session in tuple(self.apps.get(event.workspace_id, ())):
                    session.deliver(event)
            for agent_id in event.recipients:
                for session in tuple(self.agents.get(agent_id, ())):
                    session.deliver(event)

    def publish_transient(self, workspace_id: str, frame: bytes) -> None:
        for session in tuple(self.apps.get(workspace_id, ())):
            session.deliver_transient(frame)

    def agent_sessions(self, agent_id: str) -> set[Session]:
        return set(self.agents.get(agent_id, ()))

    def device_sessions(self, device_id: str) -> list[Session]:
        return [s for sessions in self.apps.values() for s in sessions if s.actor.device_id == device_id]

    def counts(self) -> dict[str, int]:
        return {"apps": sum(len(s) for s in self.apps.values()), "agents": sum(len(s) for s in self.agents.values())}
