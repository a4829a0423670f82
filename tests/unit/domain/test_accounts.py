"""Setup, devices and pairing through the real writer: single-use codes, expiry, one owner per hub."""

from __future__ import annotations

import sqlite3

import pytest

from hub.auth.secrets import token_hash
from hub.domain import accounts
from hub.protocol.errors import LapError
from tests.unit.scenario import FAKE_PASSWORD_HASH, WriterRig, executor, populate


async def test_setup_is_refused_once_an_owner_exists(rig: WriterRig, reader: sqlite3.Connection) -> None:
    execute = executor(rig.writer)
    first = await execute(accounts.create_owner("ada", "Ada", FAKE_PASSWORD_HASH, "Home", "laptop")[0])
    with pytest.raises(LapError) as info:
        await execute(accounts.create_owner("eve", "Eve", FAKE_PASSWORD_HASH, "Evil", "x")[0])
    assert info.value.code == "forbidden"
    assert reader.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 1
    device = reader.execute("SELECT token_hash FROM devices WHERE id = ?", (first["deviceId"],)).fetchone()
    assert device["token_hash"] == token_hash(first["token"])


async def test_a_pairing_code_works_once(rig: WriterRig, reader: sqlite3.Connection) -> None:
    world = await populate(executor(rig.writer))
    execute = executor(rig.writer)
    make, code = accounts.create_pairing_code(world.user, None, 600)
    await execute(make)
    paired = await execute(accounts.pair_agent(code, "second", "test", "2.0")[0])
    with pytest.raises(LapError) as reused:
        await execute(accounts.pair_agent(code, "third", "test", "2.0")[0])
    assert reused.value.code == "unauthorized" and "already used" in reused.value.message
    with pytest.raises(LapError) as wrong:
        await execute(accounts.pair_agent("ZZZZ-ZZZZ", "x", "test", "1")[0])
    assert wrong.value.code == "unauthorized"
    assert reader.execute("SELECT used_at IS NOT NULL, agent_id FROM pairing_codes WHERE code_hash = ?",
                          (token_hash(code),)).fetchone()[:] == (1, paired["agentId"])


async def test_the_name_the_person_gave_the_code_is_the_agents_name(rig: WriterRig, reader: sqlite3.Connection) -> None:
    # Walking through: named "Claude Code (my-project)" in the app's pairing dialog, the agent still showed as
    # "Claude Code", the name `lineup connect claude-code` pairs with; the person's choice was lost.
    world = await populate(executor(rig.writer))
    execute = executor(rig.writer)
    named, named_code = accounts.create_pairing_code(world.user, "Claude Code (my-project)", 600)
    unnamed, unnamed_code = accounts.create_pairing_code(world.user, None, 600)
    await execute(named)
    await execute(unnamed)
    first = await execute(accounts.pair_agent(named_code, "Claude Code", "claude-code", "2.1")[0])
    second = await execute(accounts.pair_agent(unnamed_code, "Claude Code", "claude-code", "2.1")[0])
    names = dict(reader.execute("SELECT id, name FROM agents").fetchall())
    assert names[first["agentId"]] == "Claude Code (my-project)"
    assert names[second["agentId"]] == "Claude Code"  # no name on the code: the agent's own


async def test_an_expired_pairing_code_is_refused(rig: WriterRig) -> None:
    world = await populate(executor(rig.writer))
    make, code = accounts.create_pairing_code(world.user, "late", -1)
    await executor(rig.writer)(make)
    with pytest.raises(LapError) as info:
        await executor(rig.writer)(accounts.pair_agent(code, "x", "test", "1")[0])
    assert info.value.code == "expired" and info.value.status == 410


async def test_revoking_an_agent_revokes_its_credential_once(rig: WriterRig, reader: sqlite3.Connection) -> None:
    world = await populate(executor(rig.writer))
    execute = executor(rig.writer)
    await execute(accounts.revoke_agent(world.user, world.agent.id))
    head = reader.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
    await execute(accounts.revoke_agent(world.user, world.agent.id))  # already revoked: nothing new
    assert reader.execute("SELECT MAX(sequence) FROM events").fetchone()[0] == head
    assert reader.execute("SELECT revoked_at IS NOT NULL FROM credentials WHERE secret_hash = ?",
                          (token_hash(world.credential),)).fetchone()[0] == 1
    with pytest.raises(LapError) as info:
        await execute(accounts.rename_agent(world.user, world.agent.id, "zombie"))
    assert info.value.code == "not_found"
