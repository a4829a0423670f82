"""The `lineup` command: db check / rebuild exit codes, token, pair, and settings errors as usage errors."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from hub.auth.secrets import token_hash
from hub.cli import main
from hub.store import database
from tests.unit.scenario import World


def lineup(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command line, as a person runs it next to the hub."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINEUP_")}
    return subprocess.run([sys.executable, "-m", "hub", *args, "--data-dir", str(data_dir)], capture_output=True,
                          text=True, timeout=60, env=env)


def test_db_check_exits_0_when_fine_and_1_on_a_breach_and_rebuild_repairs(populated: tuple[Path, World]) -> None:
    db_path, _ = populated
    data_dir = db_path.parent
    fine = lineup(data_dir, "db", "check")
    assert fine.returncode == 0, fine.stderr
    assert re.match(r"ok: \d+ events, head \d+, projections match the log", fine.stdout)

    conn = database.connect_sync(db_path)
    conn.execute("UPDATE tasks SET title = 'tampered' WHERE id = 't1'")
    conn.close()
    breach = lineup(data_dir, "db", "check")
    assert breach.returncode == 1
    assert "FAIL: projection tasks differs from a replay of the log" in breach.stderr

    rebuilt = lineup(data_dir, "db", "rebuild")
    assert rebuilt.returncode == 0 and rebuilt.stdout.startswith("rebuilt the projections from ")
    assert lineup(data_dir, "db", "check").returncode == 0


def test_db_check_reports_a_hole_through_click(populated: tuple[Path, World]) -> None:
    db_path, _ = populated
    conn = database.connect_sync(db_path)
    conn.execute("DELETE FROM events WHERE sequence = 3")
    conn.close()
    result = CliRunner().invoke(main, ["db", "check", "--data-dir", str(db_path.parent)])
    assert result.exit_code == 1
    assert "FAIL: the log has holes" in result.stderr


def test_db_check_without_a_database_says_where_it_looked(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["db", "check", "--data-dir", str(tmp_path)])
    assert result.exit_code != 0 and "no database at" in str(result.exception or result.output)
    assert not (tmp_path / "lineup.db").exists()


def rows(db_path: Path, sql: str) -> list[sqlite3.Row]:
    conn = database.connect_sync(db_path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_token_creates_one_owner_and_a_device_per_call(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["token", "--data-dir", str(tmp_path)])
    second = runner.invoke(main, ["token", "--data-dir", str(tmp_path), "--name", "phone"])
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    tokens = [first.stdout.strip(), second.stdout.strip()]
    assert tokens[0] != tokens[1] and all(t.startswith("lu_dev_") for t in tokens)
    db_path = tmp_path / "lineup.db"
    assert [tuple(r) for r in rows(db_path, "SELECT username, role, password_hash FROM users")] == \
        [("owner", "owner", "!")]
    devices = rows(db_path, "SELECT name, token_hash FROM devices ORDER BY created_at, rowid")
    assert [d["name"] for d in devices] == ["cli token", "phone"]
    assert {d["token_hash"] for d in devices} == {token_hash(t) for t in tokens}  # hashes only, never the token
    other = runner.invoke(main, ["token", "--data-dir", str(tmp_path), "--workspace", "Team B"])
    assert other.exit_code == 0
    owners = rows(db_path, "SELECT u.username, w.name FROM users u JOIN workspaces w ON w.id = u.workspace_id "
                           "ORDER BY w.name")
    assert [w for _, w in owners] == ["My workspace", "Team B"]
    assert owners[1][0].startswith("owner-")


def test_pair_prints_a_code_whose_hash_is_stored_and_cleans_up_its_device(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["pair", "--data-dir", str(tmp_path), "--name", "builder"])
    assert result.exit_code == 0, result.output
    code = result.stdout.strip()
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", code)
    assert "expires" in result.stderr
    db_path = tmp_path / "lineup.db"
    stored = rows(db_path, "SELECT code_hash, name, used_at FROM pairing_codes")
    assert [tuple(r) for r in stored] == [(token_hash(code), "builder", None)]
    devices = rows(db_path, "SELECT revoked_at FROM devices")
    assert len(devices) == 1 and devices[0]["revoked_at"] is not None


def test_a_bad_setting_is_a_usage_error_naming_its_source(tmp_path: Path) -> None:
    result = CliRunner(env={"LINEUP_PORT": "ninety"}).invoke(main, ["token", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "environment LINEUP_PORT" in result.output
    assert not (tmp_path / "lineup.db").exists()
