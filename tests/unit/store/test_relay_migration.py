"""The relay's tables are made by a migration (m009_relay_tables), no longer by the uplink on first
use. A database where the old uplink already made them (a real SQLite file, made the old way, with rows) migrates
cleanly: every row kept, the tables then exactly a new database's, and the relay's store works on them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.store import database, migrations
from hub.store.migrations import MIGRATIONS, migrate
from hub.store.queries import relay as store
from hub.store.writer import Tx

# hub/relay/store.py's SCHEMA as the uplink ran it, statement by statement, before m009 (commit fbe0e7b until this
# change): the tables an existing database has.
OLD_UPLINK_SCHEMA = """
CREATE TABLE IF NOT EXISTS relay_people (
    uid             TEXT PRIMARY KEY,      -- the person's WuKongIM uid
    cursor          INTEGER NOT NULL,      -- last event sequence turned into outbox rows for this person
    synced_seq      INTEGER NOT NULL DEFAULT 0,  -- channel messageSeq reconciled through /channel/messagesync
    conversation_id TEXT,                  -- where their plain text goes: the conversation they last heard from
    next_question   INTEGER NOT NULL DEFAULT 1   -- the #number the next question to them gets
);
CREATE TABLE IF NOT EXISTS relay_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,   -- send order
    person          TEXT NOT NULL,
    client_msg_no   TEXT NOT NULL UNIQUE,  -- WuKongIM's clientMsgNo: how an uncertain send is recognised later
    payload         TEXT NOT NULL,         -- the message payload (JSON object)
    red_dot         INTEGER NOT NULL,      -- counts as unread in IM clients (text yes, LineUp envelopes no)
    no_persist      INTEGER NOT NULL DEFAULT 0,  -- live only, not stored by WuKongIM (replays the app asked for)
    event_sequence  INTEGER,               -- the event it carries, if any
    status          TEXT NOT NULL DEFAULT 'pending',     -- pending | sent | failed
    message_id      TEXT, message_seq INTEGER, error TEXT,
    created_at      TEXT NOT NULL, sent_at TEXT
);
CREATE INDEX IF NOT EXISTS relay_outbox_pending ON relay_outbox (person, status, id);
CREATE TABLE IF NOT EXISTS relay_inbound (
    message_id      TEXT PRIMARY KEY,      -- WuKongIM's message id: each inbound message is handled once
    person          TEXT NOT NULL,
    message_seq     INTEGER,
    handled_at      TEXT NOT NULL,
    outcome         TEXT                   -- what became of it (ack, error code, answer, chat, ignored)
);
CREATE TABLE IF NOT EXISTS relay_questions (
    person          TEXT NOT NULL,
    number          INTEGER NOT NULL,      -- the #number shown in the text fallback
    interaction_id  TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'open',   -- open | closed
    PRIMARY KEY (person, number), UNIQUE (person, interaction_id)
);
CREATE TABLE IF NOT EXISTS relay_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
RELAY_TABLES = ("relay_people", "relay_outbox", "relay_inbound", "relay_questions", "relay_state")


def shape(conn: sqlite3.Connection) -> dict[str, object]:
    """The relay tables as SQLite sees them: columns (name, type, not null, default, key) and indexes."""
    found: dict[str, object] = {}
    for table in RELAY_TABLES:
        indexes = [(row[1], row[2], [c[2] for c in conn.execute(f"PRAGMA index_info({row[1]})")])
                   for row in conn.execute(f"PRAGMA index_list({table})")]
        found[table] = ([tuple(row) for row in conn.execute(f"PRAGMA table_xinfo({table})")], sorted(indexes))
    return found


def rows(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    # The table names are this file's own constants.
    return {table: [tuple(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
            for table in RELAY_TABLES}


@pytest.fixture
def old_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A database file of the hub before m009, after its uplink ran: its tables made the old way, with rows."""
    path = tmp_path / "old.db"
    conn = database.connect_sync(path)
    try:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:MIGRATIONS.index(migrations.m009_relay_tables)])
        assert "m009_relay_tables" not in migrate(conn)
        monkeypatch.undo()
        for statement in OLD_UPLINK_SCHEMA.split(";"):  # as the old ensure_schema ran it
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO relay_people (uid, cursor, synced_seq, conversation_id, next_question) "
                     "VALUES ('ada-im', 41, 7, 'conv_1', 3)")
        conn.execute("INSERT INTO relay_outbox (person, client_msg_no, payload, red_dot, event_sequence, created_at) "
                     "VALUES ('ada-im', 'lu1-41', '{\"type\":1}', 1, 41, '2026-11-30T07:00:00.000Z')")
        conn.execute("INSERT INTO relay_inbound (message_id, person, message_seq, handled_at, outcome) "
                     "VALUES ('m-9', 'ada-im', 7, '2026-11-30T07:00:01.000Z', 'answer')")
        conn.execute("INSERT INTO relay_questions (person, number, interaction_id) VALUES ('ada-im', 2, 'int_1')")
        conn.execute("INSERT INTO relay_state (key, value) VALUES ('hub_token', 'kept-token')")
        conn.commit()
    finally:
        conn.close()
    return path


def test_a_database_whose_uplink_made_the_tables_migrates_and_keeps_every_row(old_database: Path,
                                                                               tmp_path: Path) -> None:
    conn = database.connect_sync(old_database)
    fresh = database.connect_sync(tmp_path / "fresh.db")
    try:
        before = rows(conn)
        assert all(before.values())
        names = [m.__name__ for m in MIGRATIONS]
        assert migrate(conn) == names[names.index("m009_relay_tables"):]  # m009 and every later one
        assert migrate(conn) == []
        assert rows(conn) == before  # nothing lost, nothing added
        migrate(fresh)
        assert shape(conn) == shape(fresh)  # the same tables a new database gets
        # The relay's store works on them as before: the kept token, the pending row, a new row after it.
        assert store.get_state(conn, "hub_token") == "kept-token"
        assert [r.client_msg_no for r in store.pending(conn, "ada-im")] == ["lu1-41"]
        conn.execute("BEGIN IMMEDIATE")
        tx = Tx(conn, 1, "2026-12-01T07:00:00.000Z", prev_chain="")  # what the writer hands a command
        store.enqueue(tx, "ada-im", "lu1-42", {"type": 1}, red_dot=False, event_sequence=42)
        assert store.open_question(tx, "ada-im", "int_2") == 3  # numbering continues from the kept row
        conn.execute("COMMIT")
        assert [r.client_msg_no for r in store.pending(conn, "ada-im")] == ["lu1-41", "lu1-42"]
    finally:
        conn.close()
        fresh.close()


def test_a_new_database_has_the_relay_tables_before_any_uplink_runs(tmp_path: Path) -> None:
    conn = database.connect_sync(tmp_path / "new.db")
    try:
        assert not store.has_schema(conn)
        migrate(conn)
        assert store.has_schema(conn)
        assert store.get_state(conn, "status") is None  # readable at once: nothing made on first use any more
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert set(RELAY_TABLES) <= names
    finally:
        conn.close()


def test_the_relay_store_no_longer_makes_tables() -> None:
    source = (Path(store.__file__)).read_text(encoding="utf-8")
    assert "CREATE TABLE" not in source and "CREATE INDEX" not in source
    assert not hasattr(store, "ensure_schema")
