"""One running session: its own acp runtime (one agent process, one ACP session in the session's folder) driven by the
host, and what it reports back (running / idle, usage, the mode the agent switched to).

Imported only when sessions are on: the acp package (pydantic) takes half a second to import.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hub.acp import AcpRuntime, TurnError
from hub.acp.attachments import takes
from hub.acp.observer import SessionObserver
from hub.runtimes.base import AgentConfig
from hub.sessions.agents import current_of, models_of, modes_of
from hub.store.queries.records import SessionRecord

if TYPE_CHECKING:
    from hub.acp.process import AgentProcess
    from hub.sdk import AgentClient
    from hub.sessions.agents import SessionAgent

log = logging.getLogger("lineup.sessions")

SET_TIMEOUT_S = 15.0          # session/set_mode, session/set_model, session/set_config_option
TURN_TOKENS = ("inputTokens", "outputTokens", "totalTokens", "thoughtTokens", "cachedReadTokens", "cachedWriteTokens")


class HostLink(Protocol):
    """What a live session uses of its host (hub/sessions/host.py)."""

    def report(self, live: Live, changes: dict[str, Any]) -> None: ...

    def say_later(self, live: Live, text: str) -> None: ...

    def remember_offers(self, key: str, offers: dict[str, Any], takes: dict[str, bool]) -> None: ...

    def session_lost(self, live: Live, message: str) -> None: ...


@dataclass
class Live:
    """A session with an agent process (or one being started)."""

    record: SessionRecord
    runtime: AcpRuntime
    usage: dict[str, Any] = field(default_factory=dict)
    usage_changed: bool = False
    status: str = "idle"                 # "starting" from Start until its first turn runs (a new session)
    mode: str | None = None              # as applied or reported
    model: str | None = None
    warming: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def conversation_id(self) -> str:
        return self.record.conversation_id

    @property
    def folder(self) -> Path:
        return Path(self.record.folder)


class Reporter(SessionObserver):
    """The session's observer: turns, usage and modes reported to the host, the person's mode and model applied."""

    def __init__(self, host: HostLink, agent_key: str) -> None:
        self.host = host
        self.agent_key = agent_key
        self.live: Live | None = None

    def turn_started(self, key: str) -> None:
        if self.live is not None:
            self.live.status = "running"
            self.host.report(self.live, {"status": "running"})

    def turn_ended(self, key: str) -> None:
        live = self.live
        if live is None:
            return
        live.status = "idle"
        changes: dict[str, Any] = {"status": "idle"}
        if live.usage_changed:
            changes["usage"] = dict(live.usage)
            live.usage_changed = False
        self.host.report(live, changes)

    def usage(self, key: str, report: dict[str, Any]) -> None:
        live = self.live
        if live is None:
            return
        if report.get("turn"):  # one turn's tokens: summed over the session
            for name in TURN_TOKENS:
                if isinstance(report.get(name), int):
                    live.usage[name] = int(live.usage.get(name) or 0) + report[name]
        else:  # the context now, and the cost so far
            live.usage.update({k: v for k, v in report.items() if k in ("contextUsed", "contextSize", "cost")})
        live.usage_changed = True
        if live.status != "running":  # outside a turn: nothing else will carry it
            live.usage_changed = False
            self.host.report(live, {"usage": dict(live.usage)})

    def mode_changed(self, key: str, mode_id: str) -> None:
        if self.live is not None and mode_id != self.live.mode:
            self.live.mode = mode_id
            self.host.report(self.live, {"mode": mode_id})

    def turn_failed(self, key: str, error: TurnError) -> None:
        live = self.live
        if live is None:
            return
        if live.status == "starting":  # it never ran: no longer starting, and the list hears so
            live.status = "idle"
            self.host.report(live, {"status": "idle"})
        if error.code == "session_lost":
            self.host.session_lost(live, error.message)

    async def session_opened(self, agent: AgentProcess, key: str, acp_id: str, offers: dict[str, Any],
                             loaded: bool) -> None:
        live = self.live
        if live is None:
            return
        self.host.remember_offers(self.agent_key, offers, takes(agent.info))
        mode, model = current_of(offers)
        applied: dict[str, Any] = {}
        wanted_mode, wanted_model = live.record.mode, live.record.model
        if wanted_mode and wanted_mode != mode and await self._set(agent, acp_id, "mode", wanted_mode,
                                                                  modes_of(offers)):
            mode = wanted_mode
        if wanted_model and wanted_model != model and await self._set(agent, acp_id, "model", wanted_model,
                                                                     models_of(offers)):
            model = wanted_model
        if mode and mode != live.mode:
            live.mode = applied["mode"] = mode
        if model and model != live.model:
            live.model = applied["model"] = model
        if applied:
            self.host.report(live, applied)

    async def _set(self, agent: AgentProcess, acp_id: str, what: str, wanted: str,
                   offered: list[dict[str, Any]]) -> bool:
        """Switch the session to the mode or model the person chose, the way the agent offers it; say why not."""
        choice = next((entry for entry in offered if entry["id"] == wanted), None)
        live = self.live
        assert live is not None
        if choice is None:
            names = ", ".join(entry["id"] for entry in offered) or "none"
            self.host.say_later(live, f"The agent does not offer the {what} {wanted!r} (it offers: {names}); it works "
                                      f"in its own default {what}.")
            return False
        via = str(choice["via"])
        if via == "mode":
            method, params = "session/set_mode", {"sessionId": acp_id, "modeId": wanted}
        elif via == "model":
            method, params = "session/set_model", {"sessionId": acp_id, "modelId": wanted}
        else:
            method, params = "session/set_config_option", {"sessionId": acp_id, "configId": via.partition(":")[2],
                                                           "value": wanted}
        try:
            async with asyncio.timeout(SET_TIMEOUT_S):
                await agent.request(method, params)
        except Exception as exc:  # noqa: BLE001 - the agent's refusal, a timeout, a closed pipe: said, not fatal
            self.host.say_later(live, f"The {what} {wanted!r} could not be set ({method}: {exc or type(exc).__name__})"
                                      f"; the agent works in its own default {what}.")
            return False
        return True


def make_live(record: SessionRecord, agent: SessionAgent, client: AgentClient, host: HostLink,
              state_dir: Path) -> Live:
    """The session's runtime: the agent's command in the session's folder, driven by the host (no handlers of its
    own), its ACP session map kept in <data dir>/sessions/<id>.acp.json."""
    assert agent.command is not None
    config = AgentConfig(agent.name, "acp", list(agent.command), Path(record.folder), dict(agent.env),
                         options=dict(agent.options))
    reporter = Reporter(host, agent.key)
    runtime = AcpRuntime(config, client, handlers=False, sessions_path=state_dir / f"{record.id}.acp.json",
                         observer=reporter)
    live = Live(record, runtime, mode=record.mode, model=record.model)
    if record.usage:
        try:
            stored = json.loads(record.usage)
            live.usage = stored if isinstance(stored, dict) else {}
        except ValueError:
            live.usage = {}
    reporter.live = live
    return live
