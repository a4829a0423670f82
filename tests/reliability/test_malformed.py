"""F1: malformed input (docs/quality.md#targets, docs/protocol.md#frames-and-answers).

Every bad text frame gets exactly one `system.error` (never an ack) and the socket stays open; an oversize frame
closes with 1009, a binary frame with 1003, a flood of bad frames with 1008; no hello in time closes with 4408,
a bad credential with `unauthorized` and 4401. Nothing closes with 1011 or stops the hub, and a few hundred
fuzzed envelopes (hypothesis) leave a log that passes `lineup db check`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import connect as connect_sync

from tests.support.drills import Workspace, assert_db_check, log_rows, make_workspace_sync
from tests.support.fence import fence
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient, envelope

HELLO_TIMEOUT_S = 1.0
MAX_FRAME = 1024 * 1024  # the default LINEUP_MAX_FRAME_BYTES


@pytest.fixture(scope="module")
def space(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    hub = HubProcess(tmp_path_factory.mktemp("malformed") / "hub",
                     env={"LINEUP_HELLO_TIMEOUT_S": str(HELLO_TIMEOUT_S)}).start()
    try:
        yield make_workspace_sync(hub, agents=1)
    finally:
        hub.stop()


async def _agent(space: Workspace) -> LapClient:
    return await LapClient.connect(space.hub.ws_base, "agent", space.agents[0]["credential"])


async def _still_open(client: LapClient, space: Workspace) -> None:
    """The socket answers a ping and stores a valid envelope after whatever came before."""
    ping = envelope("system.ping", {}, client.workspace_id)
    await client.send_raw(ping)
    await client.wait_for(lambda f: f["type"] == "system.pong" and f.get("correlationId") == ping["id"])
    await client.ok("message.create", {"content": "still here"}, conversationId=space.conversation_id)
    assert not client.closed.is_set()


def _errors_without_id(client: LapClient) -> list[dict[str, Any]]:
    return [f for f in client.frames if f["type"] == "system.error" and "id" not in f["payload"]]


# ---- one bad frame at a time: an error, no ack, the socket stays open --------------------------------------

def _valid(space: Workspace, **changes: Any) -> dict[str, Any]:
    env = envelope("message.create", {"content": "x"}, None, conversationId=space.conversation_id)
    env["workspaceId"] = "__workspace__"
    env.update(changes)
    return env


BAD_ENVELOPES: dict[str, tuple[Any, str]] = {
    # name: (envelope changes, or a raw string; the expected error code)
    "invalid json": ('{"id": "j1", "type": "message.create", ', "invalid_json"),
    "not json at all": ("hello hub", "invalid_json"),
    "NaN literal": ('{"id": "n1", "value": NaN}', "invalid_json"),
    "json array": ("[1, 2, 3]", "invalid_envelope"),
    "json string": ('"an envelope"', "invalid_envelope"),
    "json null": ("null", "invalid_envelope"),
    "deeply nested": ("[" * 5000 + "]" * 5000, "invalid_envelope"),
    "object without envelope fields": ('{"foo": 1}', "invalid_envelope"),
    "wrong version": ({"version": "0.2"}, "unsupported_version"),
    "version as number": ({"version": 0.1}, "invalid_envelope"),
    "missing type": ({"type": None}, "invalid_envelope"),
    "missing occurredAt": ({"occurredAt": None}, "invalid_envelope"),
    "missing payload": ({"payload": None}, "invalid_envelope"),
    "payload not an object": ({"payload": ["content"]}, "invalid_envelope"),
    "empty id": ({"id": ""}, "invalid_envelope"),
    "id too long": ({"id": "i" * 200}, "invalid_envelope"),
    "id not a string": ({"id": 12345}, "invalid_envelope"),
    "sequence set by the client": ({"sequence": 7}, "invalid_envelope"),
    "other workspace": ({"workspaceId": "ws_someone_else"}, "forbidden"),
    "no workspace": ({"workspaceId": None}, "invalid_envelope"),  # told it has none, not "another"
    "second hello": ({"type": "agent.hello", "payload": {"credential": "x"}}, "invalid_envelope"),
    "invalid payload field type": ({"payload": {"content": 123}}, "invalid_payload"),
    # msgspec refuses a lone surrogate escape as invalid JSON (no id can be read from the frame then).
    "lone surrogate in text": ('{"id": "s1", "type": "message.create", "version": "0.1", '
                               '"occurredAt": "2026-01-01T00:00:00Z", "payload": {"content": "\\ud800"}}',
                               "invalid_json"),
    "deeply nested payload": ('{"id": "d1", "type": "message.create", "version": "0.1", '
                              '"occurredAt": "2026-01-01T00:00:00Z", "payload": {"content": "x", "deep": '
                              + "[" * 5000 + "]" * 5000 + "}}", "invalid_envelope"),
}


@pytest.mark.parametrize("name", list(BAD_ENVELOPES))
async def test_a_bad_frame_gets_one_error_and_the_socket_stays_open(space: Workspace, name: str) -> None:
    client = await _agent(space)
    changes, code = BAD_ENVELOPES[name]
    frame_id: str | None = f"bad-{abs(hash(name))}"
    if isinstance(changes, str):
        text, has_id = changes, False  # none of these lets the hub read an id
    else:
        env = _valid(space, id=frame_id, workspaceId=client.workspace_id)
        env.update(changes)
        env = {k: v for k, v in env.items() if v is not None}
        text = json.dumps(env)
        has_id = isinstance(env.get("id"), str) and 0 <= len(env["id"]) <= 128
        frame_id = env.get("id") if has_id else None
    await client.send_raw(text)
    await _still_open(client, space)  # also a fence: the answer to the bad frame came before
    answers = [f for f in client.frames if f["type"] in ("system.ack", "system.error")
               and f["payload"].get("id", None) == (frame_id if has_id else None)]
    assert [a["type"] for a in answers] == ["system.error"], answers
    assert answers[0]["payload"]["code"] == code, answers[0]
    assert answers[0]["payload"]["message"] and answers[0]["payload"]["hint"]
    if has_id:
        assert not any(r["id"] == frame_id for r in log_rows(space.db_path)), "a refused envelope was stored"
    await client.close()


@pytest.mark.parametrize("kind,payload,field", [
    ("app", {"agentIds": []}, "title"),
    ("app", {"title": 5}, "title"),
    ("agent", {"content": ["not", "text"]}, "content"),
    ("agent:task.status_changed", {"progress": 150}, "progress"),
    ("agent:interaction.requested", {"interaction": {"type": "poll", "title": "?"}}, "type"),
])
async def test_invalid_payload_names_the_field(space: Workspace, kind: str, payload: dict[str, Any],
                                               field: str) -> None:
    who, _, type_ = kind.partition(":")
    if who == "app":
        client = await LapClient.connect(space.hub.ws_base, "app", space.token)
        type_ = "conversation.create"
    else:
        client = await _agent(space)
        type_ = type_ or "message.create"
    answer = await client.request(type_, payload, conversationId=space.conversation_id, taskId="t-none")
    assert answer["type"] == "system.error"
    assert answer["payload"]["code"] == "invalid_payload"
    assert field in answer["payload"]["message"], answer["payload"]["message"]
    await _still_open(client, space)
    await client.close()


async def test_unknown_type_is_acknowledged_with_a_warning_and_not_stored(space: Workspace) -> None:
    client = await _agent(space)
    app = await LapClient.connect(space.hub.ws_base, "app", space.token)
    answer = await client.request("telemetry.sample", {"cpu": 0.5})
    assert answer["type"] == "system.ack"
    assert answer["payload"]["warning"] == "unknown_type" and answer["payload"]["sequence"] is None
    envelope_id = answer["payload"]["id"]
    await _still_open(client, space)
    await fence(client, space.conversation_id, app)  # had it been stored, the app would have had it before this
    assert not any(r["id"] == envelope_id for r in log_rows(space.db_path))
    assert not any(f.get("id") == envelope_id for f in app.frames)
    await client.close()
    await app.close()


async def test_unknown_payload_fields_are_kept(space: Workspace) -> None:
    client = await _agent(space)
    ack = await client.ok("message.create", {"content": "with extras", "x-trace": {"span": 7}},
                          conversationId=space.conversation_id)
    row = next(r for r in log_rows(space.db_path) if r["sequence"] == ack["sequence"])
    assert row["payload"]["x-trace"] == {"span": 7}
    await client.close()


# ---- frames the hub closes on -------------------------------------------------------------------------------

async def test_oversize_frame_closes_1009_and_nothing_acknowledged_is_lost(space: Workspace) -> None:
    client = await _agent(space)
    acked = await client.ok("message.create", {"content": "before the big one"}, conversationId=space.conversation_id)
    # Just under the limit is accepted (unknown payload fields are kept, so the frame can be large).
    near = envelope("message.create", {"content": "near the limit", "blob": ""}, client.workspace_id,
                    conversationId=space.conversation_id)
    near["payload"]["blob"] = "b" * (MAX_FRAME - len(json.dumps(near)) - 64)
    await client.send_raw(json.dumps(near))
    assert (await client.answer(near["id"], timeout=20))["type"] == "system.ack"
    too_big = envelope("message.create", {"content": "c" * 100, "blob": "b" * (MAX_FRAME + 10)}, client.workspace_id,
                       conversationId=space.conversation_id)
    await client.send_raw(json.dumps(too_big))
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.ws.close_code == 1009
    await client.close()
    again = await _agent(space)
    await _still_open(again, space)
    ids = {r["id"] for r in log_rows(space.db_path)}
    assert acked["id"] in ids and near["id"] in ids and too_big["id"] not in ids
    await again.close()


async def test_binary_frame_closes_1003(space: Workspace) -> None:
    client = await _agent(space)
    await client.send_raw(b'{"type": "message.create"}')
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.ws.close_code == 1003
    await client.close()


async def test_binary_frame_before_the_hello_closes_1003(space: Workspace) -> None:
    async with websockets.connect(space.hub.ws_base + "/ws/app") as ws:
        await ws.send(b"\x00\x01")
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 1003


@pytest.mark.parametrize("phase", ["after the hello", "before the hello"])
async def test_a_flood_of_bad_frames_closes_1008(space: Workspace, phase: str) -> None:
    if phase == "after the hello":
        client = await _agent(space)
        for n in range(150):
            try:
                await client.send_raw(f"not json {n}")
            except websockets.ConnectionClosed:
                break
        await asyncio.wait_for(client.closed.wait(), 10)
        assert client.ws.close_code == 1008
        errors = _errors_without_id(client)
        assert 100 <= len(errors) <= 101 and {e["payload"]["code"] for e in errors} == {"invalid_json"}
        await client.close()
    else:
        async with websockets.connect(space.hub.ws_base + "/ws/agent") as ws:
            for n in range(150):
                try:
                    await ws.send(f"not a hello {n}")
                except websockets.ConnectionClosed:
                    break
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            assert ws.close_code == 1008
    # A new socket from the same peer is served normally.
    client = await _agent(space)
    await _still_open(client, space)
    await client.close()


async def test_a_few_bad_frames_do_not_close(space: Workspace) -> None:
    client = await _agent(space)
    for n in range(90):
        await client.send_raw(f"not json {n}")
    await _still_open(client, space)
    assert len(_errors_without_id(client)) == 90
    await client.close()


@pytest.mark.parametrize("kind", ["agent", "app"])
async def test_no_hello_in_time_closes_4408(space: Workspace, kind: str) -> None:
    started = time.monotonic()
    async with websockets.connect(f"{space.hub.ws_base}/ws/{kind}") as ws:
        await asyncio.sleep(HELLO_TIMEOUT_S / 2)
        await ws.send("not a hello")  # a bad frame does not extend the deadline
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert frame["type"] == "system.error"
        assert ws.close_code == 4408
    assert HELLO_TIMEOUT_S * 0.9 <= time.monotonic() - started <= HELLO_TIMEOUT_S + 2


@pytest.mark.parametrize("kind", ["agent", "app"])
async def test_bad_credential_gets_unauthorized_then_4401(space: Workspace, kind: str) -> None:
    secret_field = "credential" if kind == "agent" else "token"
    async with websockets.connect(f"{space.hub.ws_base}/ws/{kind}") as ws:
        hello = envelope(f"{kind}.hello", {secret_field: "not-a-real-secret", "runtime": "t", "agentVersion": "1"})
        await ws.send(json.dumps(hello))
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "system.error"
        assert frame["payload"]["code"] == "unauthorized" and frame["payload"]["id"] == hello["id"]
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 4401


async def test_a_bad_hello_can_be_followed_by_a_good_one(space: Workspace) -> None:
    async with websockets.connect(f"{space.hub.ws_base}/ws/agent") as ws:
        await ws.send(json.dumps(envelope("agent.hello", {"runtime": "t"})))  # no credential
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "system.error" and frame["payload"]["code"] == "invalid_payload"
        assert "credential" in frame["payload"]["message"]
        await ws.send(json.dumps(envelope("agent.hello", {"credential": space.agents[0]["credential"]})))
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "system.welcome"


# ---- fuzzing (hypothesis): every frame exactly one answer, never 1011, the log stays sound ------------------

CATALOGUE = ["conversation.create", "message.create", "message.delta", "task.create", "task.cancel_requested",
             "interaction.respond", "task.accepted", "task.status_changed", "task.child_created",
             "interaction.requested", "artifact.created", "tool.list", "tool.call", "tool.result", "system.ping",
             "agent.hello", "app.hello", "system.ack", "made.up"]
FIELDS = ["content", "messageId", "targetAgentId", "blocks", "title", "description", "agentIds", "parentTaskId",
          "status", "progress", "summary", "error", "interaction", "interactionId", "response", "name", "url",
          "taskId", "reason", "text", "offset", "tools", "call_id", "action", "arguments", "result", "type",
          "options", "id", "optionId", "decision", "expiresAt", "mimeType"]
# Ids of objects that exist (seeded below), of ones that do not, and the agent's own id (filled in at send time).
SAMPLE_IDS = ["c-drill", "c-missing", "t-fuzz", "t-missing", "i-fuzz", "i-choice", "__agent__"]
STATUSES = ["queued", "running", "waiting_for_human", "succeeded", "failed", "cancelled", "paused"]

ids = st.sampled_from(SAMPLE_IDS) | st.text(min_size=1, max_size=12)
short_text = st.text(min_size=1, max_size=30) | st.just("")
scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
           | short_text | st.sampled_from(SAMPLE_IDS + STATUSES))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=3),
                           max_leaves=6)


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the plausible value, sometimes any JSON value: the hub must cope with both."""
    return st.one_of(*[strategy] * 7, json_values)


