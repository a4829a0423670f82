"""The relay does not trust WuKongIM blindly.

A real hub process and a protocol-faithful fake WuKongIM (tests/support/fake_wukong.py) with a person on the
official SDK: a person set `lap = false` cannot act as the LineUp app (no envelope runs, no replay of the workspace
is sent; a clear text says why), and `lineup relay check` fails loudly when the server accepts a wrong token, which
the running hub also reports (log and status warning).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from typing import Any

from tests.integration.test_relay import (
    HUB_UID,
    MANAGER,
    Person,
    agent_in_conversation,
    cli,
    connected,
    fakes,
    relay_state,
    relay_toml,
)
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess, run_cli
from tests.support.polling import eventually as until

__all__ = ["fakes"]  # the fixture, shared with tests/integration/test_relay.py


def stored_contents(hub: HubProcess) -> list[str]:
    conn = sqlite3.connect(f"file:{hub.data_dir / 'lineup.db'}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT payload FROM events WHERE type = 'message.created'")]
    finally:
        conn.close()


async def test_a_text_only_person_cannot_send_envelopes_or_resume(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER)
    hub = hub_factory("hub", start=False)
    hub.data_dir.mkdir(parents=True)
    token = run_cli(hub.data_dir, "token").stdout.strip()
    toml = relay_toml(fake).replace('{uid = "alice", user = "owner"}', '{uid = "alice", user = "owner", lap = false}')
    assert "lap = false" in toml
    (hub.data_dir / "lineup.toml").write_text(toml)
    await asyncio.to_thread(hub.start)
    await connected(hub)
    alice = await Person(fake).connect()
    agent, conversation = await agent_in_conversation(hub, token)
    workspace_id = json.loads((await cli(hub, "relay", "pair", "alice")).stdout)["workspaceId"]
    env = {"id": "spoof-1", "type": "message.create", "version": "0.1", "occurredAt": "2026-01-01T00:00:00Z",
           "workspaceId": workspace_id, "conversationId": conversation, "payload": {"content": "as the app"}}
    try:
        await alice.client.send(HUB_UID, 1, {"type": 5201, "envelope": env})
        await alice.client.send(HUB_UID, 1, {"type": 5202, "op": "resume", "lastSequence": 0})

        def refusals() -> list[str]:
            return [t for t in alice.texts() if "not accepted from this account" in t]
        await until(lambda: len(refusals()) == 2, 10, "two refusals")  # each is sent after its message was handled
        assert all("lap = false" in t for t in refusals()), refusals()
        assert not any("as the app" in p for p in stored_contents(hub))  # nothing stored
        assert not any(p.get("type") in (5201, 5202) for p in alice.inbox)  # no ack, no replay, no caught_up
        # plain text still works for this person: it reaches the agent as chat
        await alice.say("hello by text")
        await agent.event("message.delivered", content="hello by text")
    finally:
        await agent.close()
        await alice.close()


async def test_the_hub_does_not_relay_through_a_wukongim_that_accepts_any_token(hub_factory: HubFactory,
                                                                               fakes: Any) -> None:
    """Token authentication off: anyone who reaches WuKongIM could sign in as the person and answer as them.
    The uplink checks before it acts on anything received, and stops with an error saying what to do."""
    fake = await fakes("compat", manager_token=MANAGER, token_auth=False)
    hub = hub_factory("hub", start=False)
    hub.data_dir.mkdir(parents=True)
    run_cli(hub.data_dir, "token")
    (hub.data_dir / "lineup.toml").write_text(relay_toml(fake))
    await asyncio.to_thread(hub.start)
    status = await until(lambda: (relay_state(hub)["status"] or {}).get("code") == "relay_token_auth_off"
                         and relay_state(hub)["status"], 15, "the uplink to refuse")
    assert status["state"] == "error" and "does not relay" in status["message"], status
    assert "allow_token_auth_off" in status["nextStep"], status
    await until(lambda: not fake.online(HUB_UID), 5, "the hub's session to be closed")
    assert relay_state(hub)["status"]["state"] == "error"  # and it stays stopped: no retry loop


async def test_relay_check_fails_loudly_when_wukongim_accepts_a_wrong_token(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER, token_auth=False)
    hub = hub_factory("hub", start=False)
    hub.data_dir.mkdir(parents=True)
    run_cli(hub.data_dir, "token")  # the owner the person stands for
    # Allowed knowingly (a lab setup): the hub relays, and still says loudly that it should not be so.
    (hub.data_dir / "lineup.toml").write_text(relay_toml(fake, allow_token_auth_off=True))
    await asyncio.to_thread(hub.start)
    await connected(hub)
    checked = await cli(hub, "relay", "check", check=False)
    assert checked.returncode != 0, checked.stdout
    assert "FAIL WuKongIM accepted a sign-in with a WRONG token" in checked.stdout, checked.stdout
    assert "tokenAuthOn: true" in checked.stdout and "act as the LineUp user" in checked.stdout
    # the running hub tells too: an error in its log and a warning in the status people and tools see
    await until(lambda: any("token authentication is off" in w
                            for w in (relay_state(hub)["status"] or {}).get("warnings") or []), 10, "the warning")
    assert "ERROR" in hub.log() and "token authentication is OFF" in hub.log()


async def test_relay_check_says_ok_when_wukongim_refuses_a_wrong_token(hub_factory: HubFactory, fakes: Any) -> None:
    fake = await fakes("compat", manager_token=MANAGER)
    hub = hub_factory("hub", start=False)
    hub.data_dir.mkdir(parents=True)
    run_cli(hub.data_dir, "token")  # the owner the person stands for
    (hub.data_dir / "lineup.toml").write_text(relay_toml(fake))
    await asyncio.to_thread(hub.start)
    await connected(hub)
    checked = await cli(hub, "relay", "check", check=False)
    assert "ok   WuKongIM refuses a wrong token" in checked.stdout, checked.stdout
    assert "accepted a sign-in with a WRONG token" not in checked.stdout
    await until(lambda: not any(c.uid.startswith("lineup-authcheck") for c in fake.conns), 5, "no test sign-in left")
    assert fake.online(HUB_UID)
