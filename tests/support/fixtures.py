"""The types of the shared fixtures' callables, for the parameters of the tests that ask for them by name.

pytest hands a fixture's value to a test by the parameter's name; these say what that value is. The hubs of
`hub_factory` and `hub` are InProcessHub or HubProcess (tests/support/hubs.py), which share one interface; the suite
names both HubProcess, as the helpers that take a hub do. Playwright and the e2e conftest are imported for the type
checker only, so that importing this module starts no browser machinery (tests/conftest.py marks a test module that
imports Playwright as slow).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

from tests.support.hubs import HubProcess

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, ViewportSize

    from tests.e2e.conftest import DemoAgent
    from tests.e2e.main_thread import MainThreadTasks


class HubFactory(Protocol):
    """tests/conftest.py's `hub_factory(name="hub", env=None, start=True, process=None)`."""

    def __call__(self, name: str = "hub", env: dict[str, str] | None = None, start: bool = True,
                 process: bool | None = None) -> HubProcess: ...


class OpenPage(Protocol):
    """tests/e2e/conftest.py's `open_page(hub, viewport=DESKTOP, locale="en-US", token=None, path="/", context=None)`."""

    def __call__(self, hub: HubProcess, viewport: ViewportSize = ..., locale: str = "en-US",
                 token: str | None = None, path: str = "/", context: BrowserContext | None = None) -> Page: ...


class DemoAgents(Protocol):
    """tests/e2e/conftest.py's `demo_agents(hub, code, step_s=0.3)`."""

    def __call__(self, hub: HubProcess, code: str, step_s: float = 0.3) -> DemoAgent: ...


Shots: TypeAlias = "Callable[[Page, str], Path]"  # `shots(page, "name")`: the screenshot's path
MainThread: TypeAlias = "Callable[[], MainThreadTasks]"  # `main_thread()`: a started trace
AskerAgent: TypeAlias = Callable[[HubProcess, str], "subprocess.Popen[str]"]  # `asker_agent(hub, code)`
