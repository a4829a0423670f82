"""Hooks go through pluggy's hook caller (`pm.hook.<name>(...)`), so a plugin's wrapper sees every call and may
change its results, while a plugin that raises is still reported by name without taking the others down."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pluggy

from hub import hookimpl
from hub.pluginhost.manager import make_plugin_manager
from hub.testing import TestHub, ToolCallError


class HidesCalculator:
    """A new-style wrapper around register_tools (it rebuilds the lists) and an old-style one around after_commit."""

    def __init__(self) -> None:
        self.commits: list[int] = []      # how many events each after_commit call carried, seen from outside
        self.inner_ran: list[bool] = []   # whether the plugins' after_commit had run when the wrapper resumed

    @hookimpl(wrapper=True)
    def register_tools(self, hub: Any) -> Generator[None, list[list[Any]], list[list[Any]]]:
        groups = yield
        return [[t for t in group if not (isinstance(t, dict) and t.get("name") == "calculator")] for group in groups]

    @hookimpl(hookwrapper=True)
    def after_commit(self, events: list[Any]) -> Generator[None, pluggy.Result[Any], None]:
        self.commits.append(len(events))
        outcome = yield
        self.inner_ran.append(outcome.exception is None)


class Counter:
    def __init__(self) -> None:
        self.events = 0

    @hookimpl
    def after_commit(self, events: list[Any]) -> None:
        self.events += len(events)

    @hookimpl
    def register_tools(self) -> list[Any]:
        def ping() -> str:
            """Answer pong."""
            return "pong"
        return [ping]


async def test_a_wrapper_hook_changes_what_the_plugins_register_and_sees_every_commit() -> None:
    wrapper, counter = HidesCalculator(), Counter()
    async with TestHub({"hider": wrapper, "counter": counter}) as hub:
        tools = {t["name"]: t for t in await hub.list_tools()}
        assert "calculator" not in tools  # the built-in's definition was taken out by the wrapper
        assert {"canvas", "choice", "ping"} <= set(tools)
        # The lists were rebuilt by the wrapper, yet each tool is still credited to the plugin that made it.
        assert tools["ping"]["provider"]["plugin"] == "counter" and tools["canvas"]["provider"]["plugin"] == "canvas"
        try:
            await hub.call_tool("calculator", {"a": 1, "b": 2}, action="add")
            raise AssertionError("the hidden calculator answered")
        except ToolCallError as exc:
            assert exc.code == "unknown_tool"
        assert await hub.call_tool("ping") == {"message": "pong"}
        # after_commit: the wrapper saw every batch the plain implementation saw, around it.
        assert wrapper.commits and sum(wrapper.commits) == counter.events
        assert all(wrapper.inner_ran)


class Raises:
    @hookimpl
    def register_ui_modules(self) -> list[str]:
        raise RuntimeError("no modules today")


class BrokenWrapper:
    @hookimpl(wrapper=True)
    def register_ui_modules(self) -> Generator[None, list[list[str]], list[list[str]]]:
        yield
        raise ValueError("the wrapper broke")


def test_a_raising_plugin_or_wrapper_is_reported_by_name_and_the_others_still_answer() -> None:
    host = make_plugin_manager(user_dir=None, include_entry_points=False,
                               extra_plugins={"raises": Raises(), "broken_wrapper": BrokenWrapper()})
    found = host.collect("register_ui_modules", hub=None)
    assert found == [("canvas", "/plugins/canvas/static/lineup-canvas.js")]
    assert sorted((f.name, f.reason) for f in host.failures) == [
        ("broken_wrapper", "a wrapper of register_ui_modules raised ValueError: the wrapper broke"),
        ("raises", "register_ui_modules raised RuntimeError: no modules today")]
    assert host.pm.get_plugin("raises") is None and host.pm.get_plugin("broken_wrapper") is None
    assert host.collect("register_ui_modules", hub=None) == found  # and afterwards without them
