"""The session host: sessions started from the phone, each a conversation of a preset's agent with its own process.

One LineUp agent per preset and workspace ("Claude Code", "Codex", ...) is paired by the hub (the supervisor's
pairing, hub/runtimes/supervisor.py) the first time a session of it starts, and connects over loopback whenever the
hub runs. Each session is a conversation of that agent; its tasks and the person's messages in it are handed to the
session's own acp runtime (hub/sessions/live.py: one agent process in the session's folder or worktree). At start
the hub resumes every session not ended: its process is started again and its ACP session loaded, or, when the agent
cannot load it, the session is ended (`hub_restarted`) and its conversation says so. A session never has two
processes: its runtime is made once, under the host's lock, and kept by session id. docs/sessions.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hub.domain.collaboration import message_create, task_cancel_requested
from hub.protocol import payloads as P
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, new_id, now_iso
from hub.protocol.errors import LapError
from hub.runtimes import orphans
from hub.runtimes.base import RuntimeConfigError
from hub.sdk.client import AgentClient
from hub.sessions import commands, commit, git, repository
from hub.sessions.agents import Catalogue
from hub.sessions.folders import check_folder, resolved_roots
from hub.store.events import StoredEvent
from hub.store.queries import interactions as interaction_rows
from hub.store.queries import sessions as session_rows
from hub.store.queries.records import SessionRecord
from hub.store.writer import Command

if TYPE_CHECKING:
    from hub.ports import HubCore
    from hub.sdk.credentials import Credential
    from hub.sdk.tasks import TaskHandle
    from hub.sessions.live import Live

log = logging.getLogger("lineup.sessions")

CONNECT_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 30.0


class Pairing(Protocol):
    """What the host uses of the supervisor (hub/runtimes/supervisor.py): its pairing, and its cleanup of tasks an
    agent was running when the hub stopped."""

    async def credential(self, path: Path, name: str, runtime: str, hub_url: str,
                         workspace: Callable[[], Awaitable[str]], agent_version: str = "supervised") -> Credential: ...

    async def fail_orphans(self, agent_id: str) -> None: ...


@dataclass
class PresetAgent:
    """The LineUp agent of one preset in one workspace: its client, connected while the hub runs."""

    key: str
    workspace_id: str
    client: AgentClient
    task: asyncio.Task[None] | None = None   # its connection, once started


def envelope(type_: str, payload: dict[str, Any], workspace_id: str, conversation_id: str | None = None,
             task_id: str | None = None) -> Envelope:
    return Envelope(id=new_id("evt"), type=type_, version=PROTOCOL_VERSION, occurredAt=now_iso(), payload=payload,
                    workspaceId=workspace_id, conversationId=conversation_id, taskId=task_id)


def message_command(actor: Actor, conversation_id: str, payload: dict[str, Any]) -> Command:
    """`message.create` as the app or an agent would send it, made by the hub for `actor` (checked the same way)."""
    env = envelope("message.create", payload, actor.workspace_id, conversation_id)
    parsed = P.parse_payload(P.MessageCreate, payload)
    return Command(run=lambda tx: message_create(tx, actor, env, parsed))


class SessionHost:
    def __init__(self, hub: HubCore, pairing: Pairing) -> None:
        self.hub = hub
        self.pairing = pairing
        self.settings = hub.settings.sessions
        self.state_dir = hub.settings.data_dir / "sessions"
        self.catalogue = Catalogue(self.settings, hub.settings.data_dir)
        self.hub_url: str | None = None
        self.presets: dict[tuple[str, str], PresetAgent] = {}
        self.live: dict[str, Live] = {}
        self.by_conversation: dict[str, str] = {}
        self.ready = asyncio.Event()
        self.stopping = False
        self._lock = asyncio.Lock()          # making a session's runtime, pairing a preset agent
        self._background: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def replace_roots(self, roots: tuple[Path, ...]) -> None:
        """New roots from Settings (hub/sessions/roots.py), taken at once: every request reads them from here."""
        self.settings = dataclasses.replace(self.settings, roots=roots)
        self.hub.settings.sessions = self.settings
        if self.enabled and self._unsubscribe is None and not self.stopping:
            self._unsubscribe = self.hub.bus.subscribe(self._observe, name="sessions")

    # ---- start and stop ---------------------------------------------------------------------------------------

    async def start(self, hub_url: str) -> None:
        """Resume the sessions not ended (their processes and ACP sessions), or end them saying why."""
        self.hub_url = hub_url
        if self.enabled:
            self._unsubscribe = self.hub.bus.subscribe(self._observe, name="sessions")
            self.catalogue.probe_all()  # in the background: the first New session's list need not wait for it
        try:
            unended = await self.hub.read(session_rows.unended_sessions)
            if unended and not self.enabled:
                for record in unended:
                    await self._end_record(record, "sessions_off", "Sessions are off on this hub ([sessions] roots "
                                                                   "is empty in lineup.toml), so this session ended.")
                unended = []
            await commit.withdraw_stale(self, unended)  # first: these say to ask for the commit again
            await self._settle_orphans(unended)
            resumed = []
            for record in unended:
                if record.status == "running":  # the hub stopped during a turn: its process, and the turn, are gone
                    await self.execute_quietly(commands.update(record.workspace_id, record.id,
                                                                record.conversation_id, {"status": "idle"}))
                    await self.say(record, "The hub stopped while the agent was working, and that turn stopped with "
                                           "it. Send your message again to go on.")
                try:
                    resumed.append(await self._revive(record))
                except Exception as exc:  # noqa: BLE001 - one session that cannot resume must not stop the others
                    log.warning("session %s could not be resumed: %s", record.id, exc)
                    await self._end_record(record, "hub_restarted",
                                           f"The hub restarted and this session could not continue: {exc}")
            for preset in list(self.presets.values()):  # every runtime exists now: what is replayed finds its own
                self._connect_now(preset)
            for live in resumed:
                self.spawn(self._resume(live))
        finally:
            self.ready.set()

    async def stop(self) -> None:
        """The hub stops: each session's process stops (the session stays unended: the next start resumes it)."""
        self.stopping = True
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        lives = list(self.live.values())
        await asyncio.gather(*(self._stop_runtime(live) for live in lives), return_exceptions=True)
        for preset in list(self.presets.values()):
            await self._close_preset(preset)
        self.presets.clear()
        await self.catalogue.probes.close()

    async def _settle_orphans(self, records: list[SessionRecord]) -> None:
        """What the sessions' agent processes left open when the hub stopped: nobody can act on it any more. Their
        questions still waiting are withdrawn ("the agent restarted: it will ask again"; an answer is refused with
        those words) and a message they were streaming is finished with what the hub stored (runtimes/orphans.py)."""
        conversations: dict[tuple[str, str], set[str]] = {}
        for record in records:
            conversations.setdefault((record.agent_id, record.workspace_id), set()).add(record.conversation_id)
        for (agent_id, workspace_id), ids in conversations.items():
            try:
                asked_in = await orphans.withdraw_pending(self.hub, agent_id)
                await orphans.finish_streams(self.hub, agent_id, workspace_id, ids | asked_in)
            except LapError as exc:
                log.warning("what the agent %s left open could not be closed: %s", agent_id, exc)

    async def _withdraw_left(self, record: SessionRecord, reason: str) -> None:
        """The session's questions still waiting once its process stopped: withdrawn by the hub, as its agent."""
        try:
            pending = await self.hub.read(lambda c: interaction_rows.pending_of_agent(c, record.agent_id,
                                                                                     record.workspace_id))
            for interaction in pending:
                if interaction.conversation_id == record.conversation_id:
                    await orphans.withdraw(self.hub, record.agent_id, record.workspace_id, interaction.id, reason)
        except LapError as exc:
            log.warning("the questions of session %s could not be withdrawn: %s", record.id, exc)

    async def _stop_runtime(self, live: Live) -> None:
        try:
            async with asyncio.timeout(STOP_TIMEOUT_S):
                await live.runtime.stop()
        except Exception:
            log.exception("stopping the process of session %s failed", live.id)

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def wait_ready(self) -> None:
        try:
            async with asyncio.timeout(30):
                await self.ready.wait()
        except TimeoutError:
            raise LapError("internal", "The hub is still starting its sessions; try again in a moment.") from None

    # ---- the preset agents ------------------------------------------------------------------------------------

    async def preset(self, workspace_id: str, key: str, name: str, *, connect: bool = True) -> PresetAgent:
        """The preset's agent in this workspace, paired on first use, and connected (`connect`; at start the host
        first makes every session's runtime, then connects: what the agent is handed on connecting finds them)."""
        async with self._lock:
            found = self.presets.get((workspace_id, key))
            if found is None:
                found = await self._pair(workspace_id, key, name)
        if connect:
            await self._connect(found)
        return found

    def _connect_now(self, preset: PresetAgent) -> None:
        if preset.task is None and not self.stopping:
            preset.task = asyncio.create_task(preset.client.run(), name=f"lineup-sessions-{preset.key}")

    async def _connect(self, preset: PresetAgent) -> None:
        self._connect_now(preset)
        with contextlib.suppress(Exception):  # not connected yet: what it is sent waits in its outbox
            await preset.client.wait_connected(CONNECT_TIMEOUT_S)

    async def _pair(self, workspace_id: str, key: str, name: str) -> PresetAgent:
        if self.hub_url is None or self.stopping:
            raise LapError("internal", "The hub is not listening yet; try again in a moment.")
        folder = self.state_dir / "agents"
        stem = f"{workspace_id}-{key}"

        async def workspace() -> str:
            return workspace_id

        try:
            credential = await self.pairing.credential(folder / f"{stem}.credential.json", name, "acp",
                                                       self.hub_url, workspace, agent_version="sessions")
        except RuntimeConfigError as exc:
            raise LapError("forbidden", f"The {name} agent of sessions was revoked.",
                           hint=f"Delete {folder / (stem + '.credential.json')} on the hub's machine to pair it "
                                f"again ({exc}).") from None
        client = AgentClient(credential, state_path=folder / f"{stem}.state.json", runtime="acp",
                             agent_version="sessions")
        client.on_task(self._on_task)
        client.on("message.delivered")(self._on_message)
        await self.pairing.fail_orphans(credential.agent_id)
        found = self.presets[(workspace_id, key)] = PresetAgent(key, workspace_id, client)
        return found

    def _observe(self, events: list[StoredEvent]) -> None:
        """A preset agent revoked in the app: its sessions end (they could never hear the person again)."""
        for event in events:
            if event.type != "agent.revoked":
                continue
            agent_id = event.payload.get("agentId")
            for pair_key, preset in list(self.presets.items()):
                if preset.client.credential.agent_id == agent_id:  # a new session says it was revoked
                    del self.presets[pair_key]
                    self.spawn(self._close_preset(preset))
            for live in list(self.live.values()):
                if live.record.agent_id == agent_id:
                    self.spawn(self.end(live.record, "agent_revoked", "Its agent was revoked in the app.",
                                         say=False))

    @staticmethod
    async def _close_preset(preset: PresetAgent) -> None:
        await preset.client.close()
        if preset.task is not None:
            preset.task.cancel()
            await asyncio.gather(preset.task, return_exceptions=True)

    # ---- live sessions ----------------------------------------------------------------------------------------

    async def _revive(self, record: SessionRecord) -> Live:
        """A session not ended, after a restart: its runtime (no process yet) and its preset agent connected."""
        agent = await self.catalogue.agent(record.agent_key)
        if agent is None or not agent.installed:
            raise LapError("not_found", f"the agent {record.agent_key!r} is no longer installed"
                           + (f" ({agent.install})" if agent is not None and agent.install else ""))
        await self.check_folder_of(record)
        preset = await self.preset(record.workspace_id, record.agent_key, agent.name, connect=False)
        return self._make_live(record, agent, preset.client)

    def _make_live(self, record: SessionRecord, agent: Any, client: AgentClient) -> Live:
        from hub.sessions.live import make_live

        existing = self.live.get(record.id)
        if existing is not None:  # never two runtimes (two processes) for one session
            return existing
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        live = make_live(record, agent, client, self, self.state_dir)
        self.live[record.id] = live
        self.by_conversation[record.conversation_id] = record.id
        return live

    async def _resume(self, live: Live) -> None:
        """Start the process and load the session (session/load); when it cannot continue, end it saying why."""
        from hub.acp import TurnError

        session = live.runtime.sessions.get(live.conversation_id)
        try:
            async with session.lock:
                await live.runtime.open_session(live.conversation_id)
        except TurnError as exc:
            if exc.code == "session_lost":
                await self.end(live.record, "hub_restarted", f"The hub restarted and this session cannot continue: "
                                                             f"{exc.message} Start a new session to go on.")
            else:
                await self.say(live.record, f"The agent did not start again after the hub restarted "
                                            f"({exc.code}): {exc.message}")

    async def _warm(self, live: Live) -> None:
        """Start a new session's process and ACP session at once, so the first message finds it ready."""
        from hub.acp import TurnError

        session = live.runtime.sessions.get(live.conversation_id)
        try:
            async with session.lock:
                await live.runtime.open_session(live.conversation_id)
        except TurnError as exc:
            log.info("session %s did not start at once (%s); its first message tries again", live.id, exc.message)

    # ---- what the SDK client hands over ------------------------------------------------------------------------

    async def _on_task(self, task: TaskHandle) -> None:
        live = self.live.get(self.by_conversation.get(task.conversation_id or "", ""))
        if live is None:
            await task.cancelled("This agent works only in sessions started from the app (New session), and this "
                                 "conversation is not a running session: start a new session.")
            return
        if not live.folder.is_dir():
            await task.fail("worktree_missing", f"This session's folder {live.folder} was removed; the session "
                                                "cannot continue. End it and start a new one.")
            return
        await live.runtime.scheduler.run_task(task)

    async def _on_message(self, envelope_: dict[str, Any]) -> None:
        payload = envelope_.get("payload") or {}
        if (payload.get("author") or {}).get("kind") != "user":
            return
        conversation_id = envelope_.get("conversationId") or ""
        live = self.live.get(self.by_conversation.get(conversation_id, ""))
        if live is None:
            record = await self.hub.read(lambda c: session_rows.session_of_conversation(
                c, conversation_id, str(envelope_.get("workspaceId") or "")))
            if record is not None and record.status == "ended":
                await self.say(record, "This session has ended, so its agent no longer runs: start a new session "
                                       "(New session) to go on.")
            return
        if not live.folder.is_dir():
            await self.say(live.record, f"This session's folder {live.folder} was removed: the agent cannot work "
                                        "there, and the hub will not switch to another folder. End this session and "
                                        "start a new one.")
            return
        await live.runtime.scheduler.on_message(envelope_)

    # ---- HostLink: what a live session reports ----------------------------------------------------------------

    def report(self, live: Live, changes_: dict[str, Any]) -> None:
        record = live.record
        self.spawn(self.execute_quietly(commands.update(record.workspace_id, record.id, record.conversation_id,
                                                          changes_)))

    def say_later(self, live: Live, text: str) -> None:
        self.spawn(self.say(live.record, text))

    def remember_offers(self, key: str, offers: dict[str, Any], takes: dict[str, bool]) -> None:
        self.catalogue.remember(key, offers, takes)

    def session_lost(self, live: Live, message: str) -> None:
        """The agent process died and came back unable to load the session (turn_failed `session_lost`)."""
        self.spawn(self.end(live.record, "agent_exited", "The agent's process ended and this session cannot "
                                                          f"continue: {message} Start a new session to go on."))

    async def execute_quietly(self, command: Command) -> None:
        try:
            await self.hub.execute(command)
        except LapError as exc:
            log.warning("a session update was refused: %s", exc)

    async def say(self, record: SessionRecord, text: str) -> None:
        """A message of the session's agent in its conversation (the hub writes it: it needs no socket)."""
        actor = Actor("agent", record.agent_id, record.workspace_id)
        try:
            await self.hub.execute(message_command(actor, record.conversation_id, {"content": text[:8000]}))
        except LapError as exc:
            log.warning("could not post in session %s: %s", record.id, exc)

    # ---- the person's requests (hub/web/sessions.py) ----------------------------------------------------------

    async def check_folder_of(self, record: SessionRecord) -> Path:
        """The session's folder, still there and under the roots: a removed worktree is an error, never a switch to
        the main checkout (or any other folder git would find above it)."""
        folder = Path(record.folder)
        if not folder.is_dir():
            raise self._gone(record)
        try:
            check_folder(str(folder), self.settings.roots, "folder")
        except LapError:
            raise LapError("forbidden", f"This session's folder {folder} is no longer under [sessions] roots.",
                           hint="End this session, or add its folder back to [sessions] roots.") from None
        return folder

    async def repository_of(self, record: SessionRecord) -> tuple[Path, git.Pin]:
        """The session's folder and the repository it began in, checked (hub/sessions/repository.py): git runs
        there only pinned to it. A folder that was no repository at the start, or where git now finds another one,
        is refused saying so."""
        folder = await self.check_folder_of(record)
        pin = await repository.verified(self.state_dir, self.settings, record, folder)
        if pin.folder != folder.resolve():  # git would work on a folder above it: the worktree is not there
            raise self._gone(record)
        return folder, pin

    @staticmethod
    def _gone(record: SessionRecord) -> LapError:
        return LapError("conflict", f"This session's folder {record.folder} is gone"
                        + (" (its worktree was removed)" if record.worktree else "") + ".",
                        hint="End this session and start a new one; the hub never switches it to another folder.")

    async def record(self, actor: Actor, session_id: str) -> SessionRecord:
        record = await self.hub.read(lambda c: session_rows.session(c, session_id, actor.workspace_id))
        if record is None:
            raise LapError("not_found", f"No session {session_id!r} in this workspace.")
        return record

    async def create(self, actor: Actor, payload: dict[str, Any], agent: Any, first: dict[str, Any],
                     found: repository.Found | None = None) -> Live:
        """Store the session (its conversation and `session.started`), make its runtime and start its process, then
        post the person's first message in the conversation (it streams back as in any conversation). `found`: the
        repository its folder belongs to now (its pin None: no repository the hub may use, and why), remembered
        before the agent runs there."""
        preset = await self.preset(actor.workspace_id, agent.key, agent.name)
        payload["agentId"] = preset.client.credential.agent_id
        async with self._lock:
            await self.hub.execute(commands.start(actor, payload, self.settings.max_running))
            found = found or repository.Found(None)
            repository.remember(self.state_dir, payload["sessionId"], found.pin, found.refused)  # before it starts
            record = await self.record(actor, payload["sessionId"])
            live = self._make_live(record, agent, preset.client)
            live.status = "starting"  # until its first turn runs: the list never says Idle before it ever ran
        live.warming = asyncio.ensure_future(self._warm(live))
        self._background.add(live.warming)
        live.warming.add_done_callback(self._background.discard)
        user_payload = {**first, "messageId": new_id("msg"), "targetAgentId": record.agent_id}
        await self.hub.execute(message_command(actor, record.conversation_id, user_payload))
        return live

    async def stop_turn(self, actor: Actor, session_id: str) -> bool:
        """Stop the turn running now (ACP session/cancel); a task's turn by cancelling its task, as the app does."""
        record = await self.record(actor, session_id)
        live = self.live.get(record.id)
        if record.status == "ended" or live is None:
            return False
        session = live.runtime.sessions.by_key.get(live.conversation_id)
        turn = session.turn if session is not None else None
        if turn is None:
            return False
        if turn.task is not None:
            env = envelope("task.cancel_requested", {"reason": "Stopped from the session"}, actor.workspace_id,
                           live.conversation_id, turn.task.id)
            parsed = P.parse_payload(P.TaskCancelRequested, env.payload)
            try:
                await self.hub.execute(Command(run=lambda tx: task_cancel_requested(tx, actor, env, parsed)))
            except LapError as exc:
                if exc.code != "illegal_transition":
                    raise
            return True
        return live.runtime.stop_turn(live.conversation_id)

    async def end(self, record: SessionRecord, reason: str, message: str | None = None,
                  actor: Actor | None = None, *, say: bool = True) -> bool:
        """End the session: `session.ended`, its process stopped, its conversation told. Never deletes a worktree."""
        fresh = await self.hub.read(lambda c: session_rows.session(c, record.id, record.workspace_id)) or record
        if fresh.pending_commit and say:  # withdrawn by the hub itself, as the agent: no connection needed
            with contextlib.suppress(LapError):
                await orphans.withdraw(self.hub, record.agent_id, record.workspace_id, fresh.pending_commit,
                                       "The session ended before the answer.")
        ended = await self.hub.execute(commands.end(actor or Actor("hub", "hub", record.workspace_id), record.id,
                                                    reason, message))
        live = self.live.pop(record.id, None)
        self.by_conversation.pop(record.conversation_id, None)
        if live is not None:
            if live.warming is not None and not live.warming.done():
                live.warming.cancel()
            await self._stop_runtime(live)
        await self._withdraw_left(record, "The session ended before the answer, and its agent with it.")
        if ended and say:
            note = message or "Session ended; its agent process was stopped."
            if record.worktree:
                note += f" The worktree {record.folder} stays as it is."
            await self.say(record, note)
        return bool(ended)

    async def _end_record(self, record: SessionRecord, reason: str, message: str) -> None:
        try:
            await self.end(record, reason, message)
        except LapError as exc:
            log.warning("session %s could not be ended: %s", record.id, exc)

    # ---- commit through an approval card (hub/sessions/commit.py) ------------------------------------------

    async def request_commit(self, actor: Actor, record: SessionRecord, message: str) -> str:
        """Ask the person to approve committing exactly the folder as it is now; commit that when approved."""
        return await commit.request(self, record, message)

    def client_of(self, record: SessionRecord) -> AgentClient | None:
        preset = self.presets.get((record.workspace_id, record.agent_key))
        return preset.client if preset is not None else None

    # ---- reads ------------------------------------------------------------------------------------------------

    def running_roots(self) -> list[Path]:
        return resolved_roots(self.settings.roots)
