"""Terminal sessions in the session list (docs/sessions.md "The session list"), with the REAL Claude Code and Codex CLIs.

A `claude -p` run connected with `lineup connect claude-code` appears in GET /api/sessions as soon as its hooks make
its conversation, which the app hears live (`conversation.created`), and ends there once Claude Code exits, which the
app hears as one `agent.status_changed` (offline, signed off): never an offline-online flap in the run's first second
(its hook's process closing before the keeper's connects), which gave its running task a "lost connection" and showed
the session Ended while it ran. A second run shows the first conversation Ended while the second runs (before, every
conversation of the agent said Idle whenever any run of it was online). Interactive Codex's conversation of finished
turns offers no composer (`canSend: false`: Codex never reads it) and ends when Codex exits.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.test_claude_code import Stage, finished, stage  # noqa: F401 - the fixture
from tests.integration.test_codex_terminal import CodexStage, codex, escalated  # noqa: F401 - the fixture
from tests.support.fake_models import text
from tests.support.polling import eventually

pytestmark = [pytest.mark.real_agent, pytest.mark.timeout(240)]
DEADLINE_S = 30.0


async def terminal(stage: Any, conversation_id: str, status: str | None = None) -> dict[str, Any]:
    """The conversation's row in GET /api/sessions (in `status`, waited for within a generous deadline)."""
    async def row() -> dict[str, Any] | None:
        listed = await stage.api.get("/api/sessions")
        found = next((s for s in listed if s.get("conversationId") == conversation_id), None)
        return dict(found) if found is not None and (status is None or found["status"] == status) else None
    return dict(await eventually(row, timeout=DEADLINE_S, what=f"the conversation's row in /api/sessions ({status})"))


def statuses(stage: Any, agent_id: str) -> list[tuple[str, str]]:
    return [(e["payload"]["status"], e["payload"]["reason"]) for e in stage.app.events()
            if e["type"] == "agent.status_changed" and e["payload"]["agentId"] == agent_id]


async def test_a_claude_code_run_appears_and_ends_live(stage: Stage) -> None:
    stage.model.script.replace(text("Done."), text("Thinking it over...", delay_s=8), text("Done again."))
    await stage.connect()
    first = stage.claude_print("Say done")
    made = await stage.app.wait_for(lambda f: f["type"] == "conversation.created" and f.get("sequence") is not None, timeout=60)
    one = made["conversationId"]
    row = await terminal(stage, one)
    assert row["kind"] == "terminal" and row["runtime"] == "claude-code" and row["canSend"] is False
    code, _, err = await finished(first)
    assert code == 0, err
    assert (await terminal(stage, one, "ended"))["status"] == "ended"
    agent_id = row["agentId"]
    # One online and one offline for the whole run: the hook's process handing over to the keeper is no sign-off.
    assert statuses(stage, agent_id) == [("online", "connected"), ("offline", "signed_off")]

    # A second run: its conversation is the running one; the first stays Ended.
    seen = len(stage.app.frames)
    second = stage.claude_print("Think it over")
    made = await stage.app.wait_for(lambda f: f["type"] == "conversation.created" and f.get("sequence") is not None, timeout=60,
                                    start=seen)
    two = made["conversationId"]
    assert (await terminal(stage, two, "running"))["status"] == "running"
    assert (await terminal(stage, one))["status"] == "ended"
    code, _, err = await finished(second)
    assert code == 0, err
    assert (await terminal(stage, two, "ended"))["status"] == "ended"
    assert statuses(stage, agent_id)[-1] == ("offline", "signed_off")


async def test_interactive_codex_turns_offer_no_composer_and_end_with_codex(codex: CodexStage) -> None:
    codex.model.script.add(escalated(codex.outside), text("All done."))
    await codex.connect()
    await codex.start_codex()
    card = await codex.card()
    await codex.app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "allow_once"}})
    await codex.app.event("task.status_changed", status="succeeded", timeout=60)
    row = await terminal(codex, card["conversationId"], "idle")
    assert row["runtime"] == "mcp" and row["canSend"] is False  # Codex reads only its own MCP conversation
    assert "do not reach it" in row["note"]
    codex.stop()
    assert (await terminal(codex, card["conversationId"], "ended"))["status"] == "ended"