def _shape(required: dict[str, Any], optional: dict[str, Any] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({k: _maybe(v) for k, v in required.items()},
                                 optional={k: _maybe(v) for k, v in (optional or {}).items()})


interaction_spec = _shape(
    {"type": st.sampled_from(["approval", "choice", "input", "review", "poll"]), "title": short_text},
    {"id": ids, "options": st.lists(_shape({"id": st.sampled_from(["a", "b", "approve"]), "label": short_text}),
                                    max_size=3),
     "multiple": st.booleans(), "format": st.sampled_from(["text", "url", "email", "number", "integer", "x"]),
     "pattern": st.sampled_from(["^a+$", "(", "[0-9]+"]), "expiresAt": st.sampled_from(
         ["2020-01-01T00:00:00Z", "2099-01-01T00:00:00Z", "soon"]), "maxLength": st.integers(-1, 20)})
PLAUSIBLE: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "conversation.create": _shape({"title": short_text}, {"agentIds": st.lists(ids, max_size=3)}),
    "message.create": _shape({}, {"content": short_text, "messageId": ids, "targetAgentId": ids,
                                  "blocks": st.lists(json_values, max_size=2)}),
    "message.delta": _shape({"messageId": ids, "text": short_text, "offset": st.integers(-2, 40)}),
    "task.create": _shape({"title": short_text}, {"targetAgentId": ids, "parentTaskId": ids, "description": short_text}),
    "task.cancel_requested": _shape({}, {"reason": short_text}),
    "interaction.respond": _shape({"interactionId": ids, "response": st.fixed_dictionaries(
        {}, optional={"optionId": st.sampled_from(["a", "b", "approve", "zzz"]), "optionIds": st.lists(
            st.sampled_from(["a", "b"]), max_size=3), "text": short_text,
            "decision": st.sampled_from(["approve", "reject", "maybe"])})}),
    "task.accepted": _shape({}, {"taskId": ids}),
    "task.status_changed": _shape({}, {"status": st.sampled_from(STATUSES), "progress": st.integers(-5, 120),
                                       "summary": short_text, "error": _shape({"code": short_text},
                                                                              {"message": short_text})}),
    "task.child_created": _shape({"parentTaskId": ids, "title": short_text}, {"taskId": ids,
                                                                              "status": st.sampled_from(STATUSES)}),
    "interaction.requested": _shape({"interaction": interaction_spec}),
    "artifact.created": _shape({"name": short_text, "url": short_text}, {"mimeType": short_text, "artifactId": ids}),
    "tool.list": _shape({}, {"tools": st.lists(_shape({"name": st.sampled_from(["calc", "calculator", "x y"])},
                                                      {"description": short_text, "actions": json_values}),
                                               max_size=2)}),
    "tool.call": _shape({"call_id": ids, "name": st.sampled_from(["calculator", "choice", "nope", ""])},
                        {"action": short_text, "arguments": st.dictionaries(st.sampled_from(
                            ["expression", "a", "b", "options", "title"]), json_values, max_size=3),
                         "targetAgentId": ids}),
    "tool.result": _shape({"call_id": ids}, {"name": short_text, "result": st.dictionaries(short_text, json_values,
                                                                                         max_size=2),
                                             "error": _shape({"code": short_text, "message": short_text})}),
}


