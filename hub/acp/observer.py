"""What a runtime's driver may hear of its sessions: turns starting and ending, the agent's usage and mode reports,
each ACP session opened (to apply a mode or model). `[[agents]]` runtimes have none; the session host has one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hub.acp.errors import TurnError
    from hub.acp.process import AgentProcess


class SessionObserver:
    """Told, per session key (the conversation id), what happens in its ACP session. Every method does nothing here;
    a driver overrides what it needs. The synchronous ones must not block (they run in the ACP reader's task)."""

    def turn_started(self, key: str) -> None:
        """A prompt was sent in the session."""

    def turn_ended(self, key: str) -> None:
        """The session's prompt ended (however it ended)."""

    def usage(self, key: str, report: dict[str, Any]) -> None:
        """The agent reported usage: `usage_update` ({contextUsed, contextSize, cost?}) or a prompt response's
        `usage` ({inputTokens, outputTokens, totalTokens, ...} of that turn, `turn: true`)."""

    def mode_changed(self, key: str, mode_id: str) -> None:
        """The agent switched its mode by itself (`current_mode_update`)."""

    def turn_failed(self, key: str, error: TurnError) -> None:
        """A turn could not run or ended abnormally (`session_lost`: the session could not continue after a restart
        of its agent process)."""

    async def session_opened(self, agent: AgentProcess, key: str, acp_id: str, offers: dict[str, Any],
                             loaded: bool) -> None:
        """The session was made (`session/new`) or loaded (`session/load`) in this agent process; `offers` is what
        the agent answered (`modes`, `models`, `configOptions`, as sent). A TurnError fails the turn that opened it."""
