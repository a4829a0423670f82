"""The WuKongIM uplink's durable state: per-person cursors, the outbox, inbound message ids, questions, key/values."""
# These tables are the relay's own bookkeeping, not projections of the log: a migration makes them
# (hub/store/migrations.py, m009_relay_tables) and every write goes through the hub's one writer, in the same
# transaction as whatever it accounts for (a projection's cursor stored with its state:
# docs/style.md#the-log-and-its-projections). Writes take the writer's Tx; reads take whichever connection the
# caller reads on (the hub's read connection, the writer's inside a command, or `lineup relay status`'s read-only
# one).

from __future__ import annotations

import json
import sqlite3
from typing import Any

from hub.protocol.envelope import now_iso
from hub.store.queries.records import (
    InteractionRecord,
    RelayOutboxRecord,
    RelayPersonRecord,
    RelayQuestionRecord,
    fetch_all,
    fetch_one,
    select_list,
)
from hub.store.writer import Tx

_PEOPLE = f"SELECT {select_list(RelayPersonRecord)} FROM relay_people"
# A person's questions (q) with their interactions (i), in RelayQuestionRecord's order: `workspace_id` is the
# person's, since interaction ids are unique within a workspace only.
_QUESTIONS = (f"SELECT {select_list(InteractionRecord, 'i')}, q.number, q.status AS question_status "
              "FROM relay_questions q JOIN interactions i ON i.id = q.interaction_id AND i.workspace_id = ?")


def has_schema(conn: sqlite3.Connection) -> bool:
    """Whether the relay's tables are there."""
    # A running hub's database always has them (it migrates at start); one that `lineup relay status` reads
    # read-only may not have been opened by this version of the hub yet.
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'relay_outbox'").fetchone() is not None


# ---- people ----------------------------------------------------------------------------------------------

def ensure_person(tx: Tx, uid: str, head: int, synced_seq: int) -> None:
    """Give a person new to the relay their row, starting at the head of the log."""
    # The head, not 0: a person is not sent the whole history when they are added.
    tx.conn.execute("INSERT OR IGNORE INTO relay_people (uid, cursor, synced_seq) VALUES (?, ?, ?)",
                    (uid, head, synced_seq))


def person_row(conn: sqlite3.Connection, uid: str) -> RelayPersonRecord | None:
    """The relay_people row of this uid."""
    return fetch_one(conn, RelayPersonRecord, f"{_PEOPLE} WHERE uid = ?", (uid,))


def people(conn: sqlite3.Connection) -> list[RelayPersonRecord]:
    """Every relay_people row, by uid."""
    return fetch_all(conn, RelayPersonRecord, f"{_PEOPLE} ORDER BY uid")


def set_cursor(tx: Tx, uid: str, sequence: int) -> None:
    """Record the last event sequence turned into outbox rows for this person."""
    tx.conn.execute("UPDATE relay_people SET cursor = ? WHERE uid = ?", (sequence, uid))


def set_synced(tx: Tx, uid: str, message_seq: int) -> None:
    """Move the person's reconciled channel messageSeq forward (never back)."""
    tx.conn.execute("UPDATE relay_people SET synced_seq = MAX(synced_seq, ?) WHERE uid = ?", (message_seq, uid))


def set_baseline(tx: Tx, uid: str, message_seq: int) -> None:
    """Set the person's reconciled channel messageSeq outright: the channel's end at first contact."""
    # Outright, not set_synced's MAX: until now the row held the uplink's UNBASELINED marker, not a messageSeq.
    tx.conn.execute("UPDATE relay_people SET synced_seq = ? WHERE uid = ?", (message_seq, uid))


def set_conversation(tx: Tx, uid: str, conversation_id: str) -> None:
    """Record the conversation the person last heard from: where their plain text goes."""
    tx.conn.execute("UPDATE relay_people SET conversation_id = ? WHERE uid = ?", (conversation_id, uid))


# ---- outbox --------------------------------------------------------------------------------------------

def enqueue(tx: Tx, person: str, client_msg_no: str, payload: dict[str, Any], *, red_dot: bool,
            event_sequence: int | None = None, no_persist: bool = False) -> None:
    """Queue one message for a person, unless its client_msg_no is queued already."""
    # INSERT OR IGNORE on the unique client_msg_no: re-deriving a message (after a restart) never doubles it.
    tx.conn.execute(
        "INSERT OR IGNORE INTO relay_outbox (person, client_msg_no, payload, red_dot, no_persist, event_sequence, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (person, client_msg_no, json.dumps(payload, ensure_ascii=False), int(red_dot), int(no_persist),
         event_sequence, now_iso()))


def pending(conn: sqlite3.Connection, person: str, limit: int = 100) -> list[RelayOutboxRecord]:
    """A person's pending relay_outbox rows in send order, `limit` of them."""
    return fetch_all(conn, RelayOutboxRecord, f"SELECT {select_list(RelayOutboxRecord)} FROM relay_outbox "
                     "WHERE person = ? AND status = 'pending' ORDER BY id LIMIT ?", (person, limit))


def pending_count(conn: sqlite3.Connection) -> int:
    """How many relay_outbox rows wait to be sent, for everyone."""
    return int(conn.execute("SELECT COUNT(*) FROM relay_outbox WHERE status = 'pending'").fetchone()[0])


