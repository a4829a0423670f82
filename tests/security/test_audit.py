"""The audit chain (docs/security.md): every stored event carries a SHA-256 chained to the previous one; `lineup db
verify` finds an edited, deleted or reordered row in a real database file and names the first bad sequence; `lineup
export` writes the log as JSON Lines with the chain, and a re-implementation written here from the documented formula
(chain[n] = sha256(chain[n-1] + "\\n" + the row as compact JSON), chain[0] = 64 zeros) checks it.
The chain's anchor (chain-anchor.json, written by the running hub) and a head kept elsewhere (`--anchor`) make the
newest events deleted noticed too; a hub restarted on a shortened log does not move its anchor back.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.security.conftest import PASSWORD
from tests.security.support import ServedHub, run_async
from tests.support.hubproc import pair_agent, run_cli
from tests.support.lap import LapClient
from tests.support.polling import eventually_sync as wait_until

GENESIS = "0" * 64
ANCHOR = "chain-anchor.json"  # beside the database: {"epoch", "sequence", "chain", "writtenAt"}
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
    paired = pair_agent(hub, owner["token"], "auditor")  # type: ignore[arg-type]  # a ServedHub; pair_agent reads only .base
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


def copy_of(recorded: Path, tmp_path: Path, anchor: bool = True) -> Path:
    """The database (and, unless told otherwise, the chain anchor beside it) copied into a new data folder."""
    target = tmp_path / "data"
    target.mkdir(mode=0o700)
    with sqlite3.connect(recorded / "lineup.db") as source, sqlite3.connect(target / "lineup.db") as copy:
        source.backup(copy)
    source.close()
    copy.close()
    if anchor:
        shutil.copy2(recorded / ANCHOR, target / ANCHOR)
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


def test_verify_notices_that_the_newest_events_were_deleted(recorded: Path, tmp_path: Path) -> None:
    """The shorter chain still holds by itself; the anchor the hub wrote outside the database names the head."""
    data = copy_of(recorded, tmp_path)
    anchor = json.loads((data / ANCHOR).read_text())
    with sqlite3.connect(data / "lineup.db") as conn:
        head = conn.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
        conn.execute("DELETE FROM events WHERE sequence > ?", (head - 3,))
    conn.close()
    assert anchor["sequence"] == head  # the hub anchored its last head on its clean shutdown
    result = verify(data)
    assert result.returncode == 1, result
    assert (f"the chain breaks at sequence {head - 2}: events after {head - 3} were removed (the anchor written at "
            f"{anchor['writtenAt']} names sequence {head})") in result.stderr, result.stderr


def test_export_is_json_lines_with_the_chain_and_checks_elsewhere(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    out = tmp_path / "log.jsonl"
    run_cli(data, "export", "--with-secrets", "-o", str(out))  # every link checkable: the secret hashes kept
    lines = out.read_text(encoding="utf-8").splitlines()
    with sqlite3.connect(data / "lineup.db") as conn:
        count, head_chain = conn.execute("SELECT COUNT(*), (SELECT chain FROM events ORDER BY sequence DESC LIMIT 1) "
                                         "FROM events").fetchone()
    conn.close()
    assert len(lines) == count and json.loads(lines[-1])["chain"] == head_chain
    assert check_export(lines) is None
    assert "«unicode»" in out.read_text(encoding="utf-8")  # text kept as stored, not escaped
    assert run_cli(data, "export", "--with-secrets").stdout.splitlines() == lines  # standard output, the same

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
    lines = run_cli(data, "export", "--with-secrets").stdout.splitlines()
    assert check_export(lines) == 7
    shutil.rmtree(data)


# ---- the anchor: the head kept outside the database ------------------------------------------------------------

def rechain_from(conn: sqlite3.Connection, k: int) -> None:
    """What a careful tamperer does after editing row k: recompute every chain value from k on (the formula)."""
    previous = conn.execute("SELECT chain FROM events WHERE sequence = ?", (k - 1,)).fetchone()[0]
    for row in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM events WHERE sequence >= ? ORDER BY sequence",
                            (k,)).fetchall():
        canonical = json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))
        previous = hashlib.sha256(f"{previous}\n{canonical}".encode()).hexdigest()
        conn.execute("UPDATE events SET chain = ? WHERE sequence = ?", (previous, row[0]))


def db_head(data: Path) -> tuple[int, str]:
    conn = sqlite3.connect(f"file:{data / 'lineup.db'}?mode=ro", uri=True)
    try:
        return tuple(conn.execute("SELECT sequence, chain FROM events ORDER BY sequence DESC LIMIT 1").fetchone())
    finally:
        conn.close()


def anchored(data: Path) -> tuple[int, str] | None:
    try:
        anchor = json.loads((data / ANCHOR).read_text())
    except FileNotFoundError:
        return None
    return anchor["sequence"], anchor["chain"]


def test_a_log_rewritten_and_rechained_up_to_the_head_fails_against_the_anchor(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    with sqlite3.connect(data / "lineup.db") as conn:
        head = conn.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
        conn.execute("UPDATE events SET actor = 'user:usr_mallory' WHERE sequence = ?", (head - 2,))
        rechain_from(conn, head - 2)
    conn.close()
    result = verify(data)
    assert result.returncode == 1, result
    assert f"the chain breaks at sequence {head}: its chain value differs from the anchored one" in result.stderr
    # Without the anchor the rewritten chain holds by itself: the anchor is what tells.
    (data / ANCHOR).unlink()
    assert verify(data).returncode == 0


def test_the_running_hub_advances_the_anchor_and_a_crash_leaves_it_true(tmp_path: Path) -> None:
    hub = ServedHub(tmp_path / "hub", env={"LINEUP_CHAIN_ANCHOR_INTERVAL_S": "0.2"}, process=True).start()  # kill -9
    try:
        owner = httpx.post(f"{hub.base}/api/setup", json={"username": "ada", "displayName": "Ada",
                                                          "password": PASSWORD, "workspaceName": "Alpha"}).json()
        first = wait_until(lambda: anchored(hub.data_dir) == db_head(hub.data_dir) and anchored(hub.data_dir))
        assert (hub.data_dir / ANCHOR).stat().st_mode & 0o777 == 0o600
        anchor = json.loads((hub.data_dir / ANCHOR).read_text())
        assert set(anchor) == {"epoch", "sequence", "chain", "writtenAt"}
        httpx.post(f"{hub.base}/api/pairing-codes", json={"name": "later"},
                   headers={"Authorization": f"Bearer {owner['token']}"}).raise_for_status()
        second = wait_until(lambda: anchored(hub.data_dir) == db_head(hub.data_dir) and anchored(hub.data_dir))
        assert second[0] > first[0]
        assert not list(hub.data_dir.glob(ANCHOR + ".*")), "a temporary file was left behind"
    finally:
        assert hub.proc is not None
        hub.proc.kill()  # kill -9: the anchor may lag the head, never lead it
        hub.proc.wait()
    result = verify(hub.data_dir)
    assert result.returncode == 0 and "anchor: sequence" in result.stdout, result


def test_verify_checks_a_head_kept_elsewhere(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path, anchor=False)  # even without the data folder's anchor
    printed = verify(data)
    assert printed.returncode == 0, printed
    head, chain = db_head(data)
    assert f"head: sequence {head}, chain {chain}" in printed.stdout
    kept = f"{head}:{chain}"

    right = run_cli(data, "db", "verify", "--anchor", kept, check=False)
    assert right.returncode == 0 and f"anchor: sequence {head} as given with --anchor" in right.stdout, right
    wrong = run_cli(data, "db", "verify", "--anchor", f"{head}:{'e' * 64}", check=False)
    assert wrong.returncode == 1 and f"the chain breaks at sequence {head}: its chain value differs" in wrong.stderr
    malformed = run_cli(data, "db", "verify", "--anchor", "twelve:abc", check=False)
    assert malformed.returncode == 2 and "SEQUENCE:CHAIN" in malformed.stderr, malformed

    with sqlite3.connect(data / "lineup.db") as conn:
        conn.execute("DELETE FROM events WHERE sequence > ?", (head - 1,))
    conn.close()
    assert verify(data).returncode == 0  # nothing in the data folder remembers the head ...
    removed = run_cli(data, "db", "verify", "--anchor", kept, check=False)
    assert removed.returncode == 1  # ... the head kept elsewhere does
    assert (f"the chain breaks at sequence {head}: events after {head - 1} were removed (the head given with "
            f"--anchor names sequence {head})") in removed.stderr, removed.stderr


def test_without_an_anchor_verify_passes_and_says_so(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path, anchor=False)
    result = verify(data)
    assert result.returncode == 0 and "note: no chain anchor at" in result.stdout, result


def test_an_anchor_of_another_log_or_unreadable_fails(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    with sqlite3.connect(data / "lineup.db") as conn:
        conn.execute("UPDATE meta SET value = 'f00d' WHERE key = 'epoch'")  # another database put in its place
    conn.close()
    result = verify(data)
    assert result.returncode == 1 and "belongs to another event log" in result.stderr, result
    (data / ANCHOR).write_text("{not json")
    result = verify(data)
    assert result.returncode == 1 and "cannot be read" in result.stderr, result


def test_rebuild_leaves_the_log_and_its_anchor_as_they_are(recorded: Path, tmp_path: Path) -> None:
    data = copy_of(recorded, tmp_path)
    before = (data / ANCHOR).read_bytes()
    run_cli(data, "db", "rebuild")
    assert (data / ANCHOR).read_bytes() == before
    result = verify(data)
    assert result.returncode == 0 and "anchor: sequence" in result.stdout, result


def test_a_hub_started_on_a_shortened_log_does_not_move_its_anchor_back(recorded: Path, tmp_path: Path) -> None:
    """Restarting the hub does not launder a truncation: the anchor stays until the person moves it away."""
    data = copy_of(recorded, tmp_path)
    before = (data / ANCHOR).read_bytes()
    with sqlite3.connect(data / "lineup.db") as conn:
        head = conn.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
        conn.execute("DELETE FROM events WHERE sequence > ?", (head - 3,))
    conn.close()
    hub = ServedHub(data, env={"LINEUP_CHAIN_ANCHOR_INTERVAL_S": "0.1"}).start()
    try:
        time.sleep(0.5)
        assert (data / ANCHOR).read_bytes() == before
        assert "does not match this database" in hub.log() and "move the anchor away" in hub.log()
        (data / ANCHOR).rename(tmp_path / "old-anchor.json")  # the person decides the shorter log is the one
        assert wait_until(lambda: anchored(data)) == db_head(data)
    finally:
        hub.stop()
    assert verify(data).returncode == 0
