"""A session agent's permission cards at the edges: the hub restarts while one waits (it stayed answerable, showed
"Approved", applied nothing, and the agent's message stayed "Writing…" for ever), and a note the person writes on
Reject, which ACP's answer has no field for, reaches the agent as its next prompt (docs/sessions.md).

Against a real hub (tests/integration/test_sessions.py's set-up) with the scripted ACP agent as the session's agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

from tests.integration.conftest import Connect
from tests.integration.test_sessions import WAIT_S, SessionsHub, start_sessions_hub
from tests.support.fixtures import HubFactory
from tests.support.live import eventually


async def _messages(h: SessionsHub, conversation_id: str) -> list[dict[str, Any]]:
    return list((await h.api.get(f"/api/conversations/{conversation_id}/messages"))["messages"])


async def test_a_card_whose_agent_restarted_is_withdrawn_everywhere_and_its_message_closed(
        hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    started = await h.start({"agent": "scripted", "project": str(h.repo), "message": "say_then_ask"})
    conversation_id = started["conversationId"]
    card = (await h.app.event("interaction.requested", WAIT_S, conversationId=conversation_id))["payload"]
    interaction_id = card["interaction"]["id"]
    delta = await h.app.wait_for(lambda f: f["type"] == "message.delta" and f.get("conversationId") == conversation_id,
                                 WAIT_S)
    message_id = delta["payload"]["messageId"]

    await h.restart()  # the agent's process ends with the hub; the card and the message were left open

    withdrawn = await h.app.event("interaction.resolved", WAIT_S, interactionId=interaction_id)
    reason = withdrawn["payload"]["response"]["reason"]
    assert withdrawn["payload"]["outcome"] == "cancelled" and withdrawn["payload"]["response"]["cause"] == "withdrawn"
    assert "restarted" in reason and "ask again" in reason
    # Approving it now is refused with those words: nothing shows "Approved" for an answer nobody receives.
    refused = await h.app.request("interaction.respond", {"interactionId": interaction_id,
                                                          "response": {"optionId": "allow_once"}})
    assert refused["type"] == "system.error" and refused["payload"]["code"] == "already_resolved"
    assert reason in refused["payload"]["message"]
    assert not any(e for e in h.received("permission/answer"))  # the agent never heard an answer

    # The message it was streaming is finished: what it said before it asked is a message of its own above the card
    # (stored as the tool call began), so none is left streaming.
    closed = await h.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                  and f["payload"]["messageId"] == message_id, WAIT_S)
    assert closed["payload"]["content"] == "Let me clean up first."
    messages = await _messages(h, conversation_id)
    assert [m["id"] for m in messages if m["state"] == "streaming"] == []

    # The session goes on: the next message is answered, and no second card or stream is left behind.
    await h.say(conversation_id, "still there?")
    await h.reply(conversation_id, lambda text: "still there?" in text)
    detail = await h.api.get("/api/interactions", status="pending")
    assert [i for i in detail["interactions"] if i.get("conversationId") == conversation_id] == []


async def test_a_note_on_reject_reaches_the_agent_as_its_next_prompt(hub_factory: HubFactory, lap: Connect,
                                                                    tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    started = await h.start({"agent": "scripted", "project": str(h.repo), "message": "permission"})
    conversation_id = started["conversationId"]
    card = (await h.app.event("interaction.requested", WAIT_S, conversationId=conversation_id))["payload"]
    interaction = card["interaction"]
    assert interaction["notes"] == "next_message"  # the card tells the person where the note goes
    note = "Not the whole folder: only build/cache, and keep build/release."
    await h.app.ok("interaction.respond", {"interactionId": interaction["id"],
                                           "response": {"optionId": "reject_once", "comment": note}})
    await h.reply(conversation_id, lambda text: text == "Permission outcome: selected opt-reject-once")

    async def noted() -> list[str] | None:
        texts = [e["text"] for e in h.received("session/prompt")]
        return texts if len(texts) >= 2 else None

    prompts = await eventually(noted, timeout=WAIT_S)
    assert prompts[0] == "permission" and note in prompts[1]  # the very next prompt, the note whole
    assert "Delete build/" in prompts[1]  # which request it is about
    await h.reply(conversation_id, lambda text: note in text)  # answered in the conversation as any prompt
