"""IM text replies (hub/relay/textreply.py, docs/security.md#im-text-replies-the-relay): only an explicit reply
answers a question."""

from __future__ import annotations

from typing import Any

import pytest

from hub.relay import textreply
from hub.relay.textreply import Form

APPROVAL = {"type": "approval", "title": "Deploy?", "options": [
    {"id": "approve", "label": "Approve", "style": "primary"}, {"id": "reject", "label": "Reject", "style": "danger"}]}
CHOICE = {"type": "choice", "title": "Which region?", "options": [
    {"id": "eu", "label": "Europe"}, {"id": "cn", "label": "China"}, {"id": "us", "label": "United States"}]}
MANY = {**CHOICE, "multiple": True}
REVIEW = {"type": "review", "title": "The plan", "content": "1. migrate"}
INPUT = {"type": "input", "title": "Name?"}

ANSWERS: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
    (APPROVAL, "1", {"optionId": "approve"}),
    (APPROVAL, "２", {"optionId": "reject"}),            # a full-width digit
    (APPROVAL, "approve", {"optionId": "approve"}),
    (APPROVAL, "APPROVE!", {"optionId": "approve"}),     # case and end punctuation do not matter
    (APPROVAL, "Reject", {"optionId": "reject"}),
    (APPROVAL, "同意。", {"optionId": "approve"}),
    (APPROVAL, "拒绝", {"optionId": "reject"}),
    (APPROVAL, "skip", {"declined": True}),
    (CHOICE, "2", {"optionId": "cn"}),
    (CHOICE, "china", {"optionId": "cn"}),
    (CHOICE, "United States", {"optionId": "us"}),
    (CHOICE, "eu", {"optionId": "eu"}),
    (MANY, "1, 3", {"optionIds": ["eu", "us"]}),
    (MANY, "1、2", {"optionIds": ["eu", "cn"]}),
    (REVIEW, "1", {"decision": "approve"}),
    (REVIEW, "修改", {"decision": "request_changes"}),
    (REVIEW, "request changes", {"decision": "request_changes"}),
    (INPUT, " Ada ", {"text": "Ada"}),
    (INPUT, "跳过", {"declined": True}),
]

NOT_ANSWERS: list[tuple[dict[str, Any], str, str]] = [
    # Three phrases once read as decisions: now none is an answer.
    (APPROVAL, "ok thanks, I will look later", "not_understood"),
    (APPROVAL, "yes but not now", "not_understood"),
    (APPROVAL, "No way… actually wait", "not_understood"),
    # Words that only sound like a decision, a decision word inside a sentence, words after an answer.
    (APPROVAL, "yes", "not_understood"),
    (APPROVAL, "ok", "not_understood"),
    (APPROVAL, "no", "not_understood"),
    (APPROVAL, "好", "not_understood"),
    (APPROVAL, "approve it later maybe", "not_understood"),
    (APPROVAL, "2 too risky", "not_understood"),
    (APPROVAL, "1 2", "not_understood"),                # two numbers for a single choice
    (APPROVAL, "3", "out_of_range"),
    (APPROVAL, "maybe later", "not_understood"),
    (APPROVAL, "   ", "empty"),
    (CHOICE, "Chinese food", "not_understood"),
    (MANY, "1, 1", "out_of_range"),
    (REVIEW, "looks fine to me", "not_understood"),
]


@pytest.mark.parametrize(("spec", "text", "response"), ANSWERS)
def test_explicit_replies_answer(spec: dict[str, Any], text: str, response: dict[str, Any]) -> None:
    assert textreply.parse(spec, text).response == response


@pytest.mark.parametrize(("spec", "text", "problem"), NOT_ANSWERS)
def test_everything_else_is_not_an_answer(spec: dict[str, Any], text: str, problem: str) -> None:
    reply = textreply.parse(spec, text)
    assert reply.response is None and reply.problem == problem, reply


@pytest.mark.parametrize(("text", "form"), [
    ("#2 approve", Form(number=2, rest="approve", explicit=True)),
    ("#2 1", Form(number=2, rest="1", explicit=True)),
    ("＃３：Ａｄａ", Form(number=3, rest="Ａｄａ", explicit=True)),   # an input's answer is kept as typed
    ("2 approve", Form(number=2, rest="approve")),                     # a reference only if "approve" answers #2
    ("3 apples please", Form(number=3, rest="apples please")),
    ("confirm 2", Form(confirm=2)),
    ("Confirm #2.", Form(confirm=2)),
    ("#2 confirm", Form(confirm=2)),
    ("确认 2", Form(confirm=2)),
    ("ok thanks, I will look later", Form(rest="ok thanks, I will look later")),
    ("1,3", Form(rest="1,3")),
    ("2 1", Form(rest="2 1")),  # numbers only: a multiple choice, never "question 2, option 1" (that takes #)
])
def test_the_shape_of_a_reply(text: str, form: Form) -> None:
    assert textreply.read(text) == form


def test_a_high_risk_approval_needs_a_confirmation_as_in_the_app() -> None:
    high = {**APPROVAL, "risk": "high"}
    assert textreply.needs_confirmation(high, {"optionId": "approve"})
    assert not textreply.needs_confirmation(high, {"optionId": "reject"})   # refusing needs no second step
    assert not textreply.needs_confirmation(high, {"declined": True})
    assert not textreply.needs_confirmation(APPROVAL, {"optionId": "approve"})
    custom = {**high, "options": [{"id": "ship", "label": "Ship"}, {"id": "stop", "label": "Stop", "style": "danger"}]}
    assert textreply.needs_confirmation(custom, {"optionId": "ship"})
    assert not textreply.needs_confirmation(custom, {"optionId": "stop"})
    assert "confirm 4" in textreply.ask_to_confirm(high, 4, "approve") and "确认 4" in textreply.ask_to_confirm(
        high, 4, "approve")


def test_the_question_says_exactly_what_to_reply() -> None:
    text = textreply.render_question(APPROVAL, 4, several_open=True)
    assert "#4 Deploy?" in text and "1. Approve" in text and "2. Reject" in text
    assert "#4 1 or #4 approve" in text.splitlines()[-1] and "#4 2 or #4 reject" in text.splitlines()[-1]
    assert "Reply 1 or approve" in textreply.how_to_answer(APPROVAL, 4, several_open=False)
    assert "“#5 your answer”" in textreply.how_to_answer(INPUT, 5, several_open=False)  # free text needs its number


def test_a_confirmation_waits_for_its_window_and_is_taken_once() -> None:
    from hub.relay.inbound import PendingConfirmations
    waiting = PendingConfirmations(window_s=60)
    waiting.ask("alice", 2, "int-2", {"optionId": "approve"})
    assert waiting.take("bob", 2, "int-2") is None                # another person's confirmation
    assert waiting.take("alice", 2, "int-9") is None               # #2 names another interaction now: dropped
    waiting.ask("alice", 2, "int-2", {"optionId": "approve"})
    assert waiting.take("alice", 2, "int-2") == {"optionId": "approve"}
    assert waiting.take("alice", 2, "int-2") is None               # once only
    expired = PendingConfirmations(window_s=0)
    expired.ask("alice", 2, "int-2", {"optionId": "approve"})
    assert expired.take("alice", 2, "int-2") is None
