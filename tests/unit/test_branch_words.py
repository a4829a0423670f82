"""A new worktree's branch is named by the message's whole words (hub/sessions/starting.py branch_words), as the app
shows it before Start (ui/lib/sessions.js autoBranch): never a word cut in two at the 40-character limit."""

from __future__ import annotations

from hub.sessions.starting import branch_from, branch_words


def test_the_branch_is_cut_between_words() -> None:
    assert branch_words("Refactor the authentication middleware so that sessions expire") \
        == "refactor-the-authentication-middleware"
    assert branch_words("Fix the login redirect") == "fix-the-login-redirect"
    assert branch_words("a" * 40 + " bc") == "a" * 40  # the limit falls at a word's end
    assert branch_words("x" * 50) == "x" * 40  # one word longer than the limit is cut at it
    assert branch_words("!!!") == "session"
    assert branch_from("Fix the login redirect", {"lineup/fix-the-login-redirect"}) == "lineup/fix-the-login-redirect-2"
