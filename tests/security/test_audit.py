"""The audit chain (issue 10): every stored event carries a SHA-256 chained to the previous one; `lineup db verify`
finds an edited, deleted or reordered row in a real database file and names the first bad sequence; `lineup export`
writes the log as JSON Lines with the chain, and a re-implementation written here from the documented formula
(chain[n] = sha256(chain[n-1] + "\\n" + the row as compact JSON), chain[0] = 64 zeros) checks it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx
import pytest

from tests.security.conftest import PASSWORD
from tests.security.support import ServedHub, run_async
from tests.support.hubproc import pair_agent, run_cli
from tests.support.lap import LapClient

GENESIS = "0" * 64
# The exported columns, in order: written down here from docs, not imported from the hub.
COLUMNS = ["sequence", "id", "type", "workspace_id", "conversation_id", "task_id", "correlation_id", "actor",
           "occurred_at", "recorded_at", "payload"]


def check_export(lines: list[str]) -> int | None:
    """The first sequence whose record does not follow from the one before, or None when all do."""
    previous = GENESIS
    for number, line in enumerate(lines, start=1):
        record = json.loads(line)
        if list(record) != COLUMNS + ["chain"] or record["sequence"] != number:
            return number
        canonical = json.dumps([record[c] for c in COLUMNS], ensure_ascii=False, separators=(",", ":"))
        if hashlib.sha256(f"{previous}\n{canonical}".encode()).hexdigest() != record["chain"]:
            return number
        previous = record["chain"]
    return None


async def some_history(hub: ServedHub) -> None:
    async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
        owner = (await http.post("/api/setup", json={"username": "ada", "displayName": "Ada", "password": PASSWORD,
                                                     "workspaceName": "Alpha"})).json()
    paired = pair_agent(hub, owner["token"], "auditor")  # type: ignore[arg-type]
    app = await LapClient.connect(hub.ws_base, "app", owner["token"])
    agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
    try:
        await app.ok("conversation.create", {"title": "Audit ✓ «unicode»", "agentIds": [paired["agentId"]]},
                     conversationId="c1")
        for n in range(3):
            await app.ok("task.create", {"title": f"Task {n}"}, conversationId="c1", taskId=f"t{n}")
            await agent.ok("task.accepted", {}, taskId=f"t{n}")
            await agent.ok("interaction.requested", {"interaction": {"id": f"q{n}", "type": "approval",
                                                                     "title": f"Decide {n}"}}, taskId=f"t{n}")
            await app.ok("interaction.respond", {"interactionId": f"q{n}", "response": {"optionId": "approve"}})
            await agent.ok("task.status_changed", {"status": "succeeded", "summary": "done"}, taskId=f"t{n}")
    finally:
        await app.close()
        await agent.close()
    hub.token("Other")  # the CLI writes too, beside the running hub


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The data folder of a hub that ran a little history and was stopped."""
    hub = ServedHub(tmp_path_factory.mktemp("audit") / "hub").start()
    try:
        run_async(lambda: some_history(hub))
    finally:
        hub.stop()
    yield hub.data_dir


