"""A loaded session's replayed history, watched to its end so that a late replay is not taken for the next reply."""

from __future__ import annotations

import asyncio
from typing import Any

from acp.schema import AgentMessageChunk, UserMessageChunk

from hub.acp.text import content_text

REPLY_TAIL_CHARS = 500     # of the last reply, kept per session: enough to recognise its replay
LATE_REPLAY_WAIT_S = 5.0   # the most a prompt waits for a replay that has not reached the last reply


def squashed(text: str) -> str:
    """The text without whitespace: an agent replays a reply as it stored it, which may be spaced differently
    from the chunks it streamed."""
    return "".join(text.split())


class HistoryReplay:
    """What an agent replays after `session/load`, compared with the last reply the hub saw in the session.

    ACP asks the agent to replay the whole history before it answers `session/load`; Gemini CLI 0.61 starts the
    replay without awaiting it and answers first, so the rest arrives while the next prompt runs and would be
    streamed as part of its reply. The replay is over when the agent's text since the last replayed user message
    ends with the last reply; until then the session's next prompt waits (at most LATE_REPLAY_WAIT_S). An earlier
    turn that ended with the very same words ends the wait early: the rest of such a replay may still be shown."""

    def __init__(self, last_reply: str) -> None:
        self.expected = squashed(last_reply)[-REPLY_TAIL_CHARS:]
        self.started = False           # something was replayed
        self.since_user = ""           # the agent's text since the last replayed user message (squashed, a tail)
        self.done = asyncio.Event()

    def feed(self, update: Any) -> None:
        self.started = True
        if isinstance(update, UserMessageChunk):
            self.since_user = ""
        elif isinstance(update, AgentMessageChunk):
            self.since_user = (self.since_user + squashed(content_text(update.content)))[-2 * REPLY_TAIL_CHARS:]
            if self.expected and self.since_user.endswith(self.expected):
                self.done.set()

    @property
    def unfinished(self) -> bool:
        """Started, and known not to have reached the last reply yet (without a last reply nothing is known)."""
        return self.started and bool(self.expected) and not self.done.is_set()