def _rare(draw: st.DrawFn, n: int) -> bool:
    """True about once in n draws (hypothesis favours boundary integers, so not `integers(0, n) == 0`)."""
    return bool(draw(st.sampled_from(range(n))) == n // 2)


@st.composite
def fuzz_frames(draw: st.DrawFn) -> dict[str, Any] | str:
    """An envelope-shaped dict (its id is filled in at send time) or raw text."""
    if _rare(draw, 10):
        return draw(st.text(max_size=60) | st.sampled_from(["{", "[]", "{}", '{"id": 1}', "null", "0", '{"id": "x"'])
                    | st.builds(json.dumps, json_values))
    type_ = draw(st.text(max_size=70) if _rare(draw, 5) else st.sampled_from(CATALOGUE))
    payload: object
    if type_ in PLAUSIBLE and not _rare(draw, 5):
        payload = draw(PLAUSIBLE[type_])
    elif _rare(draw, 10):
        payload = draw(json_values)
    else:
        payload = draw(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5))
    env: dict[str, Any] = {
        "id": draw(st.sampled_from(["missing", "int", "empty", "long"]) if _rare(draw, 8) else st.just("fresh")),
        "type": type_,
        "version": "0.2" if _rare(draw, 30) else "0.1",
        "occurredAt": "yesterday" if _rare(draw, 20) else "2026-07-24T12:00:00Z",
        "workspaceId": "ws-other" if _rare(draw, 20) else "__workspace__",
        "payload": payload,
    }
    for key in ("conversationId", "taskId", "correlationId"):
        if not _rare(draw, 3 if key == "conversationId" else 2):
            env[key] = draw(json_values if _rare(draw, 20) else st.sampled_from(SAMPLE_IDS))
    if _rare(draw, 30):
        env["sequence"] = draw(st.integers(0, 100))
    if _rare(draw, 20):
        env[draw(st.sampled_from(["version", "occurredAt", "payload", "type"]))] = None  # a missing field
    return env


