"""`lineup db check` on a big log starts from the last sound check's checkpoint; `--full` still checks it all."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from click.testing import CliRunner

from hub.cli import main
from hub.store import chain, rebuild
from hub.store.rebuild import check, open_for_maintenance, read_checkpoint
from tests.unit.scenario import World


@pytest.fixture
def big(populated: tuple[Path, World], monkeypatch: pytest.MonkeyPatch) -> Iterator[sqlite3.Connection]:
    """The scenario's log, treated as one too big to check whole by default."""
    monkeypatch.setattr(rebuild, "FULL_CHECK_UP_TO", 0)
    conn = open_for_maintenance(populated[0])
    yield conn
    conn.close()


def checked_at(conn: sqlite3.Connection, sequence: int) -> None:
    """As if the last sound check had ended at `sequence`."""
    value = chain.previous_chain(conn, sequence)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (f"{sequence}:{value}", rebuild.CHECKPOINT_KEY))


def tamper(conn: sqlite3.Connection, sequence: int) -> None:
    """Change an event's payload and leave its chain value as it was."""
    conn.execute("UPDATE events SET payload = json_set(payload, '$.forged', 1) WHERE sequence = ?", (sequence,))


def test_a_sound_check_stores_the_head_as_its_checkpoint(big: sqlite3.Connection) -> None:
    report = check(big)
    assert report.ok, report.problems
    assert report.checked_from == 0 and not report.replayed  # the first check links the chain from the start
    head = big.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
    assert read_checkpoint(big) == (head, chain.previous_chain(big, head))
    again = check(big)
    assert again.ok and again.checked_from == head


def test_a_tampered_event_after_the_checkpoint_is_found_by_the_default_check(big: sqlite3.Connection) -> None:
    assert check(big).ok
    checked_at(big, 10)
    tamper(big, 15)
    problems = check(big).problems
    assert "the chain breaks at sequence 15: the row does not match its chain value (edited, or moved from " \
           "elsewhere)" in problems, problems
    assert cast(tuple[int, str], read_checkpoint(big))[0] == 10  # a failed check leaves the checkpoint where it was


def test_a_tampered_event_before_the_checkpoint_is_found_by_full(big: sqlite3.Connection) -> None:
    assert check(big).ok
    checked_at(big, 10)
    tamper(big, 5)
    assert check(big).ok  # the default check starts at the checkpoint: it cannot see this one
    full = check(big, full=True)
    assert full.replayed
    assert "the chain breaks at sequence 5: the row does not match its chain value (edited, or moved from " \
           "elsewhere)" in full.problems, full.problems


def test_a_rewritten_chain_before_the_checkpoint_is_found_by_the_default_check(big: sqlite3.Connection) -> None:
    assert check(big).ok
    checked_at(big, 10)
    tamper(big, 5)
    previous = chain.previous_chain(big, 4)  # the careful forger recomputes every chain value from the edit on
    for row in list(chain.rows(big, 4)):
        previous = chain.link(previous, tuple(row)[:-1])
        big.execute("UPDATE events SET chain = ? WHERE sequence = ?", (previous, row[0]))
    assert chain.verify(big) is None
    problems = check(big).problems
    assert any(p.startswith("the chain value of sequence 10 is not the one the last check found") for p in problems)


def test_events_removed_below_the_checkpoint_are_found(big: sqlite3.Connection) -> None:
    assert check(big).ok
    head = big.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
    big.execute("DELETE FROM event_recipients WHERE sequence >= ?", (head - 1,))
    big.execute("DELETE FROM events WHERE sequence >= ?", (head - 1,))
    problems = check(big).problems
    assert f"the last check saw sequence {head}, the log ends at {head - 2}: events were removed" in problems


def test_the_command_says_what_it_checked(populated: tuple[Path, World], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rebuild, "FULL_CHECK_UP_TO", 0)
    args = ["db", "check", "--data-dir", str(populated[0].parent)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert "checked from sequence 0 (the last sound check); the projections were not replayed" in first.output
    full = CliRunner().invoke(main, [*args, "--full"])
    assert full.exit_code == 0 and "projections match the log" in full.output, full.output
