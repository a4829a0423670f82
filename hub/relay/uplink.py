"""The uplink: one WuKongIM session for the hub, kept alive, carrying the log out and the people's messages in."""
# It is a hub-internal client of the log, like an app: a durable cursor per person says which events were turned
# into outbox rows, so a restart resumes without gaps or repeats; every inbound message is handled once (its
# WuKongIM message id is recorded with the outcome); after each (re)connect `/channel/messagesync` recovers what
# arrived while the hub was away and recognises sends whose acknowledgement was lost (by clientMsgNo).

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hub.protocol.actors import Actor
from hub.relay import devices, wire
from hub.relay.config import Person, RelayConfig, RelayConfigError, load_relay_config
from hub.relay.httpapi import ApiError, HttpApi
from hub.relay.inbound import InboundHandler
from hub.relay.outbound import compose
from hub.relay.probe import AUTH_OFF_STEP, probe, token_auth_off
from hub.relay.sealing import WHY, Sealing, effective
from hub.relay.status import RelayStatus, diagnose
from hub.relay.transport import Inbound, Transport, TransportError
from hub.store.events import StoredEvent, read_workspace_after
from hub.store.queries import accounts
from hub.store.queries import relay as store
from hub.store.queries.records import RelayOutboxRecord
from hub.store.writer import Command, Tx

if TYPE_CHECKING:
    from hub.relay.inbound import RelayHub

log = logging.getLogger("lineup.relay")
FILL_PAGE = 200
RECONCILE_EVERY_S = 300.0
UNBASELINED = -1  # relay_people.synced_seq before the channel's current end was read once


