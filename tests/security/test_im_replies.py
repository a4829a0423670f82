"""Issue 15 item 2: over the WuKongIM relay, IM text answers a question only when it is explicit.

A real hub process, a protocol-faithful fake WuKongIM (tests/support/fake_wukong.py) and a person on WuKongIM's
official SDK: ordinary sentences while a question is open reach the agent as chat (and the person is told how to
answer) instead of deciding; a high-risk approval needs "confirm N"; the same RE2 check as the app's answers
refuses a long non-matching text at once.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.integration.test_relay import Person, agent_in_conversation, connected, fakes, relay_hub, until
from tests.support.hubproc import HubProcess

__all__ = ["fakes"]  # the fixture, shared with tests/integration/test_relay.py

PHRASES = ["ok thanks, I will look later", "yes but not now", "No way… actually wait"]


def statuses(hub: HubProcess, token: str) -> dict[str, str]:
    rows = httpx.get(hub.base + "/api/interactions", headers={"Authorization": f"Bearer {token}"}).json()
    return {r["id"]: r["status"] for r in rows["interactions"]}


async def test_ordinary_sentences_are_chat_and_never_decide(hub_factory: Any, fakes: Any) -> None:
    fake = await fakes("compat")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        await agent.ok("interaction.requested", {"interaction": {
            "id": "deploy", "type": "approval", "title": "Deploy the fix?"}}, conversationId=conversation)
        await alice.text("#1 Deploy the fix?")
        for phrase in PHRASES:
            await alice.say(phrase)
            await agent.event("message.delivered", content=phrase)  # chat, as written
            assert statuses(hub, token)["deploy"] == "pending", phrase
        def reminders() -> list[str]:
            return [t for t in alice.texts() if "could not read that as an answer" in t]
        await until(lambda: len(reminders()) == 3, 10, "three reminders")
        assert len(reminders()) == 3 and all("Reply 1 or approve to approve" in t for t in reminders()), reminders()
        await alice.say("Approve")  # the option's exact word
        resolved = await agent.event("interaction.resolved", interactionId="deploy")
        assert resolved["payload"]["response"]["optionId"] == "approve"
        assert not any(f["type"] == "interaction.resolved" and f["payload"]["interactionId"] != "deploy"
                       for f in agent.frames)
    finally:
        await agent.close()
        await alice.close()


async def test_a_high_risk_approval_by_text_needs_confirm_n(hub_factory: Any, fakes: Any) -> None:
    fake = await fakes("compat")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        await agent.ok("interaction.requested", {"interaction": {
            "id": "drop", "type": "approval", "title": "Drop the old tables?", "risk": "high"}},
            conversationId=conversation)
        await agent.ok("interaction.requested", {"interaction": {
            "id": "region", "type": "choice", "title": "Which region?", "options": [
                {"id": "eu", "label": "Europe"}, {"id": "cn", "label": "China"}]}}, conversationId=conversation)
        await alice.text("#2 Which region?")
        await alice.say("confirm 1")  # nothing was chosen yet: a bare confirmation approves nothing
        assert "Nothing to confirm for #1" in await alice.text("Nothing to confirm")
        await alice.say("#1 approve")
        ask = await alice.text("is high risk")
        assert "reply “confirm 1” within 5 minutes" in ask and "确认 1" in ask
        assert statuses(hub, token)["drop"] == "pending"
        await alice.say("2 China")  # "N word": question 2, by its option's exact label
        assert (await agent.event("interaction.resolved", interactionId="region"))["payload"]["response"] == {
            "optionId": "cn"}
        assert statuses(hub, token)["drop"] == "pending"
        await alice.say("confirm 1")
        resolved = await agent.event("interaction.resolved", interactionId="drop")
        assert resolved["payload"]["outcome"] == "answered" and resolved["payload"]["response"]["optionId"] == "approve"
        await alice.say("confirm 1")  # once only
        await alice.text("#1 is already answered")
    finally:
        await agent.close()
        await alice.close()


async def test_a_text_answer_is_checked_by_the_same_linear_time_pattern_check(hub_factory: Any, fakes: Any) -> None:
    fake = await fakes("compat")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    try:
        await agent.ok("interaction.requested", {"interaction": {
            "id": "code", "type": "input", "title": "Which code?", "pattern": "(a+)+$"}}, conversationId=conversation)
        await alice.text("#1 Which code?")
        await alice.say("aaaa")  # without its number, free text is chat, not the answer
        await agent.event("message.delivered", content="aaaa")
        assert "“#1 your answer”" in await alice.text("could not read that as an answer")
        started = time.monotonic()
        await alice.say("#1 " + "a" * 5000 + "!")  # exponential for Python's re
        refusal = await alice.text("does not have the requested format")
        assert "(a+)+$" in refusal and time.monotonic() - started < 5
        assert httpx.get(hub.base + "/-/health", timeout=2).status_code == 200
        await alice.say("#1 aaa")
        resolved = await agent.event("interaction.resolved", interactionId="code")
        assert resolved["payload"]["response"]["text"] == "aaa"
    finally:
        await agent.close()
        await alice.close()
