"""The Hub object in-process: start/stop, execute, the commit bus, and rows the CLI wrote meanwhile."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hub.core import Hub
from hub.domain import accounts
from hub.gateway.presence import Presence
from hub.hookspecs import hookimpl
from hub.notify.service import Notifier
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

    hub.bus.subscribe(broken)
    hub.bus.subscribe(lambda events: seen.extend(e.sequence for e in events))
    await hub.execute(append("a"))
    await hub.execute(append("b"))
    assert seen == [1, 2]


async def test_rows_the_cli_wrote_are_published_once_noticed(hub: Hub) -> None:
    seen: list[str] = []
    hub.bus.subscribe(lambda events: seen.extend(e.id for e in events))
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


# ---- one commit bus, and start/stop unwinding in reverse ---------------------------------

STOPS = {"supervisor": ("hub.runtimes.supervisor.Supervisor", "stop"), "relay": ("hub.relay.uplink.Uplink", "stop"),
         "tool_router": ("hub.tools.router.ToolRouter", "stop"), "notifier": ("hub.notify.service.Notifier", "stop"),
         "ticker": ("hub.ticker.Ticker", "stop"), "streams": ("hub.gateway.streams.Streams", "flush_all"),
         "writer": ("hub.store.writer.Writer", "stop"), "anchorer": ("hub.store.anchor.Anchorer", "stop"),
         "connection": ("aiosqlite.Connection", "close")}


class Lifecycle:
    """A plugin that records the shutdown hook among the parts' stops."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.after_commit_seen: list[int] = []

    @hookimpl
    def shutdown(self, hub: Hub) -> None:
        self.calls.append("plugins.shutdown")

    @hookimpl
    def after_commit(self, hub: Hub, events: list[StoredEvent]) -> None:
        self.after_commit_seen.extend(e.sequence for e in events)


def record_stops(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    for label, (path, attribute) in STOPS.items():
        module_name, class_name = path.rsplit(".", 1)
        cls = getattr(importlib.import_module(module_name), class_name)
        original = getattr(cls, attribute)

        async def recorded(self: Any, *args: Any, _original: Any = original, _label: str = label) -> Any:
            calls.append(_label)
            return await _original(self, *args)

        monkeypatch.setattr(cls, attribute, recorded)


async def test_every_part_hears_of_commits_through_the_bus_in_one_order(hub: Hub) -> None:
    # The gateway first (sockets and the replay window before anything reacts), the plugins' hook near the end;
    # the relay subscribes after it when [relay] is set.
    assert hub.bus.names() == ["gateway.fan_out", "gateway.presence", "gateway.streams", "gateway.close_revoked",
                               "tool_router", "notifier", "hub", "plugins.after_commit"]


async def test_one_housekeeping_tick_runs_every_parts_timers_in_one_order(hub: Hub) -> None:
    # Presence does not call into the tool router: the hub's ticker (hub/ticker.py) runs each part's due timers.
    assert [name for name, _ in hub.ticker.steps] == ["presence", "streams", "tool calls", "foreign writes"]


async def test_a_failing_part_does_not_keep_commits_from_the_parts_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Any, events: list[StoredEvent]) -> None:
        raise RuntimeError("presence bug")

    monkeypatch.setattr(Presence, "observe", broken)
    plugin = Lifecycle([])
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={}), plugins={"lifecycle": plugin})
    await hub.start()
    try:
        await hub.execute(append("a"))
        await hub.execute(accounts.create_owner("ada", "Ada", FAKE_PASSWORD_HASH, "Home", "laptop")[0])
        # The plugins' hook (after the broken part) saw every event: 1 for "a", then the owner's.
        assert plugin.after_commit_seen == list(range(1, hub.writer.head + 1)) and hub.writer.head > 1
        assert hub.setup_code is None  # the hub's own subscriber, after the broken part
    finally:
        await hub.stop()


async def test_stop_keeps_its_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    record_stops(monkeypatch, calls)
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={}), plugins={"lifecycle": Lifecycle(calls)})
    await hub.start()
    assert calls == []
    await hub.stop()
    assert calls == ["supervisor", "relay", "tool_router", "notifier", "plugins.shutdown", "ticker", "streams",
                     "writer", "anchorer", "connection", "connection", "connection"]


async def test_a_start_that_fails_half_way_stops_what_it_started_in_reverse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    record_stops(monkeypatch, calls)

    async def broken(self: Any) -> None:
        raise RuntimeError("notifier cannot start")

    monkeypatch.setattr(Notifier, "start", broken)
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={}), plugins={"lifecycle": Lifecycle(calls)})
    with pytest.raises(RuntimeError, match="notifier cannot start"):
        await hub.start()
    # Everything before the notifier is undone (the relay and the supervisor never started); stop() has nothing left.
    assert calls == ["tool_router", "notifier", "plugins.shutdown", "ticker", "streams", "writer", "anchorer",
                     "connection", "connection", "connection"]
    assert not hub.started
    await hub.stop()
    assert len(calls) == 10
    outcome = await hub.writer.execute(append("late"))
    assert outcome.error is not None and outcome.error.code == "internal"