def _materialise(frame: dict[str, Any] | str, counter: Iterator[int], workspace_id: str,
                 agent_id: str) -> tuple[str, str | None]:
    """The text to send, and the id its answer will carry (None: the hub cannot read one)."""
    if isinstance(frame, str):
        try:
            data = json.loads(frame)
        except ValueError:
            return frame, None
        readable = isinstance(data, dict) and isinstance(data.get("id"), str) and len(data["id"]) <= 128
        return frame, data["id"] if readable else None
    env = {k: v for k, v in frame.items() if v is not None}
    mode = env.pop("id")
    if mode == "fresh":
        env["id"] = f"fz-{next(counter)}"
    elif mode == "int":
        env["id"] = next(counter)
    elif mode == "empty":
        env["id"] = ""
    elif mode == "long":
        env["id"] = "L" * 129
    text = json.dumps(env).replace("__workspace__", workspace_id).replace("__agent__", agent_id)
    answer_id = env.get("id") if isinstance(env.get("id"), str) and len(env["id"]) <= 128 else None
    return text, answer_id


def _answer_key(frame: dict[str, Any]) -> tuple[bool, str | None] | None:
    if frame["type"] in ("system.ack", "system.error"):
        return True, frame["payload"].get("id")
    if frame["type"] == "system.pong":
        return True, frame.get("correlationId")
    return None


