"""The records the projection reads return (hub/store/queries/records.py) have the columns of their tables: a
renamed or added column fails here, not at run time; and a record read back holds what its row holds."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from hub.store import database
from hub.store.migrations import migrate
from hub.store.queries import agents, conversations, interactions, tasks
from hub.store.queries.records import (
    AgentPresenceRecord,
    AgentRecord,
    ArtifactRecord,
    ConversationRecord,
    ExpiryRecord,
    InteractionRecord,
    LostTaskRecord,
    MessageRecord,
    MessageStateRecord,
    PagedInteractionRecord,
    TaskKeyRecord,
    TaskRecord,
)
from tests.unit.scenario import World

# Each record of a whole row, its table, and the fields it adds that are no column (computed by its query).
WHOLE_ROWS: list[tuple[type[msgspec.Struct], str, set[str]]] = [
    (TaskRecord, "tasks", set()),
    (InteractionRecord, "interactions", set()),
    (PagedInteractionRecord, "interactions", {"page_cursor"}),
    (ConversationRecord, "conversations", set()),
    (MessageRecord, "messages", set()),
    (ArtifactRecord, "artifacts", set()),
    (AgentRecord, "agents", set()),
]
# Records of a few columns of a row.
PARTS: list[tuple[type[msgspec.Struct], str]] = [
    (MessageStateRecord, "messages"),
    (AgentPresenceRecord, "agents"),
    (TaskKeyRecord, "tasks"),
    (LostTaskRecord, "tasks"),
    (ExpiryRecord, "interactions"),
]


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    conn = database.connect_sync(tmp_path / "fresh.db")
    migrate(conn)
    yield conn
    conn.close()


@pytest.mark.parametrize(("record", "table", "computed"), WHOLE_ROWS, ids=lambda v: getattr(v, "__name__", None))
def test_a_whole_row_record_has_every_column_of_its_table(fresh: sqlite3.Connection, record: type[msgspec.Struct],
                                                         table: str, computed: set[str]) -> None:
    assert set(record.__struct_fields__) == _columns(fresh, table) | computed


@pytest.mark.parametrize(("record", "table"), PARTS, ids=lambda v: getattr(v, "__name__", None))
def test_a_partial_record_names_only_columns_of_its_table(fresh: sqlite3.Connection, record: type[msgspec.Struct],
                                                          table: str) -> None:
    assert set(record.__struct_fields__) <= _columns(fresh, table)


def _stored(conn: sqlite3.Connection, table: str) -> list[dict[str, object]]:
    rows = conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()  # noqa: S608 - a name of this file
    assert rows, f"the scenario left no {table}"
    return [dict(row) for row in rows]


def test_records_read_back_hold_what_their_rows_hold(populated: tuple[Path, World]) -> None:
    db_path, world = populated
    conn = database.connect_sync(db_path)
    try:
        for row in _stored(conn, "tasks"):
            record = tasks.task(conn, str(row["id"]), str(row["workspace_id"]))
            assert record is not None and msgspec.structs.asdict(record) == row
        for row in _stored(conn, "artifacts"):
            of_task = tasks.artifacts(conn, str(row["task_id"]), str(row["workspace_id"]), 10)
            assert row in [msgspec.structs.asdict(artifact) for artifact in of_task]
        for row in _stored(conn, "interactions"):
            interaction = interactions.interaction(conn, str(row["id"]), str(row["workspace_id"]))
            assert interaction is not None and msgspec.structs.asdict(interaction) == row
        page = interactions.latest_interactions(conn, world.user.workspace_id, None)
        cursors = [r[0] for r in conn.execute("SELECT rowid FROM interactions ORDER BY rowid DESC")]
        assert [r.page_cursor for r in page] == cursors
        for row in _stored(conn, "conversations"):
            conversation = conversations.conversation(conn, str(row["id"]), str(row["workspace_id"]))
            assert conversation is not None and msgspec.structs.asdict(conversation) == row
        for row in _stored(conn, "messages"):
            message = conversations.message(conn, str(row["id"]), str(row["workspace_id"]))
            assert message is not None and msgspec.structs.asdict(message) == row
        for row in _stored(conn, "agents"):
            agent = agents.agent_by_id(conn, str(row["id"]))
            assert agent is not None and msgspec.structs.asdict(agent) == row
    finally:
        conn.close()


def test_a_conversations_members_are_its_decoded_agent_ids_not_a_test_on_the_text() -> None:
    """An agent whose id is part of a member's id (or of the JSON around it) is not a member."""
    record = ConversationRecord(id="c", workspace_id="w", title="t", agent_ids='["agt_12", "agt_7"]', created_by="u",
                                created_at="x", updated_at="x", last_sequence=1)
    assert record.members() == ["agt_12", "agt_7"]
    assert "agt_1" not in record.members() and "agt_1" in record.agent_ids  # the substring test let it in
    assert "agt_7" in record.members()
