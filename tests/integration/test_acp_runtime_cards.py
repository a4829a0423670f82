"""An `[[agents]]` ACP agent's permission cards at the edges, as for sessions (tests/integration/
test_sessions_cards.py): a card waiting when the hub restarts is withdrawn everywhere and the message the agent was
streaming is finished; a note the person writes with the answer reaches the agent as the conversation's next prompt
(ACP's answer has no field for it). The supervised scripted ACP agent, driven through a conversation and a task.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

from tests.integration.conftest import Connect
from tests.integration.test_runtime_acp import start_acp_hub
from tests.support.fixtures import HubFactory
from tests.support.live import eventually


async def test_a_card_waiting_when_the_hub_restarts_is_withdrawn_and_the_message_finished(
        hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.app.ok("message.create", {"content": "say_then_ask"}, conversationId="c1")
    requested = await h.app.event("interaction.requested", 15, conversationId="c1")
    interaction_id = requested["payload"]["interaction"]["id"]
    delta = await h.app.wait_for(lambda f: f["type"] == "message.delta" and f.get("conversationId") == "c1", 15)
    message_id = delta["payload"]["messageId"]

    await h.app.close()
    h.hub.stop()
    h.hub.start()
    h.app = await lap(h.hub, "app", h.api.token)

    withdrawn = await h.app.event("interaction.resolved", 20, interactionId=interaction_id)
    reason = withdrawn["payload"]["response"]["reason"]
    assert withdrawn["payload"]["outcome"] == "cancelled" and "restarted" in reason
    refused = await h.app.request("interaction.respond", {"interactionId": interaction_id,
                                                          "response": {"optionId": "allow_once"}})
    assert refused["payload"]["code"] == "already_resolved" and reason in refused["payload"]["message"]
    closed = await h.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                  and f["payload"]["messageId"] == message_id, 15)
    assert closed["payload"]["content"].startswith("Let me clean up first.")
    messages = (await h.api.get("/api/conversations/c1/messages"))["messages"]
    assert [m["id"] for m in messages if m["state"] == "streaming"] == []
    assert h.received("permission/answer") == []
    # The agent runs again and answers (and the test does not end while its new process still starts).
    await h.app.ok("message.create", {"content": "after the restart"}, conversationId="c1")
    await h.reply(lambda text: "after the restart" in text, timeout=20)


async def test_a_note_with_an_answer_is_the_next_prompt_of_a_conversation_and_of_a_task(
        hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.app.ok("message.create", {"content": "permission"}, conversationId="c1")
    requested = await h.app.event("interaction.requested", 15, conversationId="c1")
    note = "Delete build/cache only."
    await h.app.ok("interaction.respond", {"interactionId": requested["payload"]["interaction"]["id"],
                                           "response": {"optionId": "reject_once", "comment": note}})
    await h.reply(lambda text: text == "Permission outcome: selected opt-reject-once")

    async def prompts(count: int) -> list[str] | None:
        texts = [e["text"] for e in h.received("session/prompt")]
        return texts if len(texts) >= count else None

    texts = await eventually(lambda: prompts(2), timeout=15)
    assert texts[0] == "permission" and note in texts[1]
    await h.reply(lambda text: note in text)

    # In a task: the task ends as it would, then its conversation's session gets the note.
    await h.task("t-note", "permission")
    spec = await h.interaction("t-note")
    await h.app.ok("interaction.respond", {"interactionId": spec["id"],
                                           "response": {"optionId": "allow_once", "comment": "And tell me the size."}})
    await h.ended("t-note", "succeeded")
    texts = await eventually(lambda: prompts(4), timeout=15)
    assert texts[2] == "permission" and "And tell me the size." in texts[3] and "Allow once" in texts[3]
