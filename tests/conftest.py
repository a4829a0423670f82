"""Shared fixtures: a real hub on a loopback port (in this process by default, a `lineup serve` child process on
request), its owner token, raw LAP sockets closed at teardown."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def cache_bytecode() -> None:
    """Compiled modules are kept, outside the tree, where the environment says not to write them.

    With PYTHONDONTWRITEBYTECODE set (some containers and CI images set it) every worker compiled and assertion-
    rewrote every test module it collected, and every `lineup serve` or `lineup …` child compiled hub/ again: 7 of
    a worker's 11 CPU-s of collection and 0.2 of a hub process's 0.75 CPU-s to start and stop. Here they go to a
    cache folder of their own (PYTHONPYCACHEPREFIX, which the workers and every child inherit), so the checkout
    still gets no __pycache__ folders."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lineup-agents" / "pycache"
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(cache))
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False


cache_bytecode()  # before the imports below, so the hub's own modules are cached too

from tests.support.hubs import HubProcess, InProcessHub, start_hub  # noqa: E402
from tests.support.lap import LapClient  # noqa: E402
from tests.support.reuse import share_default_tls_context  # noqa: E402

share_default_tls_context()  # one TLS context for the tests' httpx clients, not one per call (tests/support/reuse.py)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl+C reaches the processes the tests start, as it does under a terminal.

    A shell without job control starts a background job (`pytest … &` in a script, CI runners that detach) with
    SIGINT ignored, and an ignored signal stays ignored in every child: the demo agents the tests stop with SIGINT
    then never see it and are killed after the 10 s the tests wait, one test after another. Python's own handler,
    put back here, is reset to the default at exec, so every child gets SIGINT as a terminal would deliver it."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The order the parallel run (`-n 5 --dist loadfile` in pyproject.toml: a worker takes a whole file at a time, so a
# file's module and session fixtures are made once) hands the files out in: the longest first, so that no long file
# starts last and keeps one worker busy alone while the others are idle (the PyInstaller build and mDNS's waits
# first; the unit tests fill the gaps at the end).
FILE_ORDER = ("tests/packaging/test_executable.py", "tests/integration/test_openclaw_channel.py",
              "tests/integration/test_hermes_openclaw_acp.py",
              "tests/integration/test_hermes_platform.py",
              "tests/integration/test_discovery.py", "tests/integration/",
              "tests/e2e/", "tests/security/", "tests/reliability/", "tests/packaging/", "tests/plugins/",
              "tests/unit/")


def file_rank(nodeid: str) -> int:
    return next((rank for rank, prefix in enumerate(FILE_ORDER) if nodeid.startswith(prefix)), len(FILE_ORDER))


# The fast loop (`pytest -m "not slow"`, README "Run the tests"): what starts a browser, a published agent CLI, the
# PyInstaller build, a wheel's install or the TypeScript SDK's npm test is `slow` without each file saying so; the rest (unit, in-process hubs, `lineup serve` children,
# the security and reliability drills that need neither) is the everyday loop. Both are the suite CI runs.
SLOW_PATHS = ("tests/e2e/", "tests/packaging/", "tests/integration/test_typescript_sdk.py")  # + the wheel's install, npm test
SLOW_MODULES = ("tests.support.browsers", "playwright")


def uses_slow_parts(item: pytest.Item) -> bool:
    """Whether the test drives Chromium, a real agent CLI or the executable's build (or says it is slow)."""
    if item.get_closest_marker("slow") or item.get_closest_marker("real_agent") or item.nodeid.startswith(SLOW_PATHS):
        return True
    module = getattr(item, "module", None)
    names = (value.__name__ if isinstance(value, ModuleType) else str(getattr(value, "__module__", "") or "")
             for value in vars(module).values()) if module is not None else ()
    return any(name.startswith(SLOW_MODULES) for name in names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the slow parts (above). In a parallel run's workers only (a serial run keeps pytest's order): every
    worker sorts alike, so all collect the same list, as xdist requires, and `--no-loadscope-reorder` keeps it."""
    for item in items:
        if not item.get_closest_marker("slow") and uses_slow_parts(item):
            item.add_marker(pytest.mark.slow)
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: file_rank(item.nodeid))


@pytest.fixture
def hub_factory(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[type]:
    """Make hubs with `hub_factory(env={...})`; every one is stopped at the end of the test.

    By default the hub runs in this process (tests/support/hubs.py's InProcessHub: real uvicorn on a port of its
    own, real SQLite). `process=True` runs `lineup serve` as a child process instead, for what needs one: kill -9, SIGSTOP,
    signals, environment variables the hub reads from os.environ, the command line's own behaviour; a test marked
    `@pytest.mark.hub_process` gets processes from every fixture built on this one (`hub`, its own worlds)."""
    started: list[HubProcess | InProcessHub] = []
    default = request.node.get_closest_marker("hub_process") is not None

    def make(name: str = "hub", env: dict[str, str] | None = None, start: bool = True,
             process: bool | None = None) -> HubProcess | InProcessHub:
        hub = start_hub(tmp_path / name, env, process=default if process is None else process, start=False)
        started.append(hub)
        return hub.start() if start else hub

    yield make  # type: ignore[misc]
    errors = []
    for hub in started:
        try:
            hub.stop()
        except Exception as exc:  # noqa: BLE001 - stop every hub, then report
            errors.append(exc)
    if errors:
        raise errors[0]


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
