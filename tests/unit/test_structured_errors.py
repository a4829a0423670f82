"""Errors are told apart by structured data, never by their wording: LapError/HubError `details` (the task's
`from`/`to` status on illegal_transition) and SQLite's own result code for a full disk."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import cast

import pytest

from hub.domain.tasks import check_transition
from hub.protocol.errors import LapError
from hub.sdk import HubError
from hub.store.writer import is_disk_full
from hub.web.errors import error_response


@pytest.mark.parametrize(("current", "target", "by"), [
    ("queued", "succeeded", "agent"),          # no such move
    ("succeeded", "running", "agent"),         # already finished
    ("running", "waiting_for_human", "agent"), # a move only the hub makes
])
def test_check_transition_says_from_and_to(current: str, target: str, by: str) -> None:
    with pytest.raises(LapError) as info:
        check_transition(current, target, by)
    assert info.value.details == {"from": current, "to": target}
    assert info.value.as_payload("e1")["details"] == {"from": current, "to": target}


def test_details_travel_in_the_payload_and_the_http_body_only_when_there_are_some() -> None:
    plain = LapError("not_found", "No task 'x'.")
    assert plain.details == {} and "details" not in plain.as_payload("e1")
    assert json.loads(cast(bytes, error_response(plain).body)) == {"error": {"code": "not_found", "message": "No task 'x'.",
                                                                "hint": plain.hint}}
    moved = LapError("illegal_transition", "The task is already failed.", details={"from": "failed", "to": None})
    assert moved.as_payload("e2") == {"id": "e2", "code": "illegal_transition", "message": moved.message,
                                      "hint": moved.hint, "details": {"from": "failed", "to": None}}
    response = error_response(moved)
    assert response.status_code == 409
    assert json.loads(cast(bytes, response.body))["error"]["details"] == {"from": "failed", "to": None}


def test_hub_error_keeps_the_details_of_the_payload() -> None:
    error = HubError.from_payload({"code": "illegal_transition", "message": "m", "hint": "h",
                                   "details": {"from": "running", "to": "running"}})
    assert (error.code, error.hint, error.details) == ("illegal_transition", "h", {"from": "running", "to": "running"})
    assert HubError.from_payload({"code": "internal", "message": "m"}).details == {}


def test_a_full_database_is_recognised_by_sqlites_code(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "full.db")
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.commit()
    conn.execute("PRAGMA max_page_count = 1")  # clamped to the current size: no page may be added
    with pytest.raises(sqlite3.OperationalError) as info:
        conn.execute("INSERT INTO t VALUES (?)", ("x" * 20_000,))
    conn.close()
    assert info.value.sqlite_errorcode == sqlite3.SQLITE_FULL
    assert is_disk_full(info.value)


def test_an_error_that_only_says_full_is_not_a_full_disk(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "queue.db")
    conn.execute("CREATE TABLE q (x INTEGER)")
    conn.execute("CREATE TRIGGER cap BEFORE INSERT ON q BEGIN SELECT RAISE(ABORT, 'the queue is full'); END")
    with pytest.raises(sqlite3.IntegrityError) as info:
        conn.execute("INSERT INTO q VALUES (1)")
    conn.close()
    assert "full" in str(info.value) and not is_disk_full(info.value)
    # Made in Python (no SQLite result code at all), whatever its text says.
    assert not is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert not is_disk_full(RuntimeError("the outbox is full"))
