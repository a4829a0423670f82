"""Shared fixtures: a real hub process on a loopback port, its owner token, raw LAP sockets closed at teardown."""

from __future__ import annotations

from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator

import pytest

from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient


@pytest.fixture
def hub_factory(tmp_path: Path) -> Iterator[type]:
    """Make hubs with `hub_factory(env={...})`; every one is stopped at the end of the test."""
    started: list[HubProcess] = []

    def make(name: str = "hub", env: dict[str, str] | None = None, start: bool = True) -> HubProcess:
        hub = HubProcess(tmp_path / name, env=env or {})
        started.append(hub)
        return hub.start() if start else hub

    yield make  # type: ignore[misc]
    for hub in started:
        hub.stop()


@pytest.fixture
def hub(hub_factory) -> HubProcess:  # type: ignore[no-untyped-def]
    return hub_factory()  # type: ignore[no-any-return]


@pytest.fixture
def owner_token(hub: HubProcess) -> str:
    return hub.token()


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
