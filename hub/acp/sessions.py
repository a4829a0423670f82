"""Each conversation's ACP session: opened in the running agent, and the map kept in <slug>.acp-sessions.json."""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import acp

from hub.acp.errors import TurnError
from hub.acp.process import wait_event
from hub.acp.replay import LATE_REPLAY_WAIT_S, REPLY_TAIL_CHARS, HistoryReplay

if TYPE_CHECKING:
    from hub.acp.observer import SessionObserver
    from hub.acp.process import AgentProcess
    from hub.acp.turn import Turn

log = logging.getLogger("lineup.runtimes.acp")

AUTH_REQUIRED = -32000                  # ACP's "authentication required" error code


@dataclass
class Session:
    """The ACP session of one conversation (or of one task without a conversation)."""

    key: str
    acp_id: str | None = None
    generation: int = 0                    # the agent process the session lives in
    turn: Turn | None = None
    last_reply: str = ""                   # the end of the last turn's reply: how its replay is recognised
    replay: HistoryReplay | None = None    # while the agent replays the history of a session/load
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class SessionMap:
    """The sessions by conversation (`task:<id>` for a task without one) and by ACP id, and what is kept of them."""

    def __init__(self, path: Path | None, observer: SessionObserver | None = None, *,
                 continue_or_fail: bool = False) -> None:
        # Kept next to the agent's credential: which ACP session each conversation has (after a hub restart an
        # agent that can `session/load` continues the conversation where it was), and the last messages
        # prompted (after a crash the SDK delivers what came after its saved cursor again: not asked twice), and
        # the end of each session's last reply (its replay after a session/load is recognised by it).
        self.path = path
        self.by_key: dict[str, Session] = {}
        self.by_acp_id: dict[str, Session] = {}
        self.prompted: collections.deque[str] = collections.deque(maxlen=200)
        self.observer = observer
        # A session that existed must continue or fail (TurnError session_lost): never a new ACP session in its
        # place without its history (sessions from the phone, docs/sessions.md). `[[agents]]` start a new one.
        self.continue_or_fail = continue_or_fail

    def load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            stored = json.loads(self.path.read_text())
        except (OSError, ValueError):
            log.warning("ignoring an unreadable %s", self.path)
            return
        if not isinstance(stored, dict):
            return
        for key, acp_id in (stored.get("sessions") or {}).items():
            if isinstance(acp_id, str):
                self.by_key[key] = Session(key, acp_id)  # generation 0: loaded (or replaced) on first use
        for key, reply in (stored.get("replies") or {}).items():
            if key in self.by_key and isinstance(reply, str):
                self.by_key[key].last_reply = reply[-REPLY_TAIL_CHARS:]
        self.prompted.extend(m for m in stored.get("prompted") or [] if isinstance(m, str))

    def save(self) -> None:
        if self.path is None:
            return
        kept = {key: s for key, s in self.by_key.items() if s.acp_id and not key.startswith("task:")}
        stored = {"sessions": {key: s.acp_id for key, s in kept.items()},
                  "replies": {key: s.last_reply for key, s in kept.items() if s.last_reply},
                  "prompted": list(self.prompted)}
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(stored))
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("could not save %s: %s", self.path, exc)

    def get(self, key: str) -> Session:
        """The session of `key`, made (without an ACP id yet) on first use."""
        session = self.by_key.get(key)
        if session is None:
            session = self.by_key[key] = Session(key)
        return session

    def remember_reply(self, session: Session, text: str) -> None:
        """Keep the end of a turn's reply: after a restart, the replay of the session's history ends with it."""
        session.last_reply = text[-REPLY_TAIL_CHARS:]
        if not session.key.startswith("task:"):
            self.save()

    def abandon(self, session: Session) -> None:
        """The service behind the agent lost this session's turn midway (OpenClaw's Gateway went away, and when it is
        back it runs the interrupted turn again by itself): the next prompt starts a new ACP session, which a fresh
        run answers, instead of loading this one and queueing behind that recovery, where the bridge counted the
        prompt done at once and the run's approval reached no one. Sessions that must continue or fail keep it."""
        if self.continue_or_fail:
            return
        self.by_acp_id.pop(session.acp_id or "", None)
        session.acp_id, session.last_reply = None, ""
        if not session.key.startswith("task:"):
            self.save()

    def forget(self, session: Session) -> None:
        """Drop a session that is not kept (a task's own, when the task ends)."""
        self.by_key.pop(session.key, None)
        self.by_acp_id.pop(session.acp_id or "", None)

    async def open(self, agent: AgentProcess, session: Session, cwd: str, timeout_s: float) -> str:
        """The session's ACP id in this agent process: made with session/new, or loaded after a restart."""
        if session.acp_id is not None and session.generation == agent.generation:
            return session.acp_id
        self.by_acp_id.pop(session.acp_id or "", None)
        if self.continue_or_fail and session.acp_id is not None and not agent.can_load_sessions:
            raise TurnError("session_lost", "The agent cannot load its earlier sessions (it offers no session/load), "
                                            "so this conversation cannot continue where it was.")
        loaded = False
        try:
            acp_id = None
            if session.acp_id is not None and agent.can_load_sessions:
                try:  # the agent keeps its sessions: the conversation continues where it was
                    self.by_acp_id[session.acp_id] = session  # its replayed history is not shown
                    session.replay = HistoryReplay(session.last_reply)
                    async with asyncio.timeout(timeout_s):
                        await agent.load_session(cwd, session.acp_id)
                    acp_id, loaded = session.acp_id, True
                    await self._replayed(session)
                except acp.RequestError as exc:
                    self.by_acp_id.pop(session.acp_id, None)
                    if self.continue_or_fail:
                        raise TurnError("session_lost", f"The agent could not load this session: {exc}") from None
                    log.info("session/load of %s failed (%s); starting a new session", session.acp_id, exc)
                finally:
                    session.replay = None
            if acp_id is None:
                async with asyncio.timeout(timeout_s):
                    acp_id = await agent.new_session(cwd)
        except acp.RequestError as exc:
            if exc.code == AUTH_REQUIRED:
                hint = agent.auth_hint()
                raise TurnError("auth_required", "The agent needs you to sign in before it can work"
                                + (f" ({hint})." if hint else ".")) from None
            raise TurnError("session_failed", f"The agent refused session/new: {exc} {exc.data or ''}".strip()) \
                from None
        except TimeoutError:
            raise TurnError("session_failed", f"The agent did not open a session within "
                                              f"{timeout_s:g} s.") from None
        except ConnectionError:
            agent.broken = True
            raise TurnError("agent_exited", agent.describe_exit(
                " It is started again for the next task or message.")) from None
        session.acp_id, session.generation = acp_id, agent.generation
        self.by_acp_id[acp_id] = session
        if not session.key.startswith("task:"):
            self.save()
        if self.observer is not None:
            await self.observer.session_opened(agent, session.key, acp_id, agent.offers.get(acp_id, {}), loaded)
        return acp_id

    @staticmethod
    async def _replayed(session: Session) -> None:
        """Wait for the end of a replay still arriving after the load's answer (see HistoryReplay)."""
        replay = session.replay
        if replay is None or not replay.unfinished:
            return
        await wait_event(replay.done, LATE_REPLAY_WAIT_S)
        if not replay.done.is_set():
            log.info("the replay of session %s did not reach its last reply within %g s; prompting anyway",
                     session.acp_id, LATE_REPLAY_WAIT_S)
