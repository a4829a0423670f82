"""The replay of a loaded ACP session's history is recognised by the last reply the hub saw (replay.py)."""

from __future__ import annotations

import json
from pathlib import Path

import acp

from hub.acp.replay import REPLY_TAIL_CHARS, HistoryReplay
from hub.acp.sessions import SessionMap


def test_the_replay_ends_when_the_text_after_the_last_user_message_reaches_the_last_reply() -> None:
    replay = HistoryReplay("Second\nanswer, in full.")
    assert not replay.unfinished  # nothing replayed yet: nothing to wait for
    replay.feed(acp.update_user_message_text("first question"))
    assert replay.unfinished
    replay.feed(acp.update_agent_message_text("First answer."))
    replay.feed(acp.update_user_message_text("second question"))
    assert replay.unfinished and replay.since_user == ""
    replay.feed(acp.update_agent_message_text("Second "))
    assert replay.unfinished
    replay.feed(acp.update_agent_message_text("answer, in  full."))  # spaced differently from the stream
    assert replay.done.is_set() and not replay.unfinished


def test_without_a_last_reply_a_replay_is_not_waited_for() -> None:
    replay = HistoryReplay("")
    replay.feed(acp.update_user_message_text("a question"))
    assert replay.started and not replay.unfinished


def test_the_last_reply_is_kept_with_the_session_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "agent.acp-sessions.json"
    sessions = SessionMap(path)
    kept, own = sessions.get("c1"), sessions.get("task:t1")
    kept.acp_id, own.acp_id = "s1", "s2"
    sessions.remember_reply(kept, "x" * 2000 + "the end")
    sessions.remember_reply(own, "a task's own session is not kept")
    stored = json.loads(path.read_text())
    assert stored["replies"] == {"c1": ("x" * 2000 + "the end")[-REPLY_TAIL_CHARS:]}
    again = SessionMap(path)
    again.load()
    assert again.get("c1").last_reply.endswith("the end") and again.get("c1").acp_id == "s1"
