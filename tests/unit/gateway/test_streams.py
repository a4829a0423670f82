"""Closing a stream stores its text before it forgets it: nothing streamed is out of sight while it is written."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from types import SimpleNamespace
from typing import Any, cast

from hub.core import Hub
from hub.gateway.streams import Stream, Streams
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope
from hub.protocol.payloads import MessageDelta

AGENT = Actor("agent", "a1", "w1")
KEY = ("w1", "m1")


class SlowStore:
    """A hub whose writes wait until the test lets them through, and which records what each write stored."""

    def __init__(self) -> None:
        self.settings = SimpleNamespace(stream_idle_s=1.0, stream_snapshot_s=3600.0, max_open_streams_per_agent=16)
        self.broker = SimpleNamespace(publish_transient=lambda workspace_id, frame: None)
        self.gate = asyncio.Event()
        self.writing = asyncio.Event()
        self.stored: list[int] = []

    async def execute(self, command: Any) -> None:
        self.stored.append(self.length_of(command))
        self.writing.set()
        await self.gate.wait()

    length_of = staticmethod(lambda command: -1)  # replaced per test: the stream's length when the write began


def idle_stream(streams: Streams, text: str) -> Stream:
    stream = Stream(AGENT, "c1", None, text, 0, last_saved=0.0, last_active=0.0)
    streams.open[KEY] = stream
    streams.by_agent[("w1", "a1")] = OrderedDict({KEY: None})
    return stream


def delta_envelope(offset: int, text: str) -> tuple[Envelope, MessageDelta]:
    payload: dict[str, Any] = {"messageId": "m1", "offset": offset, "text": text}
    env = Envelope(id="d1", type="message.delta", version=PROTOCOL_VERSION, occurredAt="2026-01-01T00:00:00Z",
                   payload=payload, conversationId="c1")
    return env, MessageDelta(messageId="m1", offset=offset, text=text)


async def test_an_idle_stream_stays_open_until_its_text_is_stored() -> None:
    hub = SlowStore()
    streams = Streams(cast(Hub, hub))  # a fake with the parts Streams uses
    stream = idle_stream(streams, "half a thought")
    hub.length_of = lambda command: len(stream.content)
    closing = asyncio.create_task(streams.flush_due())
    await hub.writing.wait()
    assert KEY in streams.open  # a reader now finds the text in memory, not yet in the store
    hub.gate.set()
    await closing
    assert KEY not in streams.open and not streams.by_agent
    assert hub.stored == [len("half a thought")]


async def test_a_delta_while_an_idle_stream_is_stored_keeps_it_open_with_all_its_text() -> None:
    hub = SlowStore()
    streams = Streams(cast(Hub, hub))  # a fake with the parts Streams uses
    stream = idle_stream(streams, "half a thought")
    closing = asyncio.create_task(streams.flush_due())
    await hub.writing.wait()
    # The agent goes on while the hub writes: the delta extends the open stream (before, it reopened the message
    # from a store that did not hold "half a thought" yet and was refused: text before the offset was missing).
    await streams.delta(AGENT, *delta_envelope(len("half a thought"), ", finished"))
    hub.gate.set()
    await closing
    assert streams.open.get(KEY) is stream and stream.content == "half a thought, finished"


async def test_a_stream_closed_for_the_limit_is_stored_whole_even_if_a_delta_lands_meanwhile() -> None:
    hub = SlowStore()
    streams = Streams(cast(Hub, hub))  # a fake with the parts Streams uses
    stream = idle_stream(streams, "first part")
    hub.length_of = lambda command: len(stream.content)
    closing = asyncio.create_task(streams._close(KEY))
    await hub.writing.wait()
    await streams.delta(AGENT, *delta_envelope(len("first part"), " and the rest"))
    hub.gate.set()
    await closing
    assert KEY not in streams.open
    assert hub.stored == [len("first part"), len("first part and the rest")]  # the late delta is stored too