def copy_of(recorded: Path, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    target.mkdir()
    with sqlite3.connect(recorded / "lineup.db") as source, sqlite3.connect(target / "lineup.db") as copy:
        source.backup(copy)
    source.close()
    copy.close()
    return target


def verify(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(data_dir, "db", "verify", check=False)


def test_every_event_carries_its_link_and_the_chain_holds(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    with sqlite3.connect(data / "lineup.db") as conn:
        count, unchained = conn.execute("SELECT COUNT(*), SUM(chain IS NULL OR length(chain) != 64) FROM events"
                                        ).fetchone()
    conn.close()
    assert count >= 30 and unchained == 0
    result = verify(data)
    assert result.returncode == 0 and f"all {count} events" in result.stdout, result


def tamper_cases() -> dict[str, tuple[Callable[[sqlite3.Connection, int], Any], Callable[[int], int]]]:
    """name -> (what the tamperer does around row k, the sequence verify must name)."""
    def edit_payload(c: sqlite3.Connection, k: int) -> None:
        payload = json.loads(c.execute("SELECT payload FROM events WHERE sequence = ?", (k,)).fetchone()[0])
        payload["tampered"] = True
        c.execute("UPDATE events SET payload = ? WHERE sequence = ?", (json.dumps(payload), k))

    def edit_and_fix_own_chain(c: sqlite3.Connection, k: int) -> None:
        edit_payload(c, k)
        row = c.execute("SELECT sequence, id, type, workspace_id, conversation_id, task_id, correlation_id, actor, "
                        "occurred_at, recorded_at, payload FROM events WHERE sequence = ?", (k,)).fetchone()
        previous = c.execute("SELECT chain FROM events WHERE sequence = ?", (k - 1,)).fetchone()[0]
        canonical = json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))
        c.execute("UPDATE events SET chain = ? WHERE sequence = ?",
                  (hashlib.sha256(f"{previous}\n{canonical}".encode()).hexdigest(), k))

    def swap(c: sqlite3.Connection, k: int) -> None:
        c.execute("UPDATE events SET sequence = -1 WHERE sequence = ?", (k,))
        c.execute("UPDATE events SET sequence = ? WHERE sequence = ?", (k, k + 1))
        c.execute("UPDATE events SET sequence = ? WHERE sequence = -1", (k + 1,))

    def renumber_after_delete(c: sqlite3.Connection, k: int) -> None:
        c.execute("DELETE FROM events WHERE sequence = ?", (k,))
        for (sequence,) in c.execute("SELECT sequence FROM events WHERE sequence > ? ORDER BY sequence", (k,)
                                     ).fetchall():
            c.execute("UPDATE events SET sequence = ? WHERE sequence = ?", (sequence - 1, sequence))

    return {
        "a payload edited": (edit_payload, lambda k: k),
        "the type edited": (lambda c, k: c.execute("UPDATE events SET type = 'task.cancelled' WHERE sequence = ?",
                                                   (k,)), lambda k: k),
        "the actor edited": (lambda c, k: c.execute("UPDATE events SET actor = 'user:usr_mallory' WHERE sequence = ?",
                                                    (k,)), lambda k: k),
        "the time edited": (lambda c, k: c.execute("UPDATE events SET recorded_at = '2000-01-01T00:00:00Z' "
                                                   "WHERE sequence = ?", (k,)), lambda k: k),
        "the chain value edited": (lambda c, k: c.execute("UPDATE events SET chain = ? WHERE sequence = ?",
                                                          ("f" * 64, k)), lambda k: k),
        # The next row's link no longer follows: that is the first place the chain breaks.
        "edited with its own chain value recomputed": (edit_and_fix_own_chain, lambda k: k + 1),
        "a row deleted": (lambda c, k: c.execute("DELETE FROM events WHERE sequence = ?", (k,)), lambda k: k),
        "a row deleted and the rest renumbered": (renumber_after_delete, lambda k: k),
        "two rows swapped": (swap, lambda k: k),
        "the first row edited": (lambda c, k: edit_payload(c, 1), lambda k: 1),
    }


@pytest.mark.parametrize("case", list(tamper_cases()))
def test_verify_names_the_first_bad_sequence(case: str, recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    tamper, first_bad = tamper_cases()[case]
    with sqlite3.connect(data / "lineup.db") as conn:
        k = conn.execute("SELECT MAX(sequence) FROM events").fetchone()[0] // 2
        tamper(conn, k)
    conn.close()
    expected = first_bad(k)
    result = verify(data)
    assert result.returncode == 1, (case, result.stdout, result.stderr)
    assert f"the chain breaks at sequence {expected}:" in result.stderr, (case, expected, result.stderr)


@pytest.mark.xfail(strict=True, reason="design gap, reported: nothing outside the database remembers the head of the "
                                       "chain, so deleting the newest events leaves a shorter chain that still holds "
                                       "(an exported or published head would reveal it)")
def test_verify_notices_that_the_newest_events_were_deleted(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    with sqlite3.connect(data / "lineup.db") as conn:
        head = conn.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
        conn.execute("DELETE FROM events WHERE sequence > ?", (head - 3,))
    conn.close()
    assert verify(data).returncode == 1


def test_export_is_json_lines_with_the_chain_and_checks_elsewhere(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    out = tmp_path / "log.jsonl"
    run_cli(data, "export", "-o", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    with sqlite3.connect(data / "lineup.db") as conn:
        count, head_chain = conn.execute("SELECT COUNT(*), (SELECT chain FROM events ORDER BY sequence DESC LIMIT 1) "
                                         "FROM events").fetchone()
    conn.close()
    assert len(lines) == count and json.loads(lines[-1])["chain"] == head_chain
    assert check_export(lines) is None
    assert "«unicode»" in out.read_text(encoding="utf-8")  # text kept as stored, not escaped
    assert run_cli(data, "export").stdout.splitlines() == lines  # standard output, the same

    # The same check finds tampering in an exported copy, at the first bad line.
    k = len(lines) // 2
    edited = json.loads(lines[k - 1])
    edited["payload"] = edited["payload"].replace("}", ', "x": 1}', 1)
    assert check_export(lines[:k - 1] + [json.dumps(edited, ensure_ascii=False)] + lines[k:]) == k
    assert check_export(lines[:k - 1] + lines[k:]) == k
    assert check_export(lines[:k - 1] + [lines[k], lines[k - 1]] + lines[k + 1:]) == k


def test_a_database_that_fails_verify_still_exports_for_inspection(recorded: Path, tmp_path: Path) -> None:
    """An investigator exports a tampered database and sees where the chain breaks with their own tool."""
    data = copy_of(recorded, tmp_path)
    with sqlite3.connect(data / "lineup.db") as conn:
        conn.execute("UPDATE events SET actor = 'hub' WHERE sequence = 7")
    conn.close()
    lines = run_cli(data, "export").stdout.splitlines()
    assert check_export(lines) == 7
    shutil.rmtree(data)
