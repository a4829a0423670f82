"""The notifier: reads the log after its cursor, fills the durable outbox, and delivers with retries.

Exactly-once where it can be: one outbox row per (channel, subject), written together with the cursor, so a
replay, a reconnecting client or a restart never produces a notification twice; a delivery interrupted by a
crash is sent again (channels carry the notification id for their own idempotency). Old events (the hub was
down for a day) do not notify; quiet hours and the per-channel rate only delay, never drop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import msgspec

from hub.notify.channel import Channel, Delivery
from hub.notify.compose import as_json, compose, kind_of
from hub.notify.config import NotifyConfig, NotifyConfigError, load_notify_config, parse_notify
from hub.ports import HubCore, NotifyPort, PluginHub, Plugins
from hub.protocol.envelope import new_id
from hub.store.queries import notifications
from hub.store.queries.records import OutboxRecord
from hub.store.writer import Command, Tx

log = logging.getLogger("lineup.notify")
MAX_ATTEMPTS = 8
BACKOFF_MAX_S = 300.0


class NotifyHost(HubCore, PluginHub, NotifyPort, Protocol):
    """What the notifier uses of the hub: the core, what plugins get (it is handed to `register_notifiers`), what
    a channel's `Delivery` uses, and the plugin host (the channels' registrations)."""

    @property
    def plugins(self) -> Plugins: ...


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class Notifier:
    def __init__(self, hub: NotifyHost) -> None:
        self.hub = hub
        self.config: NotifyConfig = parse_notify({}, "defaults")
        self.config_error: str | None = None
        self.channels: dict[str, Channel] = {}
        self._wakeups: dict[str, asyncio.Event] = {}
        self._workers: list[asyncio.Task[None]] = []
        self._stopping = False
        self._sent: dict[str, list[float]] = {}
        self._enqueue_lock = asyncio.Lock()
        self._unsubscribe: Callable[[], None] | None = None  # from the commit bus, while the notifier runs

    @property
    def base_url(self) -> str:
        return (self.config.public_url or self.hub.public_url or "http://127.0.0.1:9527").rstrip("/")

    async def start(self) -> None:
        self._stopping = False
        self._unsubscribe = self.hub.bus.subscribe(self.observe, name="notifier")  # observe is idle until channels run
        try:
            self.config = load_notify_config(self.hub.settings.data_dir / "lineup.toml")
        except NotifyConfigError as exc:
            self.config_error = str(exc)
            log.error("%s (notifications use the defaults)", exc)
        for plugin, channel in self.hub.plugins.collect("register_notifiers", hub=self.hub):
            name = getattr(channel, "name", None)
            if not isinstance(name, str) or not callable(getattr(channel, "send", None)):
                self.hub.plugins.fail(plugin, "register_notifiers returned an object without `name` and `send`")
                continue
            if self.config.channel(name).enabled:
                self.channels[name] = channel
        for name in self.channels:
            self._wakeups[name] = asyncio.Event()
            self._workers.append(asyncio.create_task(self._work(name), name=f"lineup-notify-{name}"))
        await self._warn_unmatched()
        await self.catch_up()

    async def _warn_unmatched(self) -> None:
        """Names are resolved when a notification is made (a workspace may be created later); say once which
        configured ones match nothing now, so a typo does not pass in silence."""
        workspaces = await self.hub.read(notifications.workspaces)
        for name in self.channels:
            unmatched = self.config.channel(name).unmatched(workspaces)
            if unmatched:
                log.warning("notify.%s.workspaces: no workspace has the name or id %s yet; the channel serves "
                            "such a workspace once it exists", name, " or ".join(map(repr, unmatched)))

    def serving(self, workspace_id: str, workspaces: list[tuple[str, str]],
                conn: sqlite3.Connection | None = None) -> list[str]:
        """The running channels that serve this workspace: only they may carry, list or test its notifications.
        With `conn`, a channel that says whom it reaches (`reaches(conn, workspace_id)`: Web Push, the workspace's
        subscribed devices) is left out while it reaches nobody there, so it queues and lists nothing for it."""
        names = [name for name in self.channels if self.config.channel(name).serves(workspace_id, workspaces)]
        if conn is None:
            return names
        reached = []
        for name in names:
            reaches = getattr(self.channels[name], "reaches", None)
            if not callable(reaches) or reaches(conn, workspace_id):
                reached.append(name)
        return reached

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        # A flag and a wake-up besides the cancel: on Python 3.11 asyncio.wait_for (around a channel's send, in the
        # database read path) can swallow a cancel that lands as it completes, and the loop would then run on.
        self._stopping = True
        for wakeup in self._wakeups.values():
            wakeup.set()
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers.clear()

    # ---- filling the outbox ------------------------------------------------------------------------------

    def observe(self, events: list[Any]) -> None:
        if self.channels and any(kind_of(event) for event in events):
            self.hub.spawn(self.catch_up())

    async def catch_up(self) -> None:
        """Examine every event after the cursor; enqueue what notifies; move the cursor, in one transaction."""
        if not self.channels:
            return
        async with self._enqueue_lock:
            while True:
                count = await self.hub.execute(Command(run=self._enqueue_page))
                if not count:
                    break
        for wakeup in self._wakeups.values():
            wakeup.set()

    def _enqueue_page(self, tx: Tx) -> int:
        after = notifications.cursor(tx.conn)
        page, upto = notifications.may_notify_after(tx.conn, after, 500)  # the rest can never notify
        if upto == after:
            return 0
        now = datetime.now(UTC)
        workspaces = notifications.workspaces(tx.conn)
        for event in page:
            kind = kind_of(event)
            if kind is None or event.workspace_id is None:
                continue
            if (now - _parse(event.recorded_at)).total_seconds() > self.config.max_age_s:
                continue  # a notification about something long past helps nobody
            if kind == "succeeded" and notifications.is_subtask(tx.conn, event.task_id, event.workspace_id):
                continue  # a finished step of a larger task is progress, not news
            # Only channels that serve the event's workspace: another workspace's notification is never composed
            # for a channel that reaches someone else (the hub owner's webhook, mail box).
            targets = [name for name in self.serving(event.workspace_id, workspaces, tx.conn)
                       if kind in self.config.channel(name).kinds]
            if not targets:
                continue
            subject, note = compose(tx.conn, event, kind, self.base_url, self.config.include_details)
            for name in targets:
                notifications.enqueue(tx, name, kind, subject, event.sequence, event.workspace_id, as_json(note),
                                      _iso(now))
        notifications.set_cursor(tx, upto)
        return upto - after

    async def send_test(self, workspace_id: str, channel: str | None = None) -> list[str]:
        """The settings page's "send test notification": one per channel serving the workspace (or the one named),
        through the outbox. Returns the named channel if it does not serve the workspace, exactly as if unknown."""
        serving = await self.hub.read(lambda c: self.serving(workspace_id, notifications.workspaces(c), c))
        names = [channel] if channel else serving
        now = _iso(datetime.now(UTC))

        def run(tx: Tx) -> None:
            for name in names:
                note = {"id": new_id("ntf"), "kind": "test", "workspaceId": workspace_id, "title": "LineUp test",
                        "body": "If you can read this, notifications reach you here.", "link": f"{self.base_url}/"}
                notifications.enqueue_test(tx, name, f"test:{note['id']}", workspace_id, as_json(note), now)

        unknown = [n for n in names if n not in serving]
        if unknown:
            return unknown
        await self.hub.execute(Command(run=run))
        for name in names:
            self._wakeups[name].set()
        return []

    # ---- delivering ------------------------------------------------------------------------------------

    async def _work(self, name: str) -> None:
        wakeup = self._wakeups[name]
        while not self._stopping:
            try:
                delay = await self._deliver_due(name)
            except Exception:
                log.exception("notification worker %s failed", name)
                delay = 5.0
            if delay <= 0:
                continue
            if self._stopping:
                break
            wakeup.clear()
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow the cancel stop() sends.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await wakeup.wait()

    async def _deliver_due(self, name: str) -> float:
        """Deliver every due row of this channel; return how long to sleep until the next one is due."""
        now = datetime.now(UTC)
        rows = await self.hub.read(lambda c: notifications.pending(c, name))
        next_due, worked = 60.0, False
        for row in rows:
            due = _parse(row.next_attempt_at)
            if due > now:
                next_due = min(next_due, (due - now).total_seconds())
                continue
            await self._deliver(name, row)
            worked = True
        # After a delivery or a retry was scheduled, look again at once: the row's next time has moved.
        return 0.0 if worked else max(0.05, next_due)

    def _quiet_until(self, now: datetime) -> datetime | None:
        if self.config.quiet_hours is None:
            return None
        start, end = self.config.quiet_hours
        local = now.astimezone()
        clock = local.time()
        inside = (start <= clock < end) if start < end else (clock >= start or clock < end)
        if not inside:
            return None
        until = local.replace(hour=end.hour, minute=end.minute, second=0, microsecond=0)
        if until <= local:
            until += timedelta(days=1)
        return until.astimezone(UTC)

    def _rate_limited(self, name: str) -> bool:
        loop_now = asyncio.get_running_loop().time()
        recent = [t for t in self._sent.get(name, []) if loop_now - t < 60]
        self._sent[name] = recent
        return len(recent) >= self.config.rate_per_minute

    async def _skip_reason(self, name: str, row: OutboxRecord) -> str | None:
        """Why a due row must not go out: its channel no longer serves the workspace (lineup.toml changed since
        it was queued), or the question was answered meanwhile."""
        def read(c: Any) -> str | None:
            if not self.config.channel(name).serves(row.workspace_id, notifications.workspaces(c)):
                return "the channel does not serve this workspace"
            if row.kind != "waiting_for_me":
                return None
            note = json.loads(row.notification)
            status = notifications.interaction_status(c, note["interactionId"], row.workspace_id)
            return None if status == "pending" else "already answered"
        return await self.hub.read(read)

    async def _deliver(self, name: str, row: OutboxRecord) -> None:
        now = datetime.now(UTC)
        skip = await self._skip_reason(name, row)
        if skip is not None:
            await self._mark(row.id, "skipped", error=skip)
            return
        quiet_until = self._quiet_until(now) if name != "inapp" else None
        if quiet_until is not None:
            await self._reschedule(row.id, quiet_until, None, count=False)
            return
        if self._rate_limited(name):
            await self._reschedule(row.id, now + timedelta(seconds=10), None, count=False)
            return
        channel = self.channels[name]
        delivery = Delivery(self.hub, self.config.channel(name), self.base_url, row.workspace_id)
        try:
            async with asyncio.timeout(30):
                await channel.send(json.loads(row.notification), delivery)
        except Exception as exc:  # noqa: BLE001 - any failure is retried, and shown in the delivery log
            attempts = row.attempts + 1
            error = f"{type(exc).__name__}: {exc}"[:500]
            log.warning("notification %s via %s failed (attempt %d): %s", row.id, name, attempts, error)
            if attempts >= MAX_ATTEMPTS:
                await self._mark(row.id, "failed", error=error, attempts=attempts)
            else:
                backoff = min(BACKOFF_MAX_S, 2 ** (attempts - 1))
                await self._reschedule(row.id, now + timedelta(seconds=backoff), error, count=True)
            return
        self._sent.setdefault(name, []).append(asyncio.get_running_loop().time())
        await self._mark(row.id, "delivered", attempts=row.attempts + 1)

    async def _mark(self, row_id: str, status: str, *, error: str | None = None, attempts: int | None = None) -> None:
        def run(tx: Tx) -> None:
            notifications.mark(tx, row_id, status, error, attempts)
        await self.hub.execute(Command(run=run))

    async def _reschedule(self, row_id: str, when: datetime, error: str | None, *, count: bool) -> None:
        def run(tx: Tx) -> None:
            notifications.reschedule(tx, row_id, _iso(when), error, count=count)
        await self.hub.execute(Command(run=run))

    async def delivery_log(self, workspace_id: str) -> dict[str, Any]:
        """Per channel serving the workspace: counts by status, the last error, and the latest deliveries (the
        settings page). A channel that does not serve it is not named at all."""
        def read(c: Any) -> tuple[dict[str, Any], bool]:
            out: dict[str, Any] = {}
            workspaces = notifications.workspaces(c)
            for name in self.serving(workspace_id, workspaces, c):
                counts = notifications.status_counts(c, name, workspace_id)
                last_error = notifications.last_error(c, name, workspace_id)
                recent = notifications.recent(c, name, workspace_id)
                out[name] = {"kinds": list(self.config.channel(name).kinds), "counts": counts,
                             "lastError": msgspec.structs.asdict(last_error) if last_error else None,
                             "recent": [_recent(r) for r in recent]}
            return out, bool(workspaces) and workspaces[0][0] == workspace_id
        channels, first = await self.hub.read(read)
        # lineup.toml is the hub owner's file (the first workspace's): its error may quote its values, names of
        # other workspaces among them, so only that workspace is shown it.
        return {"channels": channels, "configError": self.config_error if first else None,
                "quietHours": ([t.strftime("%H:%M") for t in self.config.quiet_hours]
                               if self.config.quiet_hours else None),
                "includeDetails": self.config.include_details}


def _recent(row: Any) -> dict[str, Any]:
    """A delivery as Settings lists it: the hub's English title, and the kind and names the app says it from in the
    person's language (ui/lib/notifications.js `describe`)."""
    note = json.loads(row.notification)
    return {"id": row.id, "kind": row.kind, "status": row.status, "attempts": row.attempts,
            "lastError": row.last_error, "createdAt": row.created_at, "deliveredAt": row.delivered_at,
            "title": note.get("title"), "agent": note.get("agent"), "taskId": note.get("taskId"),
            "interactionId": note.get("interactionId")}
