"""Presence and its timers: online/offline, zombies, the grace period, cancel timeouts, expiries.

An agent of a terminal runtime (`lineup connect`: Claude Code's hooks, the MCP bridge) connects one short process
after another (a hook, then the process that keeps it online), so its normal close is recorded offline only when no
process of it came back within SIGN_OFF_GRACE_S: without it, every `claude -p` flapped offline and online again in
its first second, its running task "lost its connection" and its session showed Ended.

Every duration is measured on the monotonic clock, so a wall-clock jump never makes an agent look silent
(docs/quality.md#presence-on-the-monotonic-clock). Only interaction expiry uses wall time: `expiresAt` is a wall-clock
instant.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from hub.domain import housekeeping
from hub.domain.collaboration import TERMINAL_RUNTIMES
from hub.domain.interactions import parse_time
from hub.domain.tasks import TERMINAL
from hub.protocol.envelope import now_iso
from hub.store.events import StoredEvent
from hub.store.queries import presence as presence_rows
from hub.ticker import TICK_S

if TYPE_CHECKING:
    from hub.gateway.broker import Broker
    from hub.ports import HubCore

    class PresenceHub(HubCore, Protocol):
        """What presence uses of the hub: the core and the sockets."""

        @property
        def broker(self) -> Broker: ...
    from hub.gateway.session import Session

log = logging.getLogger("lineup.presence")

SIGN_OFF_GRACE_S = 5.0   # a terminal agent's next process has this long to connect before it is recorded offline


class Presence:
    def __init__(self, hub: PresenceHub) -> None:
        self.hub = hub
        self.last_heartbeat_wall: dict[str, str] = {}     # agent id -> ISO time of its last sign of life
        self.offline_since: dict[str, float] = {}          # agent id -> monotonic time it went offline
        self.online_since: dict[str, str] = {}             # agent id -> ISO time it last came online
        self.runtimes: dict[str, str] = {}                 # agent id -> the runtime its hello named
        self.signing_off: dict[str, float] = {}            # agent id -> monotonic time its sign-off is recorded
        # Task and interaction ids are unique within a workspace only: both timers are keyed by (workspace, id).
        self.cancel_deadlines: dict[tuple[str, str], float] = {}       # (workspace, task id) -> monotonic deadline
        self.expiries: list[tuple[datetime, str, str]] = []            # heap of (expiresAt, workspace, interaction id)
        self._last_grace_check = 0.0
        self._last_tick = 0.0
        self._resumed_at = 0.0  # loop time the hub last came back from a stall (SIGSTOP, suspend, a blocked loop)

    @property
    def _loop_time(self) -> float:
        return asyncio.get_running_loop().time()

    async def start(self) -> None:
        now = self._loop_time
        rows = await self.hub.read(presence_rows.live_agents_status)
        for row in rows:
            self.offline_since[row.id] = now  # after a restart nobody is connected yet
            if row.status == "online":
                await self.hub.execute(housekeeping.agent_status(
                    row.id, "offline", reason="hub_restarted", last_heartbeat_at=row.last_heartbeat_at))
        for task in await self.hub.read(presence_rows.open_tasks_with_cancel_requested):
            self.cancel_deadlines[(task.workspace_id, task.id)] = now + self.hub.settings.cancel_timeout_s
        for expiry in await self.hub.read(presence_rows.pending_interactions_with_expiry):
            heapq.heappush(self.expiries, (parse_time(expiry.expires_at, "expiresAt"), expiry.workspace_id, expiry.id))
        # The stall check compares each tick with the one before; the start counts as one, so a hub stopped before
        # its first tick (SIGSTOP a moment after start) is seen as stalled too, not its agents as silent.
        self._last_tick = self._loop_time

    # ---- connections ----------------------------------------------------------------------------------

    async def agent_connected(self, session: Session, hello: dict[str, object]) -> None:
        agent_id = session.actor.id
        came_back = agent_id in self.offline_since or agent_id not in self.online_since
        self.offline_since.pop(agent_id, None)
        self.signing_off.pop(agent_id, None)  # its next process: it never went
        self.runtimes[agent_id] = str(hello.get("runtime") or "")
        self.last_heartbeat_wall[agent_id] = now_iso()
        if came_back:
            self.online_since[agent_id] = self.last_heartbeat_wall[agent_id]
        await self.hub.execute(housekeeping.agent_status(agent_id, "online", reason="connected",
                                                         last_heartbeat_at=self.last_heartbeat_wall[agent_id],
                                                         hello=hello))

    def seen(self, session: Session) -> None:
        session.touch()
        if session.kind == "agent":
            self.last_heartbeat_wall[session.actor.id] = now_iso()

    async def agent_disconnected(self, session: Session, reason: str) -> None:
        agent_id = session.actor.id
        if any(s.connected for s in self.hub.broker.agent_sessions(agent_id) if s is not session):
            return
        if agent_id in self.offline_since:
            return
        if reason == "signed_off" and self.runtimes.get(agent_id) in TERMINAL_RUNTIMES:
            self.signing_off.setdefault(agent_id, self._loop_time + SIGN_OFF_GRACE_S)
            return
        await self._went_offline(agent_id, reason)

    async def _went_offline(self, agent_id: str, reason: str) -> None:
        self.signing_off.pop(agent_id, None)
        self.offline_since[agent_id] = self._loop_time
        await self.hub.execute(housekeeping.agent_status(
            agent_id, "offline", reason=reason, last_heartbeat_at=self.last_heartbeat_wall.get(agent_id)))

    def came_online_at(self, agent_id: str) -> str | None:
        """When the agent last came online (ISO), while it is online; None when it is not (or not since the start)."""
        return None if agent_id in self.offline_since else self.online_since.get(agent_id)

    # ---- what committed events mean for the timers ----------------------------------------------------

    def observe(self, events: list[StoredEvent]) -> None:
        for event in events:
            key = (event.workspace_id or "", event.task_id or "")
            if event.type == "task.cancel_requested":
                self.cancel_deadlines[key] = self._loop_time + self.hub.settings.cancel_timeout_s
            elif event.type == "task.status_changed" and event.payload.get("status") in TERMINAL:
                self.cancel_deadlines.pop(key, None)
            elif event.type == "interaction.requested":
                expires_at = event.payload["interaction"].get("expiresAt")
                if expires_at:
                    heapq.heappush(self.expiries, (parse_time(expires_at, "expiresAt"), event.workspace_id or "",
                                                   event.payload["interaction"]["id"]))
            elif event.type == "agent.revoked":
                self.offline_since.pop(event.payload["agentId"], None)
                self.signing_off.pop(event.payload["agentId"], None)

    # ---- the timers, run on the hub's housekeeping tick (hub/ticker.py) --------------------------------

    async def tick(self) -> None:
        settings = self.hub.settings
        now = self._loop_time
        silent_after = settings.heartbeat_interval_s * settings.missed_heartbeats_offline
        if now - self._last_tick > 4 * TICK_S:
            # The hub itself was not running: the peers' beats wait unread in the socket buffers. Count
            # silence from now, or every agent would look like a zombie at once (a false offline storm).
            log.warning("presence: the hub stalled for %.1f s; counting silence from now", now - self._last_tick)
            self._resumed_at = now
        self._last_tick = now
        for sessions in list(self.hub.broker.agents.values()):
            for session in list(sessions):
                if session.connected and now - max(session.last_seen, self._resumed_at) > silent_after:
                    log.info("agent %s missed %d heartbeats; closing", session.actor.id,
                             settings.missed_heartbeats_offline)
                    session.close(4000, "heartbeat timeout")
                    await self.agent_disconnected(session, "heartbeat_timeout")
        for agent_id, due in list(self.signing_off.items()):
            if now >= due and self.signing_off.get(agent_id) == due:
                if any(s.connected for s in self.hub.broker.agent_sessions(agent_id)):
                    self.signing_off.pop(agent_id, None)
                else:
                    await self._went_offline(agent_id, "signed_off")
        # Agents still away after the grace period stay in offline_since: a task of theirs that becomes
        # running again later (the person answered while the agent was away) fails too, not runs forever.
        overdue = {agent_id for agent_id, since in self.offline_since.items() if now - since >= settings.grace_period_s}
        if overdue and now - self._last_grace_check >= 1.0:
            self._last_grace_check = now
            rows = await self.hub.read(presence_rows.running_tasks_with_lost_connection)
            for row in rows:
                if row.agent_id in overdue:
                    await self.hub.execute(housekeeping.fail_unreachable(row.id, row.connection_lost_at))
        for (workspace_id, task_id), deadline in list(self.cancel_deadlines.items()):
            if now >= deadline:
                del self.cancel_deadlines[(workspace_id, task_id)]
                await self.hub.execute(housekeeping.cancel_timed_out(task_id, workspace_id))
        wall_now = datetime.now(UTC)
        while self.expiries and self.expiries[0][0] <= wall_now:
            _, workspace_id, interaction_id = heapq.heappop(self.expiries)
            await self.hub.execute(housekeeping.expire_interaction(interaction_id, workspace_id))