class Uplink:
    """Owned by the Hub: `start()` after the store, `stop()` before it (hub/core.py)."""

    def __init__(self, hub: RelayHub) -> None:
        self.hub = hub
        self.config = RelayConfig()
        self.status = RelayStatus()
        self.people: dict[str, tuple[Person, Actor]] = {}
        self.tag = ""
        self.line: str | None = None
        self.api: HttpApi | None = None
        self.token = ""
        self.inbound: InboundHandler | None = None
        self._workspaces: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._unsubscribe: Callable[[], None] | None = None  # from the commit bus, while the uplink runs
        self._transport: Transport | None = None
        self._outbox_wake = asyncio.Event()
        self._fill_wake = asyncio.Event()
        self._inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        self._inbound_lock = asyncio.Lock()
        self._published: tuple[str, str | None] | None = None
        self._auth_checked = False
        # Set once WuKongIM is known to check tokens (or the risk is allowed): until then no message from it is
        # acted on, so nobody signed in with a made-up token can answer a question as a person.
        self._trusted = asyncio.Event()
        # Set once a session's first reconcile has read what arrived while the hub was away: a sealed device's
        # counters only go up, so its older messages must be opened before the live ones that follow them.
        self._reconciled = asyncio.Event()
        self.sealing = Sealing(hub, self._refused)

    # ---- lifecycle -------------------------------------------------------------------------------------

    async def start(self) -> None:
        try:
            self.config = load_relay_config(self.hub.settings.data_dir / "lineup.toml")
        except RelayConfigError as exc:
            await self._set("error", code="relay_config", message=str(exc),
                            next_step="Fix the [relay] table of lineup.toml (docs/relay.md) and restart the hub.")
            return
        if not self.config.enabled:
            return
        self.status.server = self.config.ws_url
        if not self.config.configured:
            await self._set("error", code="relay_not_configured", message="[relay] needs ws_url and uid.",
                            next_step="Set [relay] ws_url (WuKongIM's WebSocket, port 5200) and uid.")
            return
        self.tag = "lu" + self.hub.hub_id.replace("-", "")[:8]
        if not await self._resolve_people() or not await self._resolve_token():
            return
        if self.config.api_url:
            self.api = HttpApi(self.config.api_url, self.config.manager_token)
        else:
            self.status.warnings.append("No [relay] api_url: messages that arrive while the hub is disconnected "
                                        "are not recovered, and uncertain sends may repeat.")
        self.inbound = InboundHandler(self.hub, self.tag)
        self._unsubscribe = self.hub.bus.subscribe(self._observe, name="relay")
        self._fill_wake.set()  # events committed while the hub was down
        for name, coro in (("supervise", self._supervise()), ("fill", self._fill_loop()),
                           ("inbound", self._inbound_loop())):
            self._tasks.append(asyncio.create_task(coro, name=f"lineup-relay-{name}"))

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        if self._transport is not None:
            await self._transport.close()
            self._transport = None

    def describe(self) -> dict[str, Any]:
        """The status the app and `lineup relay status` show."""
        return {**self.status.as_dict(), "uid": self.config.uid,
                "people": [{"uid": p.uid, "user": p.user, "lap": p.lap, "text": p.text}
                           for p, _ in self.people.values()]}

    async def _resolve_people(self) -> bool:
        for person in self.config.people:
            row = await self.hub.read(functools.partial(accounts.user_by_username, username=person.user))
            if row is None:
                await self._set("error", code="relay_unknown_person",
                                message=f"[relay] people: {person.uid!r} maps to LineUp user {person.user!r}, "
                                        "who does not exist.",
                                next_step="Name an existing username (see the app's settings), then restart.")
                return False
            self.people[person.uid] = (person, Actor("user", row.id, row.workspace_id))
            self._workspaces.add(row.workspace_id)
        head = self.hub.writer.head

        def run(tx: Tx) -> None:
            for uid in self.people:
                store.ensure_person(tx, uid, head, UNBASELINED)
        await self.hub.execute(Command(run=run))
        return True

    async def _resolve_token(self) -> bool:
        if self.config.token:
            self.token = self.config.token
            return True
        if not self.config.manager_token:
            await self._set("error", code="relay_no_credentials",
                            message="[relay] has neither token nor manager_token.",
                            next_step="Set [relay] token (the hub's WuKongIM token), or manager_token so the hub "
                                      "registers a token of its own (it also needs api_url).")
            return False
        if not self.config.api_url:
            await self._set("error", code="relay_not_configured", message="manager_token needs [relay] api_url.",
                            next_step="Set [relay] api_url to WuKongIM's HTTP API (port 5001 by default).")
            return False
        from hub.relay.admin import hub_token
        self.token = await hub_token(self.config, self.hub.execute)
        return True

    # ---- status ----------------------------------------------------------------------------------------

    async def _set(self, state: str, *, code: str | None = None, message: str = "", next_step: str = "",
                   attempt: int = 0, retry_in_s: float | None = None) -> None:
        status = self.status
        if (status.state, status.code) != (state, code):
            from hub.protocol.envelope import now_iso
            status.since = now_iso()
        status.state, status.code, status.message, status.next_step = state, code, message, next_step
        status.attempt, status.retry_in_s, status.line = attempt, retry_in_s, self.line
        if state == "error":
            log.error("relay: %s %s Next: %s", code, message, next_step)
        if self._published == (state, code):
            return
        self._published = (state, code)
        snapshot = self.describe()

        def run(tx: Tx) -> None:
            # The app sees the uplink's state like any other fact of its workspace (hub-wide ones stay out).
            store.set_state(tx, "status", json.dumps(snapshot))  # its tables: m009_relay_tables
            for workspace_id in sorted(self._workspaces):
                tx.append("relay.status_changed", snapshot, workspace_id=workspace_id, actor="hub")
        await self.hub.execute(Command(run=run))

    # ---- the session -----------------------------------------------------------------------------------

    def _backoff(self, attempt: int) -> float:
        delay = min(self.config.reconnect_max_s, self.config.reconnect_min_s * 2 ** min(attempt - 1, 20))
        return float(delay * random.uniform(0.8, 1.0))

    async def _supervise(self) -> None:
        try:
            await self._keep_connected()
        except Exception as exc:  # a bug must show as a status, not as a silent dead uplink
            log.exception("relay: the uplink stopped")
            await self._set("error", code="relay_internal", message=f"The uplink stopped: {exc!r}.",
                            next_step="Restart the hub; if it happens again, report the hub's log.")

    async def _keep_connected(self) -> None:
        attempt = 0
        while True:
            try:
                transport = await self._open()
            except TransportError as exc:
                attempt += 1
                if not await self._wait_to_retry(exc, attempt):
                    return
                continue
            except _Unsupported as exc:
                await self._set("error", code="relay_unsupported_server", message=str(exc),
                                next_step="Check that [relay] ws_url is WuKongIM's WebSocket address (port 5200), "
                                          "or set [relay] server_line to the line it speaks (compat or v2).")
                return
            self._transport = transport
            attempt = 0
            deliver = asyncio.create_task(self._deliver(transport), name="lineup-relay-deliver")
            try:
                if not self._auth_checked:  # once per run, after a good session: cheap, and never in a retry loop
                    self._auth_checked = True
                    if not await self._check_token_auth():
                        return  # finally: the session is closed; nothing it received was acted on
                await self._set("connected")
                ended = await transport.wait_closed()
            finally:  # also when the hub stops: no task outlives the session
                deliver.cancel()
                await asyncio.gather(deliver, return_exceptions=True)
                self._transport = None
                await transport.close()
            attempt += 1
            if not await self._wait_to_retry(ended, attempt):
                return

    async def _wait_to_retry(self, failure: TransportError, attempt: int) -> bool:
        """Show why the session ended; wait the backoff and say True, or False when retrying cannot help."""
        code, message, step = diagnose(failure, line=self.line, uid=self.config.uid)
        if failure.terminal:
            await self._set("error", code=code, message=message, next_step=step)
            return False
        delay = self._backoff(attempt)
        await self._set("reconnecting", code=code, message=message, next_step=step, attempt=attempt,
                        retry_in_s=round(delay, 1))
        await asyncio.sleep(delay)
        return True

    async def _open(self) -> Transport:
        """Register the hub's token when it provisions itself, tell the line, connect."""
        cfg = self.config
        device_id = f"lineup-{self.tag}"
        if cfg.manager_token and not cfg.token and self.api is not None:
            try:
                await self.api.user_token(cfg.uid, self.token, cfg.device_flag)
            except ApiError as exc:
                raise TransportError(-5, f"cannot register the hub's token: {exc}", kind="network") from None
        if self.line is None:
            if cfg.server_line != "auto":
                self.line = cfg.server_line
            else:
                try:
                    result = await probe(cfg.ws_url, cfg.uid, self.token, device_id, cfg.device_flag,
                                         cfg.connect_timeout_s)
                except ConnectionError as exc:
                    raise TransportError(-5, str(exc), kind="network") from None
                if result.line is None:
                    raise _Unsupported(f"The server at {cfg.ws_url} answered neither WuKongIM JSON-RPC line "
                                       f"(compat or v2): {result.evidence}.")
                log.info("relay: %s speaks the %s line (%s)", cfg.ws_url, result.line, result.evidence)
                self.line = result.line
        if self.line == "compat":
            try:
                from hub.relay.sdk_transport import SdkTransport as Kind
            except ImportError as exc:
                raise TransportError(-1, f"wukong-easy-sdk is not installed ({exc}); it serves the compat line",
                                     kind="missing") from None
        else:
            # Two classes under one name; both have the Transport shape the code below uses.
            from hub.relay.v2_transport import V2Transport as Kind  # type: ignore[assignment]
        transport = Kind(cfg.ws_url, cfg.uid, self.token, device_id, cfg.device_flag, self._received,
                         ping_interval_s=cfg.ping_interval_s, connect_timeout_s=cfg.connect_timeout_s,
                         request_timeout_s=cfg.request_timeout_s)
        try:
            await transport.connect()
        except TransportError:
            await transport.close()
            raise
        return transport

    async def _check_token_auth(self) -> bool:
        """Whether to relay: False (an error status, the uplink stops) when WuKongIM accepts a wrong token, unless
        `allow_token_auth_off`; then a logged error and a status warning. A server that cannot be asked is trusted
        as before (the check says so in the log)."""
        off = await token_auth_off(self.config.ws_url, self.config.connect_timeout_s)
        if off is None:
            log.warning("relay: could not tell whether %s checks tokens", self.config.ws_url)
        if not off:
            self._trusted.set()
            return True
        log.error("relay: %s accepted a sign-in with a wrong token: its token authentication is OFF. %s",
                  self.config.ws_url, AUTH_OFF_STEP)
        if not self.config.allow_token_auth_off:
            await self._set("error", code="relay_token_auth_off",
                            message=f"WuKongIM at {self.config.ws_url} accepts any token: anyone who reaches it "
                                    "could sign in as a person and act as their LineUp user. The hub does not relay.",
                            next_step=AUTH_OFF_STEP + " (or, knowingly, set [relay] allow_token_auth_off = true).")
            return False
        self.status.warnings.append("WuKongIM accepts any token (token authentication is off). " + AUTH_OFF_STEP)
        self._trusted.set()
        return True

    # ---- out: log → outbox → WuKongIM ------------------------------------------------------------------

    def _observe(self, events: list[StoredEvent]) -> None:
        if any(event.workspace_id in self._workspaces for event in events):
            self._fill_wake.set()

    async def _fill_loop(self) -> None:
        while True:
            await self._fill_wake.wait()
            self._fill_wake.clear()
            while await self.hub.execute(Command(run=self._fill_page)):
                pass
            self._outbox_wake.set()

    def _fill_page(self, tx: Tx) -> int:
        """Turn the next events of each person's workspace into outbox rows and move their cursor, together."""
        count = 0
        for uid, (person, actor) in self.people.items():
            row = store.person_row(tx.conn, uid)
            assert row is not None
            events = read_workspace_after(tx.conn, actor.workspace_id, row.cursor, 2 ** 62, FILL_PAGE)
            serving = effective(person, devices.device(tx.conn, uid))
            for event in events:
                compose(tx, self.tag, serving, event)
            if events:
                store.set_cursor(tx, uid, events[-1].sequence)
                count += len(events)
        return count

    async def _deliver(self, transport: Transport) -> None:
        self._reconciled.clear()
        try:
            await self._reconcile_all()
        except ApiError as exc:
            self.status.warnings = [w for w in self.status.warnings if not w.startswith("reconcile")] + [
                f"reconcile failed: {exc}"]
            log.warning("relay: reconcile failed: %s", exc)
        finally:
            self._reconciled.set()
        last_reconcile = asyncio.get_running_loop().time()
        while True:
            self._outbox_wake.clear()
            worked = False
            for uid in list(self.people):
                rows = await self.hub.read(functools.partial(store.pending, person=uid, limit=50))
                for row in rows:
                    worked = True
                    result = await self._send_row(transport, uid, row)
                    if result == "gone":
                        return
                    if result == "blocked":
                        break  # in order: the same row first, once the pause is over
            if self.status.code in ("relay_not_in_whitelist", "relay_send_refused") and worked:
                await self._set("connected")
            now = asyncio.get_running_loop().time()
            if now - last_reconcile > RECONCILE_EVERY_S and self.api is not None:
                last_reconcile = now
                try:
                    await self._reconcile_all()
                except ApiError as exc:
                    log.warning("relay: reconcile failed: %s", exc)
            if not worked:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(RECONCILE_EVERY_S):
                        await self._outbox_wake.wait()

    async def _send_row(self, transport: Transport, uid: str, row: RelayOutboxRecord) -> str:
        """Send one outbox row: "sent", "skipped", "blocked" (paused, try again) or "gone" (the session ended:
        the supervisor reconnects and reconciles)."""
        outgoing = await self.sealing.outgoing(uid, json.loads(row.payload))  # sealed right before it leaves
        if outgoing is None:  # the person's sealed keys ended: nothing of the app goes to them in clear
            await self.hub.execute(Command(run=lambda tx: store.mark_failed(tx, row.id, "sealed access ended")))
            return "skipped"
        try:
            ack = await transport.send(uid, outgoing.payload, row.client_msg_no,
                                       red_dot=bool(row.red_dot), no_persist=bool(row.no_persist))
        except TransportError as exc:
            if exc.kind == "rejected" and exc.code in wire.BLOCKING:
                code, message, step = diagnose(exc, line=self.line, uid=self.config.uid)
                await self._set("error", code=code, message=f"{message} (to {uid})", next_step=step)
                await asyncio.sleep(self.config.blocked_retry_s)
                return "blocked"
            if exc.kind == "rejected":  # this message only (too large, ...): skip it, keep the queue moving
                log.warning("relay: WuKongIM refused message %s to %s: %s", row.client_msg_no, uid, exc)
                reason = str(exc)  # bound here: the except clause unbinds `exc`, and the command runs in the writer
                await self.hub.execute(Command(run=lambda tx: store.mark_failed(tx, row.id, reason)))
                return "skipped"
            await transport.close()  # outcome unknown: a new session reconciles it by clientMsgNo
            return "gone"
        def sent(tx: Tx) -> None:
            store.mark_sent(tx, row.id, ack.message_id, ack.message_seq)
            outgoing.record(tx, uid)
        await self.hub.execute(Command(run=sent))
        return "sent"

    async def _reconcile_all(self) -> None:
        if self.api is not None:
            for uid in list(self.people):
                await self._reconcile(uid)

    async def _reconcile(self, uid: str) -> None:
        """Read the person's channel after what was reconciled: handle their messages (once), recognise ours."""
        assert self.api is not None
        row = await self.hub.read(lambda c: store.person_row(c, uid))
        assert row is not None
        if row.synced_seq == UNBASELINED:  # first contact: what they wrote before the relay is not replayed
            latest, _ = await self.api.messagesync(self.config.uid, uid, 0, 1)
            end = latest[-1].message_seq if latest else 0
            await self.hub.execute(Command(run=functools.partial(store.set_baseline, uid=uid, message_seq=end)))
            return
        start = row.synced_seq + 1
        while True:
            messages, more = await self.api.messagesync(self.config.uid, uid, start, 100)
            ours = [m for m in messages if m.from_uid == self.config.uid and m.client_msg_no]
            if ours:  # sends whose acknowledgement was lost: they arrived, never send them again

                def recognise(tx: Tx, found: list[Inbound] = ours) -> None:
                    for m in found:
                        store.mark_sent_by_client_no(tx, m.client_msg_no, m.message_id, m.message_seq)
                await self.hub.execute(Command(run=recognise))
            for message in messages:
                if message.from_uid == uid:
                    await self._handle(message)
            if not messages:
                return
            last = messages[-1].message_seq
            await self.hub.execute(Command(run=functools.partial(store.set_synced, uid=uid, message_seq=last)))
            start = last + 1
            if not more:
                return

    # ---- in: WuKongIM → the hub ------------------------------------------------------------------------

    async def _received(self, message: Inbound) -> None:
        """The transport's listener: queue and return at once (the SDK dispatches listeners one at a time)."""
        self._inbox.put_nowait(message)

    async def _inbound_loop(self) -> None:
        while True:
            message = await self._inbox.get()
            await self._trusted.wait()
            await self._reconciled.wait()
            if message.channel_type != wire.PERSON or message.from_uid not in self.people:
                log.info("relay: ignoring a message from %s (not in [relay] people)", message.from_uid)
                continue
            await self._handle(message)

    async def _handle(self, message: Inbound) -> None:
        assert self.inbound is not None
        person, actor = self.people[message.from_uid]
        async with self._inbound_lock:
            try:
                if await self.hub.read(lambda c: store.seen(c, message.message_id)):
                    return  # read again by a reconcile: handled (or refused) before, not a replay of the device
                opened = await self.sealing.incoming(message)  # opened right after it arrives
                if opened is not None:
                    person = effective(person, await self.sealing.device(person.uid))
                    await self.inbound.handle(person, actor, opened)
            except Exception:  # one bad message must not stop the person's others
                log.exception("relay: handling message %s from %s failed", message.message_id, message.from_uid)
            finally:
                self._outbox_wake.set()

    async def _refused(self, uid: str, reason: str, message_id: str) -> None:
        """A sealed payload refused (Sealing): said in the status's warnings, one line per person, kept until the
        hub restarts; the log line is Sealing's."""
        from hub.protocol.envelope import now_iso
        head = f"Refused a message from {uid}"
        self.status.warnings = [w for w in self.status.warnings if not w.startswith(head)] + [
            f"{head} at {now_iso()} (WuKongIM message {message_id}): {WHY[reason]}. It was dropped."]
        snapshot = json.dumps(self.describe())
        await self.hub.execute(Command(run=lambda tx: store.set_state(tx, "status", snapshot)))


class _Unsupported(Exception):
    """The server answered, but in neither JSON-RPC line."""
