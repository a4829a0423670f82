"""The Hub object in-process: start/stop, execute, commit listeners, and rows the CLI wrote meanwhile."""

from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator

import pytest

from hub.core import Hub
from hub.domain import accounts
from hub.protocol.errors import LapError
from hub.settings import load_settings
from hub.store.events import StoredEvent
from hub.store.writer import Command
from tests.unit.scenario import FAKE_PASSWORD_HASH, append, second_writer_appends


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Hub]:
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={}))
    await hub.start()
    yield hub
    await hub.stop()


async def test_a_new_hub_has_a_setup_code_until_an_owner_exists(hub: Hub) -> None:
    assert hub.setup_code is not None and len(hub.setup_code) == 8
    assert hub.epoch and hub.hub_id and hub.settings.db_path.exists()
    await hub.execute(accounts.create_owner("ada", "Ada", FAKE_PASSWORD_HASH, "Home", "laptop")[0])
    assert hub.setup_code is None


async def test_execute_raises_the_commands_refusal(hub: Hub) -> None:
    def refuse(tx: object) -> None:
        raise LapError("not_found", "nothing here")

    with pytest.raises(LapError) as info:
        await hub.execute(Command(run=refuse))
    assert info.value.code == "not_found"
    assert await hub.execute(append("ok")) == "ok"


async def test_listeners_see_committed_events_and_a_failing_listener_is_contained(hub: Hub) -> None:
    seen: list[int] = []

    def broken(events: list[StoredEvent]) -> None:
        raise RuntimeError("listener bug")

    hub.commit_listeners.extend([broken, lambda events: seen.extend(e.sequence for e in events)])
    await hub.execute(append("a"))
    await hub.execute(append("b"))
    assert seen == [1, 2]


async def test_rows_the_cli_wrote_are_published_once_noticed(hub: Hub) -> None:
    seen: list[str] = []
    hub.commit_listeners.append(lambda events: seen.extend(e.id for e in events))
    await hub.execute(append("hub-1"))
    await hub.notice_foreign_writes()  # the baseline
    await second_writer_appends(hub.db_path, ["cli-1", "cli-2"])
    await hub.notice_foreign_writes()
    assert seen == ["hub-1", "cli-1", "cli-2"]
    assert hub.writer.head == 3
    await hub.execute(append("hub-2"))
    assert seen[-1] == "hub-2" and hub.writer.head == 4


async def test_stop_is_idempotent_and_a_stopped_hub_refuses_writes(tmp_path: Path) -> None:
    hub = Hub(load_settings({"data_dir": tmp_path}, environ={}))
    await hub.start()
    await hub.stop()
    await hub.stop()
    outcome = await hub.writer.execute(append("late"))
    assert outcome.error is not None and outcome.error.code == "internal"