def failed_count(conn: sqlite3.Connection) -> int:
    """How many relay_outbox rows WuKongIM refused, for everyone."""
    return int(conn.execute("SELECT COUNT(*) FROM relay_outbox WHERE status = 'failed'").fetchone()[0])


def mark_sent(tx: Tx, row_id: int, message_id: str, message_seq: int) -> None:
    """Record WuKongIM's acknowledgement of a pending outbox row."""
    tx.conn.execute("UPDATE relay_outbox SET status = 'sent', message_id = ?, message_seq = ?, sent_at = ? "
                    "WHERE id = ? AND status = 'pending'", (message_id, message_seq, now_iso(), row_id))


def mark_sent_by_client_no(tx: Tx, client_msg_no: str, message_id: str, message_seq: int) -> bool:
    """Record a pending send found on the channel (its acknowledgement was lost); False when none was pending."""
    cur = tx.conn.execute("UPDATE relay_outbox SET status = 'sent', message_id = ?, message_seq = ?, sent_at = ? "
                          "WHERE client_msg_no = ? AND status = 'pending'",
                          (message_id, message_seq, now_iso(), client_msg_no))
    return cur.rowcount > 0


def mark_failed(tx: Tx, row_id: int, error: str) -> None:
    """Record that WuKongIM refused an outbox row, and why: it is not sent again."""
    tx.conn.execute("UPDATE relay_outbox SET status = 'failed', error = ? WHERE id = ?", (error, row_id))


# ---- inbound -------------------------------------------------------------------------------------------

def seen(conn: sqlite3.Connection, message_id: str) -> bool:
    """Whether the WuKongIM message with this id was handled already."""
    return conn.execute("SELECT 1 FROM relay_inbound WHERE message_id = ?", (message_id,)).fetchone() is not None


def record_inbound(tx: Tx, message_id: str, person: str, message_seq: int, outcome: str) -> bool:
    """Remember a handled message; False when it was handled already (then nothing else is written)."""
    cur = tx.conn.execute("INSERT OR IGNORE INTO relay_inbound (message_id, person, message_seq, handled_at, outcome) "
                          "VALUES (?, ?, ?, ?, ?)", (message_id, person, message_seq, now_iso(), outcome))
    return cur.rowcount > 0


# ---- questions (the text fallback's numbered interactions) -------------------------------------------------

def open_question(tx: Tx, person: str, interaction_id: str) -> int:
    """The #number of an interaction for a person: the one it has, or the person's next one."""
    existing = tx.one("SELECT number FROM relay_questions WHERE person = ? AND interaction_id = ?", person,
                      interaction_id)
    if existing is not None:
        return int(existing[0])
    row = tx.one("SELECT next_question FROM relay_people WHERE uid = ?", person)
    assert row is not None  # every [relay] person has its row before a question can be numbered for them
    number = int(row[0])
    tx.conn.execute("INSERT INTO relay_questions (person, number, interaction_id) VALUES (?, ?, ?)",
                    (person, number, interaction_id))
    tx.conn.execute("UPDATE relay_people SET next_question = ? WHERE uid = ?", (number + 1, person))
    return number


def close_question(tx: Tx, person: str, interaction_id: str) -> int | None:
    """Close a person's question; its #number when it was open until now, else None."""
    row = tx.one("SELECT number, status FROM relay_questions WHERE person = ? AND interaction_id = ?", person,
                 interaction_id)
    if row is None:
        return None
    tx.conn.execute("UPDATE relay_questions SET status = 'closed' WHERE person = ? AND interaction_id = ?",
                    (person, interaction_id))
    return int(row[0]) if row[1] == "open" else None


def open_questions(conn: sqlite3.Connection, person: str, workspace_id: str) -> list[RelayQuestionRecord]:
    """The person's open questions whose interaction is still pending, oldest first."""
    return fetch_all(conn, RelayQuestionRecord, f"{_QUESTIONS} WHERE q.person = ? AND q.status = 'open' "
                     "AND i.status = 'pending' ORDER BY q.number", (workspace_id, person))


def question(conn: sqlite3.Connection, person: str, workspace_id: str, number: int) -> RelayQuestionRecord | None:
    """The person's question #number, open or closed (question_status), with its interaction."""
    return fetch_one(conn, RelayQuestionRecord, f"{_QUESTIONS} WHERE q.person = ? AND q.number = ?",
                     (workspace_id, person, number))


# ---- state ---------------------------------------------------------------------------------------------

def get_state(conn: sqlite3.Connection, key: str) -> str | None:
    """The relay_state value of a key, or None when it has none."""
    row = conn.execute("SELECT value FROM relay_state WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def set_state(tx: Tx, key: str, value: str) -> None:
    """Set one relay_state key, replacing its value."""
    tx.conn.execute("INSERT INTO relay_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
                    "excluded.value", (key, value))


def forget_relay_state(conn: sqlite3.Connection, key: str) -> None:
    """Delete one relay_state key (inside the writer's transaction)."""
    conn.execute("DELETE FROM relay_state WHERE key = ?", (key,))
