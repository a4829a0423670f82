"""A terminal agent's conversation in the session list (hub/web/sessions.py terminal_view): its status from the agent's
current run, and no composer where the agent never reads (the conversations hub/connect's hooks and notifier make)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hub.connect.hooks import HookRun
from hub.connect.turn_notify import open_conversation
from hub.domain import collaboration
from hub.protocol import vocabulary
from hub.store.queries.records import TerminalConversationRecord
from hub.web.sessions import HOOK_CONVERSATIONS, terminal_view


def row(conversation_id: str = "conv_1", runtime: str = "claude-code", status: str = "online", active: int = 0,
        updated_at: str = "2026-12-07T10:00:05.000Z") -> TerminalConversationRecord:
    return TerminalConversationRecord(conversation_id, "Claude Code in app", updated_at, "agt_1", "Claude Code",
                                      runtime, status, active)


def test_a_conversation_is_idle_only_in_its_agents_current_run() -> None:
    came_online = "2026-12-07T10:00:00.000Z"
    assert terminal_view(row(), came_online)["status"] == "idle"
    assert terminal_view(row(updated_at="2026-12-07T09:59:59.000Z"), came_online)["status"] == "ended"
    assert terminal_view(row(updated_at="2026-12-07T09:59:59.000Z", active=1), came_online)["status"] == "running"
    assert terminal_view(row(status="offline"), None)["status"] == "ended"
    assert terminal_view(row(), None)["status"] == "idle"  # online, its run's start not known (not since the start)


def test_no_composer_where_the_agent_never_reads() -> None:
    assert terminal_view(row("conv_cc_abc"))["canSend"] is False
    assert terminal_view(row("conv_codex_abc", "mcp"))["canSend"] is False
    assert "do not reach it" in terminal_view(row("conv_codex_abc", "mcp"))["note"]
    assert terminal_view(row("conv_01abc", "mcp"))["canSend"] is True  # the MCP bridge's own conversation


def test_the_hook_conversations_are_the_ones_hub_connect_makes(tmp_path: Path) -> None:
    class Client:
        credential = type("Credential", (), {"agent_id": "agt_1"})()
        sent: list[str] = []

        async def send(self, type_: str, payload: dict[str, Any], **fields: Any) -> None:
            self.sent.append(fields["conversationId"])

    hook = HookRun(tmp_path / "claude-code.json", tmp_path, 60)
    hook.client = Client()
    assert hook.ids("session-1", 1)[0].startswith(HOOK_CONVERSATIONS)
    for cli in ("codex", "gemini"):
        made = asyncio.run(open_conversation(Client(), tmp_path / f"{cli}.json", cli=cli, session="s1", cwd="/w",
                                             timeout_s=5))
        assert made.startswith(HOOK_CONVERSATIONS), made


def test_the_terminal_runtimes_are_defined_once_for_the_app_and_the_hub() -> None:
    assert set(vocabulary.TERMINAL_RUNTIMES) == set(collaboration.TERMINAL_RUNTIMES)
    assert vocabulary.for_app()["terminalRuntimes"] == list(vocabulary.TERMINAL_RUNTIMES)
