"""The Python SDK keeps running whatever a hub sends it: every malformed frame of tests/support/bad_frames.json (the
corpus the TypeScript SDK's own tests send too) is logged and ignored by a running client, which stays connected (or
connects again after a frame its WebSocket library refuses) and still handles a good task sent afterwards. Before,
`[1,2,3]` or a task whose `sequence` was "abc" ended `run()` with a TypeError.

The fake hub is a loopback WebSocket server speaking just enough of the protocol (hello, welcome, caught_up, acks).
Hypothesis adds frames the corpus does not hold: any JSON, and valid frames with one field set to any JSON value."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.server import ServerConnection

from hub.sdk import AgentClient, Credential, TaskHandle, frames
from tests.support import bad_frames

CORPUS = json.loads(bad_frames.CORPUS.read_text())


def test_the_corpus_is_what_its_module_makes() -> None:
    assert bad_frames.CORPUS.read_text() == bad_frames.render(bad_frames.build()), \
        "tests/support/bad_frames.json is out of date: run `python -m tests.support.bad_frames` and commit it"


def wire(entry: dict[str, Any]) -> str | bytes:
    """What the fake hub sends for an entry, as the websockets client hands it to the SDK."""
    if "json" in entry:
        return json.dumps(entry["json"])
    if "text" in entry:
        return str(entry["text"])
    if "binary" in entry:
        return str(entry["binary"]).encode()
    return bytes.fromhex(entry["utf8Hex"])


def test_every_valid_frame_of_the_corpus_module_passes_and_every_bad_one_is_refused() -> None:
    for frame in bad_frames.valid_frames():
        assert frames.parse(json.dumps(frame)) == (frame, ""), frame["type"]
    assert {f["type"] for f in bad_frames.valid_frames()} == set(cast(Mapping[str, Any], frames._validator().schema)["properties"]["type"][
        "enum"]), "a valid frame of every type the hub sends an agent"
    for entry in CORPUS["frames"]:
        if "utf8Hex" in entry:
            continue  # refused by the WebSocket library before the SDK sees it
        parsed, why = frames.parse(wire(entry))
        assert parsed is None and why, entry["name"]
    for entry in CORPUS["welcomes"]:  # broken, or another frame than the answer to a hello
        parsed, why = frames.parse(wire(entry))
        assert parsed is None or parsed["type"] not in ("system.welcome", "system.error"), entry["name"]


class FakeHub:
    """Answers hellos (the corpus's bad welcomes first), then sends every bad frame and a good task."""

    def __init__(self) -> None:
        self.welcomes = list(CORPUS["welcomes"])
        self.pending = list(CORPUS["frames"])
        self.connections = 0
        self.acked: list[dict[str, Any]] = []

    @staticmethod
    def frame(type_: str, payload: dict[str, Any], **fields: Any) -> str:
        return json.dumps({"id": f"sys_{type_}_{fields.get('sequence', 0)}", "type": type_, "version": "0.1",
                           "occurredAt": "2026-01-01T00:00:00.000Z", "workspaceId": bad_frames.WORKSPACE,
                           "payload": payload, **fields})

    async def send(self, ws: ServerConnection, entry: dict[str, Any]) -> None:
        data = wire(entry)
        await ws.send(data, text="utf8Hex" in entry or isinstance(data, str))

    async def handle(self, ws: ServerConnection) -> None:
        self.connections += 1
        with contextlib.suppress(websockets.ConnectionClosed):
            hello = json.loads(await ws.recv())
            assert hello["type"] == "agent.hello"
            if self.welcomes:
                await self.send(ws, self.welcomes.pop(0))
                await ws.wait_closed()  # the client gives up on this connection
                return
            await ws.send(self.frame("system.welcome", {"workspaceId": bad_frames.WORKSPACE,
                                                        "heartbeatIntervalMs": 25000, "epoch": "e1",
                                                        "headSequence": 0, "agentId": bad_frames.AGENT,
                                                        "openTasks": [{"taskId": 42}, {"title": 5}, {}]}))
            await ws.send(self.frame("system.caught_up", {"sequence": 0}))
            reader = asyncio.create_task(self.ack(ws))
            while self.pending:
                entry = self.pending.pop(0)
                await self.send(ws, entry)
                if entry.get("reconnects"):
                    await ws.wait_closed()  # the client's library closes it (1007)
                    reader.cancel()
                    return
            await ws.send(self.frame("task.assigned", {"title": "after the corpus", "agentId": bad_frames.AGENT,
                                                       "status": "queued", "createdBy": {"kind": "user", "id": "u"}},
                                     sequence=CORPUS["goodTaskSequence"], taskId="t-good"))
            await reader

    async def ack(self, ws: ServerConnection) -> None:
        async for raw in ws:
            envelope = json.loads(raw)
            if envelope["type"] != "system.ping":
                self.acked.append(envelope)
                await ws.send(self.frame("system.ack", {"id": envelope["id"], "sequence": 2000 + len(self.acked)}))


@pytest.fixture
async def fake_hub() -> AsyncIterator[tuple[FakeHub, int]]:
    hub = FakeHub()
    async with websockets.serve(hub.handle, "127.0.0.1", 0, max_size=None, compression=None) as server:
        yield hub, server.sockets[0].getsockname()[1]


@pytest.mark.timeout(120)
async def test_the_python_sdk_survives_every_bad_frame_and_handles_the_next_task(
        fake_hub: tuple[FakeHub, int], caplog: pytest.LogCaptureFixture) -> None:
    hub, port = fake_hub
    client = AgentClient(Credential(f"http://127.0.0.1:{port}", bad_frames.AGENT, bad_frames.WORKSPACE, "secret"),
                         backoff_initial_s=0.01, backoff_max_s=0.05)
    handled: list[str] = []

    @client.on_task
    async def work(task: TaskHandle) -> None:
        handled.append(task.title)
        await task.accept()
        await task.succeed("done")

    caplog.set_level(logging.INFO, logger="lineup.sdk")
    runner = asyncio.create_task(client.run())
    try:
        async with asyncio.timeout(90):
            while not any(e["type"] == "task.status_changed" for e in hub.acked):
                assert not runner.done(), runner.exception() if not runner.cancelled() else "cancelled"
                await asyncio.sleep(0.02)
    finally:
        await client.close()
        await asyncio.gather(runner, return_exceptions=True)
    assert handled == ["after the corpus"]
    reconnecting = [e for e in CORPUS["frames"] if e.get("reconnects")]
    assert hub.connections == 1 + len(CORPUS["welcomes"]) + len(reconnecting)
    # Each frame the SDK saw was counted as broken (the library refused the non-UTF-8 ones itself; a welcome of
    # another type is a failed connection), and the three openTasks entries of each good welcome.
    good_welcomes = 1 + len(reconnecting)
    broken_welcomes = [e for e in CORPUS["welcomes"] if frames.parse(wire(e))[0] is None]
    assert client._bad_frames == len(CORPUS["frames"]) - len(reconnecting) + len(broken_welcomes) \
        + 3 * good_welcomes
    logged = [r.getMessage() for r in caplog.records if "breaks the protocol" in r.getMessage()]
    assert logged and logged[0].startswith("ignoring a frame from the hub that breaks the protocol ("), logged[:3]
    assert client.last_sequence == CORPUS["goodTaskSequence"]


# ---- frames the corpus does not hold ------------------------------------------------------------------------------

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                max_size=4), max_leaves=20)
VALID = bad_frames.valid_frames()


@st.composite
def one_field_changed(draw: st.DrawFn) -> dict[str, Any]:
    frame: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(VALID)))
    holder = frame
    while True:
        key = draw(st.sampled_from(sorted(holder)))
        if isinstance(holder[key], dict) and holder[key] and draw(st.booleans()):
            holder = holder[key]
            continue
        holder[key] = draw(JSON)
        return frame


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON | one_field_changed())
async def test_any_frame_the_schema_lets_through_is_handled_without_an_error(value: Any) -> None:
    client = AgentClient(Credential("http://127.0.0.1:9", bad_frames.AGENT, bad_frames.WORKSPACE, "secret"))
    client._live = True
    frame, why = frames.parse(json.dumps(value))
    if frame is None:
        assert why
        return
    client._on_frame(frame)  # not through _on_raw, which would log an error instead of raising it
    assert 0 <= client.last_sequence <= frames.MAX_SEQUENCE
    for task in list(client._background):
        task.cancel()
    await asyncio.gather(*client._background, return_exceptions=True)
