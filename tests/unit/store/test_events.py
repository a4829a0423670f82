"""Stored events as frames: secrets stripped, the agent's view of a fact, paged reads after a sequence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

from hub.auth.secrets import token_hash
from hub.protocol.envelope import decode_envelope
from hub.protocol.errors import LapError
from hub.protocol.stored import AGENT_VIEW_TYPES
from hub.store import database
from hub.store.events import (
    PAGE_SIZE,
    StoredEvent,
    head_sequence,
    public_payload,
    read_agent_after,
    read_all,
    read_all_with_recipients,
    read_workspace_after,
)
from hub.store.writer import Command, Tx
from tests.unit.scenario import FAKE_PASSWORD_HASH, World, WriterRig


def event(type_: str, payload: dict[str, object], sequence: int = 7) -> StoredEvent:
    return StoredEvent(sequence, "evt-1", type_, "ws1", "c1", "t1", None, "hub", "2026-01-01T00:00:00.000Z",
                       "2026-01-01T00:00:00.000Z", payload)


def test_public_payload_strips_underscore_keys_without_touching_the_stored_payload() -> None:
    stored = {"userId": "u1", "_passwordHash": "scrypt$...", "_tokenHash": "abc", "name_with_underscore": 1}
    public = public_payload(stored)
    assert public == {"userId": "u1", "name_with_underscore": 1}
    assert "_passwordHash" in stored  # the projection still needs it
    clean = {"a": 1}
    assert public_payload(clean) is clean


def test_frames_never_carry_underscore_keys() -> None:
    ev = event("device.created", {"deviceId": "d1", "_tokenHash": "deadbeef"})
    for frame in (ev.app_frame(), ev.agent_frame()):
        assert b"_tokenHash" not in frame and b"deadbeef" not in frame
    assert "_tokenHash" not in ev.as_dict()["payload"]


def read_every_event(db_path: Path) -> list[StoredEvent]:
    conn = database.connect_sync(db_path)
    try:
        return read_all(conn)
    finally:
        conn.close()


def test_stored_user_created_frame_has_no_password_hash(populated: tuple[Path, World]) -> None:
    db_path, world = populated
    events = read_every_event(db_path)
    user_created = next(e for e in events if e.type == "user.created")
    assert user_created.payload["_passwordHash"] == FAKE_PASSWORD_HASH  # it is in the log ...
    for frame in (user_created.app_frame(), user_created.agent_frame(), msgspec.json.encode(user_created.as_dict())):
        assert b"SECRET-PASSWORD-HASH-MARKER" not in frame and b"passwordHash" not in frame  # ... never on the wire
    wire = msgspec.json.decode(user_created.app_frame())
    assert wire["payload"] == {"userId": world.user.id, "username": "ada", "displayName": "Ada", "role": "owner"}


def test_no_stored_event_leaks_a_secret_or_its_hash(populated: tuple[Path, World]) -> None:
    db_path, world = populated
    conn = database.connect_sync(db_path)
    try:
        secret_hashes = [row[0] for row in conn.execute(
            "SELECT token_hash FROM devices UNION ALL SELECT secret_hash FROM credentials "
            "UNION ALL SELECT code_hash FROM pairing_codes UNION ALL SELECT code_hash FROM sign_in_links "
            "UNION ALL SELECT password_hash FROM users")]
    finally:
        conn.close()
    assert {token_hash(world.credential), token_hash(world.link_code), FAKE_PASSWORD_HASH} <= set(secret_hashes)
    assert len(secret_hashes) == 6  # two devices, a credential, a pairing code, a sign-in link, a password
    for ev in read_every_event(db_path):
        for frame in (ev.app_frame(), ev.agent_frame()):
            assert world.credential.encode() not in frame and world.link_code.encode() not in frame
            assert not any(h.encode() in frame for h in secret_hashes), ev.type
            assert not any(key.startswith("_") for key in msgspec.json.decode(frame)["payload"])


@pytest.mark.parametrize(("stored", "agent_sees"), sorted(AGENT_VIEW_TYPES.items()))
def test_agent_view_renames_the_fact(stored: str, agent_sees: str) -> None:
    ev = event(stored, {"x": 1}, sequence=42)
    agent = msgspec.json.decode(ev.agent_frame())
    app = msgspec.json.decode(ev.app_frame())
    assert (app["type"], agent["type"]) == (stored, agent_sees)
    assert agent["sequence"] == app["sequence"] == 42 and agent["id"] == app["id"] == "evt-1"
    assert agent["payload"] == app["payload"]


def test_agent_view_mapping_matches_the_protocol() -> None:
    assert AGENT_VIEW_TYPES == {"task.created": "task.assigned", "message.created": "message.delivered",
                                "interaction.expired": "interaction.resolved"}
    other = event("task.status_changed", {"status": "running"})
    assert other.agent_frame() == other.app_frame()


def test_app_frame_is_a_well_formed_envelope_set_by_the_hub() -> None:
    frame = msgspec.json.decode(event("task.status_changed", {"status": "running"}).app_frame())
    assert frame["version"] == "0.1" and frame["sequence"] == 7 and frame["taskId"] == "t1"
    assert "correlationId" not in frame  # unset optional fields are omitted, not null
    # A client may not send `sequence`; the hub's own frame is exactly what decode_envelope refuses from one.
    with pytest.raises(LapError) as refused:
        decode_envelope(event("x.y", {}).app_frame())
    assert refused.value.code == "invalid_envelope"


async def test_reads_after_a_sequence_are_ordered_paged_and_filtered(rig: WriterRig) -> None:
    def note(i: int) -> Command:
        def run(tx: Tx) -> None:
            tx.append("test.noted", {"i": i}, workspace_id="ws1" if i % 2 else "ws2", actor="hub",
                      recipients=("agent-a",) if i % 3 == 0 else ())
        return Command(run=run)

    total = PAGE_SIZE + 50
    await asyncio.gather(*[rig.writer.submit(note(i)) for i in range(1, total + 1)])
    conn = rig.reader()
    try:
        assert head_sequence(conn) == total
        first_page = read_all(conn)
        assert [e.sequence for e in first_page] == list(range(1, PAGE_SIZE + 1))
        assert [e.sequence for e in read_all(conn, after=PAGE_SIZE)] == list(range(PAGE_SIZE + 1, total + 1))
        ws1 = read_workspace_after(conn, "ws1", after=10, upto=20)
        assert [e.sequence for e in ws1] == [11, 13, 15, 17, 19]
        assert [e.sequence for e in read_workspace_after(conn, "ws2", after=0, upto=total, limit=3)] == [2, 4, 6]
        agent = read_agent_after(conn, "agent-a", after=3, upto=12)
        assert [e.sequence for e in agent] == [6, 9, 12]
        assert read_agent_after(conn, "agent-b", after=0, upto=total) == []
        everything = read_all_with_recipients(conn, after=0)  # pages through the whole log
        assert [e.sequence for e in everything] == list(range(1, total + 1))
        assert everything[8].recipients == ("agent-a",) and everything[9].recipients == ()
    finally:
        conn.close()
