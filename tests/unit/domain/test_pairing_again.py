"""Pairing the same agent again (issue "When something goes wrong, the person sees it", item 3) through the real
writer: with the credential it held, or with a code the app made for it, the agent keeps its id, its conversations
and tasks, and only its credential changes (`agent.credential_rotated`); the earlier credential stops working. A
credential the hub cannot accept pairs a new agent and the answer says why. The projections stay a replay of the
log (`lineup db check`, `lineup db rebuild`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.auth.secrets import token_hash
from hub.domain import accounts
from hub.protocol.actors import Actor
from hub.protocol.errors import LapError
from hub.store import database
from hub.store.migrations import PROJECTION_TABLES
from hub.store.queries import accounts as people
from hub.store.rebuild import check, rebuild
from tests.unit.scenario import Execute, WriterRig, executor, populate


async def code_for(execute: Execute, user: Actor, name: str | None = None, replaces_agent_id: str | None = None) -> str:
    make, code = accounts.create_pairing_code(user, name, 600, replaces_agent_id)
    await execute(make)
    return code


def rows(conn: sqlite3.Connection, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in conn.execute(sql)]


def owner_of(conn: sqlite3.Connection, credential: str) -> str | None:
    found = people.credential_owner(conn, token_hash(credential))
    return None if found is None else found.agent_id


async def test_the_credential_it_held_keeps_the_agent(rig: WriterRig, reader: sqlite3.Connection) -> None:
    execute = executor(rig.writer)
    world = await populate(execute)
    agent_id = world.agent.id
    conversations_before = rows(reader, "SELECT id FROM conversations")
    tasks_before = rows(reader, "SELECT id, agent_id, status FROM tasks ORDER BY id")
    command, fresh = accounts.pair_agent(await code_for(execute, world.user), "bot (default)", "demo", "2.0",
                                         replaces=world.credential)
    answer = await execute(command)
    assert answer == {"agentId": agent_id, "workspaceId": world.user.workspace_id, "replaced": agent_id}
    # One agent, not two: renamed by the person before ("tidy-bot"), it keeps that name, not the agent's default.
    assert rows(reader, "SELECT id, name, runtime, agent_version FROM agents") == [
        (agent_id, "tidy-bot", "demo", "2.0")]
    assert rows(reader, "SELECT id FROM conversations") == conversations_before == [("c1",)]
    assert rows(reader, "SELECT id, agent_id, status FROM tasks ORDER BY id") == tasks_before
    assert len(tasks_before) == 2 and {t[1] for t in tasks_before} == {agent_id}
    assert owner_of(reader, world.credential) is None  # the earlier credential is refused from now on
    assert owner_of(reader, fresh) == agent_id
    stored = reader.execute("SELECT type, payload FROM events ORDER BY sequence DESC LIMIT 1").fetchone()
    assert stored[0] == "agent.credential_rotated" and fresh not in stored[1] and token_hash(fresh) in stored[1]


async def test_a_credential_the_hub_cannot_accept_pairs_a_new_agent_and_says_why(
        rig: WriterRig, reader: sqlite3.Connection) -> None:
    execute = executor(rig.writer)
    world = await populate(execute)

    async def pair(replaces: str) -> dict[str, object]:
        command, _ = accounts.pair_agent(await code_for(execute, world.user), "x", "test", "1", replaces=replaces)
        return dict(await execute(command))

    unknown = await pair("lu_agt_never-issued")
    assert (unknown["replaced"], unknown["notReplaced"]) == (None, "unknown")
    assert unknown["agentId"] != world.agent.id
    # Rotated once: the earlier credential is spent ("replaced"), the newer one works.
    command, newer = accounts.pair_agent(await code_for(execute, world.user), "x", "test", "1",
                                         replaces=world.credential)
    assert (await execute(command))["replaced"] == world.agent.id
    spent = await pair(world.credential)
    assert (spent["replaced"], spent["notReplaced"]) == (None, "replaced")
    # Another workspace's credential is never taken over by this workspace's code.
    other = await execute(accounts.owner_device_for_cli("Other", "cli"))
    other_user = Actor("user", other["userId"], other["workspaceId"], device_id=other["deviceId"])
    command, other_credential = accounts.pair_agent(await code_for(execute, other_user), "theirs", "test", "1")
    theirs = (await execute(command))["agentId"]
    foreign = await pair(other_credential)
    assert (foreign["replaced"], foreign["notReplaced"]) == (None, "other_workspace")
    assert owner_of(reader, other_credential) == theirs
    # A revoked agent stays revoked: its credential pairs a new agent.
    await execute(accounts.revoke_agent(world.user, world.agent.id))
    revoked = await pair(newer)
    assert (revoked["replaced"], revoked["notReplaced"]) == (None, "revoked")


async def test_a_code_the_app_made_for_an_agent_rotates_it(rig: WriterRig, reader: sqlite3.Connection) -> None:
    execute = executor(rig.writer)
    world = await populate(execute)
    code = await code_for(execute, world.user, replaces_agent_id=world.agent.id)
    assert reader.execute("SELECT replaces_agent_id FROM pairing_codes WHERE code_hash = ?",
                          (token_hash(code),)).fetchone()[0] == world.agent.id
    # The credential file is lost: no `replaces`, the code alone names the agent.
    command, fresh = accounts.pair_agent(code, "Demo agent", "demo", "1.0")
    assert (await execute(command))["replaced"] == world.agent.id
    assert [r[0] for r in reader.execute("SELECT id FROM agents")] == [world.agent.id]
    assert owner_of(reader, world.credential) is None and owner_of(reader, fresh) == world.agent.id
    with pytest.raises(LapError) as reused:  # still single use
        await execute(accounts.pair_agent(code, "again", "demo", "1.0")[0])
    assert reused.value.code == "unauthorized"


async def test_only_the_owner_makes_a_code_for_an_agent_of_the_workspace(rig: WriterRig) -> None:
    execute = executor(rig.writer)
    world = await populate(execute)
    for actor, agent_id, code in ((world.agent, world.agent.id, "forbidden"),
                                  (world.user, "agt_nobody", "not_found")):
        with pytest.raises(LapError) as refused:
            await execute(accounts.create_pairing_code(actor, None, 600, agent_id)[0])
        assert refused.value.code == code
    other = await execute(accounts.owner_device_for_cli("Other", "cli"))
    neighbour = Actor("user", other["userId"], other["workspaceId"], device_id=other["deviceId"])
    with pytest.raises(LapError) as foreign:  # another workspace's agent is as unknown as a missing one
        await execute(accounts.create_pairing_code(neighbour, None, 600, world.agent.id)[0])
    assert foreign.value.code == "not_found"
    await execute(accounts.revoke_agent(world.user, world.agent.id))
    with pytest.raises(LapError) as revoked:
        await execute(accounts.create_pairing_code(world.user, None, 600, world.agent.id)[0])
    assert revoked.value.code == "not_found"


async def test_a_code_made_for_an_agent_revoked_meanwhile_pairs_a_new_one(rig: WriterRig) -> None:
    execute = executor(rig.writer)
    world = await populate(execute)
    code = await code_for(execute, world.user, replaces_agent_id=world.agent.id)
    await execute(accounts.revoke_agent(world.user, world.agent.id))
    answer = await execute(accounts.pair_agent(code, "Demo agent", "demo", "1.0")[0])
    assert answer["agentId"] != world.agent.id and (answer["replaced"], answer["notReplaced"]) == (None, "revoked")


def snapshot(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    return {t: sorted((tuple(r) for r in conn.execute(f"SELECT * FROM {t}")), key=repr) for t in PROJECTION_TABLES}


async def test_the_projections_are_a_replay_of_the_log(rig: WriterRig, db_path: Path) -> None:
    execute = executor(rig.writer)
    world = await populate(execute)
    command, newer = accounts.pair_agent(await code_for(execute, world.user), "x", "demo", "2",
                                         replaces=world.credential)
    await execute(command)
    await execute(accounts.pair_agent(await code_for(execute, world.user, "Renamed", world.agent.id), "y", "demo",
                                      "3")[0])
    await rig.writer.stop()
    conn = database.connect_sync(db_path)
    try:
        report = check(conn)
        assert report.ok, report.problems
        before = snapshot(conn)
        assert rows(conn, "SELECT name, agent_version FROM agents") == [("Renamed", "3")]
        assert rows(conn, "SELECT COUNT(*), COUNT(revoked_at) FROM credentials") == [(3, 2)]
        conn.execute("UPDATE credentials SET revoked_at = NULL")
        conn.execute("UPDATE pairing_codes SET replaces_agent_id = NULL")
        assert not check(conn).ok
        rebuild(conn)
        assert snapshot(conn) == before
    finally:
        conn.close()
