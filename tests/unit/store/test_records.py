"""The records the projection reads return (hub/store/queries/records.py) have the columns of their tables: a
renamed or added column fails here, not at run time; and a record read back holds what its row holds."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from hub.auth.secrets import token_hash
from hub.store import database
from hub.store.migrations import migrate
from hub.store.open_tasks import open_tasks
from hub.store.queries import (
    accounts,
    action_links,
    agents,
    conversations,
    interactions,
    notifications,
    relay,
    tasks,
    tools,
)
from hub.store.queries.accounts import CredentialOwner, DeviceOwner
from hub.store.queries.records import (
    ActionLinkRecord,
    AgentPresenceRecord,
    AgentRecord,
    ArtifactRecord,
    ChildTaskRecord,
    ConversationRecord,
    DeviceRecord,
    ExpiryRecord,
    InteractionRecord,
    LostTaskRecord,
    MessageRecord,
    MessageStateRecord,
    OpenTaskRecord,
    OutboxErrorRecord,
    OutboxLogRecord,
    OutboxRecord,
    PagedInteractionRecord,
    PairingCodeRecord,
    PendingCallRecord,
    QuestionCallRecord,
    RegistrationRecord,
    RelayOutboxRecord,
    RelayPersonRecord,
    RelayQuestionRecord,
    SignInLinkRecord,
    TaskKeyRecord,
    TaskQuestionRecord,
    TaskRecord,
    ToolCallRecord,
    ToolInstanceRecord,
    UserRecord,
    WorkspaceRecord,
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
    (UserRecord, "users", set()),
    (WorkspaceRecord, "workspaces", set()),
    (DeviceRecord, "devices", set()),
    (SignInLinkRecord, "sign_in_links", set()),
    (PairingCodeRecord, "pairing_codes", set()),
    (ToolInstanceRecord, "tool_instances", set()),
    (ToolCallRecord, "tool_calls", set()),
    (OutboxRecord, "notification_outbox", set()),
    (ActionLinkRecord, "action_links", set()),
    (RelayPersonRecord, "relay_people", set()),
    (RelayOutboxRecord, "relay_outbox", set()),
    (RelayQuestionRecord, "interactions", {"number", "question_status"}),  # relay_questions' number and status
]
# Records of a few columns of a row.
PARTS: list[tuple[type[msgspec.Struct], str]] = [
    (MessageStateRecord, "messages"),
    (AgentPresenceRecord, "agents"),
    (TaskKeyRecord, "tasks"),
    (LostTaskRecord, "tasks"),
    (ExpiryRecord, "interactions"),
    (PendingCallRecord, "tool_calls"),
    (RegistrationRecord, "tool_registrations"),
    (OutboxErrorRecord, "notification_outbox"),
    (OutboxLogRecord, "notification_outbox"),
    (OpenTaskRecord, "tasks"),
    (ChildTaskRecord, "tasks"),
    (TaskQuestionRecord, "interactions"),
]
# Records of a join: the tables it reads, and its fields that are a column under another name.
JOINS: list[tuple[type[msgspec.Struct], tuple[str, ...], set[str]]] = [
    (RelayQuestionRecord, ("interactions", "relay_questions"), {"question_status"}),  # relay_questions.status
    (QuestionCallRecord, ("tool_calls", "interactions"), {"call_event_id"}),  # tool_calls.id
    (DeviceOwner, ("devices", "users"), {"device_id"}),  # devices.id
    (CredentialOwner, ("credentials", "agents"), set()),
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


@pytest.mark.parametrize(("record", "tables", "renamed"), JOINS, ids=lambda v: getattr(v, "__name__", None))
def test_a_joined_record_names_only_columns_of_its_tables(fresh: sqlite3.Connection, record: type[msgspec.Struct],
                                                          tables: tuple[str, ...], renamed: set[str]) -> None:
    columns = set().union(*(_columns(fresh, table) for table in tables))
    assert set(record.__struct_fields__) - renamed <= columns


def _stored(conn: sqlite3.Connection, table: str) -> list[dict[str, object]]:
    rows = conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
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
            # The text is read from the message's last event; the row keeps '' (hub/store/projections.py).
            payload = json.loads(conn.execute("SELECT payload FROM events WHERE sequence = ?",
                                              (row["last_sequence"],)).fetchone()[0])
            assert row["content"] == "" and payload.get("content", "")
            assert message is not None and msgspec.structs.asdict(message) == {**row, "content": payload["content"]}
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


def test_the_records_of_people_and_their_access_hold_what_their_rows_hold(populated: tuple[Path, World]) -> None:
    db_path, world = populated
    conn = database.connect_sync(db_path)
    try:
        for row in _stored(conn, "users"):
            user = accounts.user_by_id(conn, str(row["id"]))
            assert user is not None and msgspec.structs.asdict(user) == row
            assert accounts.user_by_username(conn, str(row["username"])) == user
        owner = accounts.first_owner(conn)
        assert owner is not None and owner.id == world.user.id
        assert accounts.owner_of_workspace_named(conn, "Home") == owner
        for row in _stored(conn, "workspaces"):
            workspace = accounts.workspace_by_id(conn, str(row["id"]))
            assert workspace is not None and msgspec.structs.asdict(workspace) == row
        assert accounts.workspace_id_named_or_first(conn, None) == world.user.workspace_id
        assert accounts.workspace_id_named_or_first(conn, "Home") == world.user.workspace_id
        assert accounts.workspace_id_named_or_first(conn, "Elsewhere") is None
        devices = _stored(conn, "devices")
        assert [msgspec.structs.asdict(d) for d in accounts.devices_of_user(conn, world.user.workspace_id,
                                                                           world.user.id)] == devices
        for row in devices:
            device = accounts.device_in_workspace(conn, str(row["id"]), str(row["workspace_id"]))
            assert device is not None and msgspec.structs.asdict(device) == row
            assert accounts.device_owner(conn, str(row["token_hash"])) == DeviceOwner(
                str(row["id"]), str(row["user_id"]), str(row["workspace_id"]))
        for row in _stored(conn, "sign_in_links"):
            link = accounts.sign_in_link(conn, str(row["code_hash"]))
            assert link is not None and msgspec.structs.asdict(link) == row
        assert accounts.sign_in_link(conn, token_hash(world.link_code)) is not None
        for row in _stored(conn, "pairing_codes"):
            code = accounts.pairing_code(conn, str(row["code_hash"]))
            assert code is not None and msgspec.structs.asdict(code) == row
        assert accounts.credential_owner(conn, token_hash(world.credential)) == CredentialOwner(
            world.agent.id, world.agent.workspace_id)
    finally:
        conn.close()


def _insert(conn: sqlite3.Connection, table: str, **row: object) -> dict[str, object]:
    conn.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                 tuple(row.values()))
    return row


def test_the_bookkeeping_records_hold_what_their_rows_hold(fresh: sqlite3.Connection) -> None:
    """Tools, the notifier's outbox and links, the relay's tables: each read gives back the row it stored."""
    conn = fresh
    interaction = _insert(conn, "interactions", id="int_1", workspace_id="ws", task_id=None, conversation_id="c1",
                          agent_id="agt", type="approval", title="Deploy?", risk="high", spec='{"type":"approval"}',
                          status="pending", response=None, responded_by=None, responded_at=None, expires_at=None,
                          created_at="t0", last_sequence=3)
    instance = _insert(conn, "tool_instances", id="inst", workspace_id="ws", tool="canvas", state='{"n":1}',
                       status="open", created_by="agent:agt", created_at="t0", updated_at="t1", last_sequence=4)
    call = _insert(conn, "tool_calls", id="evt_call", workspace_id="ws", call_id="c-1", caller_kind="agent",
                   caller_id="agt", name="ask", action="yes_no", arguments="{}", target_kind="interaction",
                   target_id="int_1", instance_id=None, status="pending", result=None, error=None, created_at="t0",
                   completed_at=None, last_sequence=5)
    _insert(conn, "tool_registrations", owner_kind="app", owner_id="dev", workspace_id="ws", tools="[]",
            updated_at="t0")
    outbox = _insert(conn, "notification_outbox", id="out", channel="ntfy", kind="waiting_for_me", subject_key="k",
                     event_sequence=3, workspace_id="ws", notification='{"title":"Deploy?"}', status="pending",
                     attempts=1, next_attempt_at="t2", last_error="HTTP 500", created_at="t1", delivered_at=None)
    link = _insert(conn, "action_links", id="act", token_hash="h" * 64, workspace_id="ws", interaction_id="int_1",
                   response='{"optionId":"approve"}', expires_at="t9", created_at="t0", used_at=None)
    person = _insert(conn, "relay_people", uid="ada-im", cursor=7, synced_seq=2, conversation_id="c1",
                     next_question=2)
    sent = _insert(conn, "relay_outbox", id=1, person="ada-im", client_msg_no="lu1-1", payload="{}", red_dot=1,
                   no_persist=0, event_sequence=3, status="pending", message_id=None, message_seq=None, error=None,
                   created_at="t0", sent_at=None)
    _insert(conn, "relay_questions", person="ada-im", number=1, interaction_id="int_1", status="open")

    def held(record: msgspec.Struct | None) -> dict[str, object]:
        assert record is not None
        return msgspec.structs.asdict(record)

    assert held(tools.tool_instance(conn, "inst", "ws")) == instance
    assert held(tools.tool_call(conn, "evt_call", "ws")) == call
    assert held(tools.pending_call_for(conn, "ws", "c-1", "interaction", "int_1", None)) == call
    assert tools.pending_call_for(conn, "ws", "c-1", "interaction", "int_1", "evt_other") is None
    assert tools.pending_calls(conn) == [PendingCallRecord("evt_call", "ws", "interaction", "int_1", "ask", "agent", "agt", None)]
    assert tools.registrations_of_kind(conn, "ws", "app") == [RegistrationRecord("dev", "[]")]
    assert tools.pending_call_of_interaction(conn, "int_1", "ws") == QuestionCallRecord(
        "evt_call", "ask", "yes_no", '{"type":"approval"}', "pending", None)
    assert [held(r) for r in notifications.pending(conn, "ntfy")] == [outbox]
    assert notifications.last_error(conn, "ntfy", "ws") == OutboxErrorRecord("HTTP 500", "t1")
    assert [held(r) for r in notifications.recent(conn, "ntfy", "ws")] == [
        {k: outbox[k] for k in OutboxLogRecord.__struct_fields__}]
    assert held(action_links.by_token_hash(conn, "h" * 64)) == link
    assert held(relay.person_row(conn, "ada-im")) == person
    assert [held(r) for r in relay.people(conn)] == [person]
    assert [held(r) for r in relay.pending(conn, "ada-im")] == [sent]
    question = {**interaction, "number": 1, "question_status": "open"}
    assert [held(r) for r in relay.open_questions(conn, "ada-im", "ws")] == [question]
    assert held(relay.question(conn, "ada-im", "ws", 1)) == question
    assert relay.open_questions(conn, "ada-im", "other-ws") == []


def _task(conn: sqlite3.Connection, task_id: str, **fields: object) -> None:
    row: dict[str, object] = {
        "id": task_id, "workspace_id": "ws", "conversation_id": None, "parent_task_id": None, "agent_id": "agt",
        "title": f"Task {task_id}", "description": "", "status": "running", "progress": None, "summary": None,
        "error": None, "cancel_requested_at": None, "cancel_reason": None, "connection_lost_at": None,
        "created_by": "user:usr", "created_at": f"t-{task_id}", "updated_at": "t0", "last_sequence": 1,
        "checkpoints": "{}", **fields}
    _insert(conn, "tasks", **row)


def test_an_agents_open_tasks_are_read_into_the_welcomes_shape(fresh: sqlite3.Connection) -> None:
    conn = fresh
    _task(conn, "t1", conversation_id="c1", progress=40, summary="halfway", cancel_requested_at="t5",
          cancel_reason="not needed", checkpoints='{"fetched": {"at": "t3"}}')
    _task(conn, "t1a", parent_task_id="t1", status="succeeded")
    _task(conn, "t2", status="succeeded")  # ended
    _task(conn, "t3", created_by="agent:agt")  # its own
    _insert(conn, "interactions", id="int_1", workspace_id="ws", task_id="t1", conversation_id=None, agent_id="agt",
            type="approval", title="Deploy?", risk="low", spec="{}", status="resolved",
            response='{"optionId":"approve"}', responded_by='{"kind":"user","id":"usr"}', responded_at="t4",
            expires_at=None, created_at="t4", last_sequence=2)
    assert open_tasks(conn, "ws", "agt") == ([{
        "taskId": "t1", "conversationId": "c1", "title": "Task t1", "description": "", "status": "running",
        "progress": 40, "summary": "halfway", "cancelRequested": True, "cancelReason": "not needed",
        "checkpoints": {"fetched": {"at": "t3"}},
        "children": [{"taskId": "t1a", "title": "Task t1a", "status": "succeeded"}],
        "interactions": [{"interactionId": "int_1", "status": "resolved", "response": {"optionId": "approve"},
                          "respondedBy": {"kind": "user", "id": "usr"}}]}], False)
    assert open_tasks(conn, "ws", "agt_other") == ([], False)


@pytest.mark.parametrize("record", [r for r, _, _ in WHOLE_ROWS if any(f.endswith("_hash") for f in
                                                                        r.__struct_fields__)],
                         ids=lambda v: getattr(v, "__name__", None))
def test_a_record_holding_a_secrets_hash_leaves_it_out_of_its_repr(record: type[msgspec.Struct]) -> None:
    """A repr ends up in logs and tracebacks; a sqlite3.Row's showed no values at all."""
    values = {name: f"value-of-{name}" for name in record.__struct_fields__}
    shown = repr(record(**values)) + repr(list(record(**values).__rich_repr__()))
    for name, value in values.items():
        assert (value in shown) is not name.endswith("_hash"), name
