"""Presence's stall rule on a clock the test moves: a hub that was not running does not find its agents silent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from hub.core import Hub
from hub.gateway.presence import Presence
from hub.gateway.session import Session
from hub.settings import load_settings

INTERVAL = 1.0  # heartbeats; offline after two silent intervals


class ClockedPresence(Presence):
    """Presence reading `clock` instead of the loop's time."""

    clock = 1000.0

    @property
    def _loop_time(self) -> float:
        return self.clock


@dataclass(eq=False)
class BeatingAgent:
    """What presence reads of an agent's session."""

    agent_id: str
    last_seen: float
    kind: str = "agent"
    connected: bool = True
    closed: list[tuple[int, str]] = field(default_factory=list)

    @property
    def actor(self) -> SimpleNamespace:
        return SimpleNamespace(id=self.agent_id)

    def close(self, code: int, reason: str) -> None:
        self.closed.append((code, reason))
        self.connected = False


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Hub]:
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={"LINEUP_HEARTBEAT_INTERVAL_S": str(INTERVAL)}))
    await hub.start()
    yield hub
    await hub.stop()


async def started_presence(hub: Hub) -> ClockedPresence:
    presence = ClockedPresence(hub)
    await presence.start()  # no timer loop of its own (the hub's ticker runs it): the test ticks when it chooses
    return presence


async def test_a_hub_stopped_before_its_first_tick_does_not_find_a_beating_agent_silent(hub: Hub) -> None:
    presence = await started_presence(hub)
    agent = BeatingAgent("agt_beating", last_seen=presence.clock)
    hub.broker.agents[agent.agent_id].add(cast(Session, agent))  # a fake with the parts Presence reads
    presence.clock += 5.0  # SIGSTOP right after the start, SIGCONT 5 s later; its beats wait unread in the socket
    await presence.tick()
    assert agent.closed == []
    presence.clock += 1.5  # the beats read since are what counts: still within two intervals of the resumption
    await presence.tick()
    assert agent.closed == []


async def test_a_silent_agent_still_goes_offline_after_two_intervals(hub: Hub) -> None:
    presence = await started_presence(hub)
    agent = BeatingAgent("agt_silent", last_seen=presence.clock)
    hub.broker.agents[agent.agent_id].add(cast(Session, agent))  # a fake with the parts Presence reads
    for _ in range(10):  # ticks every 0.25 s for 2.5 s: running, not stalled
        presence.clock += 0.25
        await presence.tick()
    assert agent.closed == [(4000, "heartbeat timeout")]