def _seed_objects(space: Workspace) -> None:
    """A running task and pending interactions the fuzzed envelopes can hit (or not)."""
    @contextlib.contextmanager
    def hello(kind: str) -> Iterator[Any]:
        with connect_sync(f"{space.hub.ws_base}/ws/{kind}", max_size=None) as ws:
            secret = {"credential": space.agents[0]["credential"]} if kind == "agent" else {"token": space.token}
            ws.send(json.dumps(envelope(f"{kind}.hello", secret)))
            while json.loads(ws.recv(timeout=10))["type"] != "system.caught_up":
                pass
            yield ws

    def ok(ws: Any, workspace_id: str, type_: str, payload: dict[str, Any], **fields: Any) -> None:
        env = envelope(type_, payload, workspace_id, **fields)
        ws.send(json.dumps(env))
        while True:
            frame = json.loads(ws.recv(timeout=10))
            if frame["type"] in ("system.ack", "system.error") and frame["payload"].get("id") == env["id"]:
                assert frame["type"] == "system.ack" or frame["payload"]["code"] == "conflict", frame
                return

    workspace_id = log_rows(space.db_path)[-1]["workspaceId"]
    with hello("app") as app, hello("agent") as agent:
        ok(app, workspace_id, "task.create", {"title": "fuzz target"}, conversationId="c-drill", taskId="t-fuzz")
        ok(agent, workspace_id, "task.accepted", {}, taskId="t-fuzz")
        ok(agent, workspace_id, "interaction.requested", {"interaction": {
            "id": "i-fuzz", "type": "approval", "title": "ok?"}}, taskId="t-fuzz")
        ok(agent, workspace_id, "interaction.requested", {"interaction": {
            "id": "i-choice", "type": "choice", "title": "which?", "multiple": True,
            "options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]}}, conversationId="c-drill")


def test_fuzzed_envelopes_each_get_exactly_one_answer(space: Workspace) -> None:
    hub = space.hub
    _seed_objects(space)
    counter = itertools.count()
    totals = collections.Counter[str]()
    sent = [0]
    agent_id = space.agents[0]["agentId"]

    @settings(max_examples=25, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
    @given(kind=st.sampled_from(["agent", "app"]), frames=st.lists(fuzz_frames(), min_size=15, max_size=40))
    def one_socket(kind: str, frames: list[dict[str, Any] | str]) -> None:
        # At most 40 bad frames a socket: below the flood limit (100 in 10 s), so nothing may close it.
        secret = {"credential": space.agents[0]["credential"]} if kind == "agent" else {"token": space.token}
        with connect_sync(f"{hub.ws_base}/ws/{kind}", max_size=None) as ws:
            ws.send(json.dumps(envelope(f"{kind}.hello", secret)))
            received: list[dict[str, Any]] = []

            def read_until(predicate: Any) -> None:
                while True:
                    frame = json.loads(ws.recv(timeout=20))
                    received.append(frame)
                    if predicate(frame):
                        return

            read_until(lambda f: f["type"] == "system.caught_up")
            workspace_id = received[0]["payload"]["workspaceId"]
            expected = collections.Counter[str | None]()
            for frame in frames:
                text, answer_id = _materialise(frame, counter, workspace_id, agent_id)
                expected[answer_id] += 1
                ws.send(text)
            sent[0] += len(frames)
            # A valid envelope last: the writer and the socket keep order, so its ack comes after every answer.
            fence = envelope("message.create", {"content": "fence"}, workspace_id, conversationId=space.conversation_id)
            ws.send(json.dumps(fence))
            read_until(lambda f: f["type"] in ("system.ack", "system.error") and f["payload"].get("id") == fence["id"])
            got = collections.Counter(key[1] for f in received if (key := _answer_key(f)) is not None)
            got[fence["id"]] -= 1
            got += collections.Counter()  # drop the zero
            assert got == expected, f"answers differ: missing {expected - got}, extra {got - expected}"
            for f in received[:-1]:
                if f["type"] == "system.error":
                    assert f["payload"]["code"] != "internal", f
                    totals[f["payload"]["code"]] += 1
                elif f["type"] == "system.ack":
                    totals["stored" if f["payload"].get("sequence") else "acked, not stored"] += 1
        assert ws.close_code == 1000, f"the hub closed the socket with {ws.close_code}"

    one_socket()
    assert sent[0] >= 300, sent
    # Enough envelopes got past validation into the writer's commands (stored, or refused by domain rules).
    domain = sum(totals[k] for k in ("stored", "not_found", "conflict", "illegal_transition", "already_resolved",
                                     "expired"))
    assert domain >= 20, f"the fuzzer hardly reached the domain: {totals}"
    assert httpx.get(hub.base + "/-/health").status_code == 200
    assert hub.proc is not None and hub.proc.poll() is None
    assert_db_check(hub.data_dir)


def test_the_hub_survived_everything(space: Workspace) -> None:
    """After all of the above: the same process, no unhandled exception in its log, a sound database."""
    hub = space.hub
    assert hub.proc is not None and hub.proc.poll() is None
    assert httpx.get(hub.base + "/-/health").json()["status"] == "ok"
    log = hub.log()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]
    assert_db_check(hub.data_dir)
