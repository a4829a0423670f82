"""R4: duplicate envelopes (docs/quality.md#targets, docs/protocol.md#frames-and-answers).

Sending the same id again, on the same socket, on another socket, or after the hub restarted (gracefully or
by `kill -9`), stores nothing new, broadcasts nothing again, and answers with the first ack's sequence and
`duplicate: true`. The same id with a different envelope is refused with `conflict` and the first stays.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.drills import Workspace, answers_by_id, assert_db_check, assert_log_sound, log_rows, make_workspace
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient, envelope


async def _fence(sender: LapClient, watcher: LapClient, conversation_id: str) -> None:
    """Store one more event and wait until the watcher has it: anything sent before it has arrived by then."""
    ack = await sender.ok("message.create", {"content": "fence"}, conversationId=conversation_id)
    await watcher.wait_for(lambda f: f.get("sequence") == ack["sequence"])


def _rows_with_id(space: Workspace, envelope_id: str) -> list[dict[str, Any]]:
    return [r for r in log_rows(space.db_path) if r["id"] == envelope_id]


def _seen(client: LapClient, envelope_id: str) -> int:
    return sum(1 for f in client.frames if f.get("id") == envelope_id and f.get("sequence") is not None)


async def _setup(hub: HubProcess) -> tuple[Workspace, LapClient, LapClient]:
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    return space, agent, app


async def test_same_id_on_the_same_connection(hub: HubProcess) -> None:
    space, agent, app = await _setup(hub)
    env = envelope("message.create", {"content": "once"}, agent.workspace_id, conversationId=space.conversation_id)
    await agent.send_raw(env)
    first = (await agent.answer(env["id"]))["payload"]
    assert first == {"id": env["id"], "sequence": first["sequence"], "duplicate": False}
    for _ in range(3):
        start = len(agent.frames)
        await agent.send_raw(env)
        again = await agent.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                     and f["payload"].get("id") == env["id"], start=start)
        assert again["payload"] == {"id": env["id"], "sequence": first["sequence"], "duplicate": True}
    await _fence(agent, app, space.conversation_id)
    assert _seen(app, env["id"]) == 1, "a duplicate was broadcast again"
    assert len(_rows_with_id(space, env["id"])) == 1
    await agent.close()
    await app.close()


async def test_same_id_in_flight_together(hub: HubProcess) -> None:
    """Copies sent back to back land in one writer batch: the first stores, the others see it in the same
    transaction."""
    space, agent, app = await _setup(hub)
    env = envelope("message.create", {"content": "burst"}, agent.workspace_id, conversationId=space.conversation_id)
    for _ in range(5):
        await agent.send_raw(env)
    await agent.wait_for(lambda f: len(answers_by_id(agent.frames).get(env["id"], [])) == 5)
    answers = [a["payload"] for a in answers_by_id(agent.frames)[env["id"]]]
    assert [a["duplicate"] for a in answers] == [False, True, True, True, True]
    assert len({a["sequence"] for a in answers}) == 1
    await _fence(agent, app, space.conversation_id)
    assert _seen(app, env["id"]) == 1
    assert len(_rows_with_id(space, env["id"])) == 1
    await agent.close()
    await app.close()


async def test_same_id_on_another_connection(hub: HubProcess) -> None:
    space, agent, app = await _setup(hub)
    env = envelope("message.create", {"content": "elsewhere"}, agent.workspace_id,
                   conversationId=space.conversation_id)
    await agent.send_raw(env)
    first = (await agent.answer(env["id"]))["payload"]
    second_socket = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    await second_socket.send_raw(env)
    assert (await second_socket.answer(env["id"]))["payload"] == {"id": env["id"], "sequence": first["sequence"],
                                                                  "duplicate": True}
    await _fence(second_socket, app, space.conversation_id)
    assert _seen(app, env["id"]) == 1
    assert len(_rows_with_id(space, env["id"])) == 1
    for client in (agent, second_socket, app):
        await client.close()


@pytest.mark.parametrize("how", ["graceful", "kill-9"])
async def test_same_id_across_a_hub_restart(hub_factory: HubFactory, how: str) -> None:
    hub = hub_factory(process=how == "kill-9")  # kill -9 needs a process; the graceful stop does not
    space, agent, app = await _setup(hub)
    env = envelope("message.create", {"content": "before the restart"}, agent.workspace_id,
                   conversationId=space.conversation_id)
    await agent.send_raw(env)
    first = (await agent.answer(env["id"]))["payload"]
    conversation = envelope("conversation.create", {"title": "app side", "agentIds": []}, app.workspace_id,
                            conversationId="c-restart")
    await app.send_raw(conversation)
    first_conversation = (await app.answer(conversation["id"]))["payload"]
    last = max(f["sequence"] for f in app.frames if f.get("sequence") is not None)
    await agent.close()
    await app.close()
    if how == "graceful":
        hub.stop()
    else:
        await asyncio.to_thread(hub.kill)
    hub.start()

    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    app = await LapClient.connect(hub.ws_base, "app", space.token, last_sequence=last)
    await agent.send_raw(env)
    assert (await agent.answer(env["id"]))["payload"] == {"id": env["id"], "sequence": first["sequence"],
                                                          "duplicate": True}
    await app.send_raw(conversation)
    assert (await app.answer(conversation["id"]))["payload"] == {**first_conversation, "duplicate": True}
    await _fence(agent, app, space.conversation_id)
    assert _seen(app, env["id"]) == 0 and _seen(app, conversation["id"]) == 0, "re-broadcast after the restart"
    assert len(_rows_with_id(space, env["id"])) == 1
    assert len(_rows_with_id(space, conversation["id"])) == 1
    await agent.close()
    await app.close()
    hub.stop()
    assert_db_check(hub.data_dir)


@pytest.mark.parametrize("change", ["payload", "conversation", "type", "sender"])
async def test_same_id_with_another_envelope_is_a_conflict(hub: HubProcess, change: str) -> None:
    space, agent, app = await _setup(hub)
    await app.ok("conversation.create", {"title": "other", "agentIds": [space.agents[0]["agentId"]]},
                 conversationId="c-other")
    env = envelope("message.create", {"content": "the first"}, agent.workspace_id, conversationId=space.conversation_id)
    await agent.send_raw(env)
    first = (await agent.answer(env["id"]))["payload"]
    stored_before = _rows_with_id(space, env["id"])

    reuse = dict(env)
    sender = agent
    if change == "payload":
        reuse["payload"] = {"content": "the second"}
    elif change == "conversation":
        reuse["conversationId"] = "c-other"
    elif change == "type":
        reuse["type"] = "task.create"
        reuse["payload"] = {"title": "a task"}
    else:
        sender = app  # the same envelope from someone else
    start = len(sender.frames)
    await sender.send_raw(reuse)
    answer = await sender.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                   and f["payload"].get("id") == env["id"], start=start)
    assert answer["type"] == "system.error", answer
    assert answer["payload"]["code"] == "conflict"
    assert answer["payload"]["hint"]
    # The first stays: same row, same sequence, and a plain re-send is still a harmless duplicate.
    assert _rows_with_id(space, env["id"]) == stored_before
    await agent.send_raw(env)
    assert (await agent.wait_for(lambda f: f["type"] == "system.ack" and f["payload"].get("id") == env["id"]
                                 and f["payload"]["duplicate"]))["payload"]["sequence"] == first["sequence"]
    await _fence(agent, app, space.conversation_id)
    assert _seen(app, env["id"]) == 1
    assert_log_sound(log_rows(space.db_path))
    await agent.close()
    await app.close()


@pytest.mark.parametrize("kind", ["conversation.create", "task.create", "message.create"])
async def test_app_envelopes_that_create_objects_are_idempotent(hub: HubProcess, kind: str) -> None:
    """A re-sent create answers with the first ack and creates no second object
    (docs/protocol.md#frames-and-answers)."""
    space, agent, app = await _setup(hub)
    fields: dict[str, Any] = {"conversationId": space.conversation_id}
    payload: dict[str, Any] = {"content": "hello"}
    if kind == "conversation.create":
        fields, payload = {"conversationId": "c-idem"}, {"title": "idempotent"}
    elif kind == "task.create":
        fields["taskId"], payload = "t-idem", {"title": "idempotent"}
    env = envelope(kind, payload, app.workspace_id, **fields)
    await app.send_raw(env)
    first = (await app.answer(env["id"]))["payload"]
    assert first["duplicate"] is False
    start = len(app.frames)
    await app.send_raw(env)
    again = await app.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                               and f["payload"].get("id") == env["id"], start=start)
    assert again["payload"] == {**first, "duplicate": True}
    await _fence(agent, app, space.conversation_id)
    assert _seen(app, env["id"]) == 1
    if kind == "task.create":  # the agent got the task once
        assert sum(1 for f in agent.frames if f["type"] == "task.assigned" and f.get("taskId") == "t-idem") == 1
    await agent.close()
    await app.close()
    hub.stop()
    assert_db_check(hub.data_dir)
