"""The chain's anchor (hub/store/anchor.py): the file, parsing a kept head, checking a log against a head, and the
Hub writing it at start, when the head moved and at stop, from committed state only."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path
from typing import cast

import pytest

from hub.core import Hub
from hub.settings import load_settings
from hub.store import anchor as anchors
from hub.store.anchor import Anchor, AnchorError, check_head, head, parse_head, read_anchor, write_anchor
from hub.store.chain import GENESIS
from tests.unit.scenario import append


def test_the_file_is_written_whole_and_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / anchors.ANCHOR_FILE
    path.write_text("old")
    os.chmod(path, 0o644)
    write_anchor(tmp_path, Anchor("e1", 7, "a" * 64, "2026-01-01T00:00:00.000Z"))
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text()) == {"epoch": "e1", "sequence": 7, "chain": "a" * 64,
                                            "writtenAt": "2026-01-01T00:00:00.000Z"}
    assert read_anchor(tmp_path) == Anchor("e1", 7, "a" * 64, "2026-01-01T00:00:00.000Z")
    assert sorted(p.name for p in tmp_path.iterdir()) == [anchors.ANCHOR_FILE]


def test_a_missing_anchor_is_none_and_a_damaged_one_an_error(tmp_path: Path) -> None:
    assert read_anchor(tmp_path) is None
    for text in ("{", "[]", '{"epoch": "e", "sequence": 1}', '{"epoch": "e", "sequence": 1, "chain": "xyz"}',
                 '{"epoch": "e", "sequence": -1, "chain": "' + "a" * 64 + '"}'):
        (tmp_path / anchors.ANCHOR_FILE).write_text(text)
        with pytest.raises(AnchorError):
            read_anchor(tmp_path)


def test_a_kept_head_is_sequence_colon_chain() -> None:
    assert parse_head(f"12:{'AB' * 32}") == (12, "ab" * 32)
    for text in ("12", f"x:{'a' * 64}", f"-1:{'a' * 64}", "3:abc", f"3:{'g' * 64}"):
        with pytest.raises(AnchorError):
            parse_head(text)


async def test_the_hub_anchors_at_start_when_the_head_moves_and_at_stop(tmp_path: Path) -> None:
    data = tmp_path / "data"
    hub = Hub(load_settings({"data_dir": data, "chain_anchor_interval_s": 0.05}, environ={}))
    await hub.start()
    try:
        assert read_anchor(data) is None  # an empty log: nothing to anchor yet
        await hub.execute(append("a"))
        await hub.execute(append("b"))
        for _ in range(100):
            found = read_anchor(data)
            if found is not None and found.sequence == 2:
                break
            await asyncio.sleep(0.02)
        assert found is not None and (found.epoch, found.sequence) == (hub.epoch, 2)
        assert found.chain == await hub.read(lambda c: c.execute("SELECT chain FROM events WHERE sequence = 2"
                                                                 ).fetchone()[0])
    finally:
        await hub.stop()

    quiet = Hub(load_settings({"data_dir": data, "chain_anchor_interval_s": 0}, environ={}))  # only start and stop
    await quiet.start()
    await quiet.execute(append("c"))
    assert cast(anchors.Anchor, read_anchor(data)).sequence == 2
    await quiet.stop()
    assert cast(anchors.Anchor, read_anchor(data)).sequence == 3


def test_a_log_is_checked_against_a_head(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE events (sequence INTEGER PRIMARY KEY, chain TEXT)")
    assert head(conn) == (0, GENESIS) and check_head(conn, 0, GENESIS) is None
    conn.executemany("INSERT INTO events VALUES (?, ?)", [(1, "1" * 64), (2, "2" * 64), (3, "3" * 64)])
    assert head(conn) == (3, "3" * 64)
    assert check_head(conn, 2, "2" * 64) is None and check_head(conn, 3, "3" * 64) is None
    assert check_head(conn, 5, "5" * 64) == (4, "events after 3 were removed")
    assert cast(tuple[int, str], check_head(conn, 2, "f" * 64))[0] == 2
    conn.close()
