"""Fixtures of the integration tests: raw LAP sockets that are closed when the test ends."""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable

import pytest

from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient

Connect = Callable[..., Awaitable[LapClient]]


@pytest.fixture
async def lap() -> AsyncIterator[Connect]:
    """`await lap(hub, "agent"|"app", secret, **hello)`: a LapClient closed at teardown."""
    opened: list[LapClient] = []

    async def connect(hub: HubProcess, kind: str, secret: str, **kwargs: Any) -> LapClient:
        client = await LapClient.connect(hub.ws_base, kind, secret, **kwargs)
        opened.append(client)
        return client

    yield connect
    for client in opened:
        await client.close()
