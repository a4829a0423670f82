"""`lineup token` and `lineup pair` run in the test's own process: the CLI's own commands through its
`_run_command`, against the hub's data folder, as the CLI does from a process of its own while a hub runs.

A new interpreter per token cost a second or more (Python's start and the hub's imports), for hundreds of
tokens a suite run. The CLI itself is still run as a process where it is what is tested
(tests/integration/test_first_run.py, tests/packaging/, through tests/support/hubproc.py run_cli).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from hub.settings import Settings, load_settings

T = TypeVar("T")


def run_in_thread(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine on a fresh loop in a worker thread: callable from sync code and from inside a running loop."""
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="lineup-cli") as pool:
        return pool.submit(asyncio.run, make()).result(60)  # type: ignore[arg-type]


def cli_settings(data_dir: Path) -> Settings:
    """The settings `lineup token --data-dir D` loads in the test's environment (a hub's own `env` is not the
    command's)."""
    return load_settings({"data_dir": data_dir})


def cli_token(data_dir: Path, workspace: str | None = None, name: str = "cli token") -> str:
    """What `lineup token [--workspace W] --data-dir D` prints."""
    from hub.cli import _run_command
    from hub.domain import accounts

    settings = cli_settings(data_dir)
    result = run_in_thread(lambda: _run_command(settings, accounts.owner_device_for_cli(workspace, name)))
    return str(result["token"])


def cli_pairing_code(data_dir: Path, name: str | None = None, workspace: str | None = None) -> str:
    """What `lineup pair [--name N] [--workspace W] --data-dir D` prints: the commands hub/cli.py's `pair` runs,
    in the same order."""
    from hub.cli import _run_command
    from hub.domain import accounts
    from hub.protocol.actors import Actor

    settings = cli_settings(data_dir)

    async def run() -> str:
        owner = await _run_command(settings, accounts.owner_device_for_cli(workspace, "cli pairing"))
        actor = Actor("user", owner["userId"], owner["workspaceId"], device_id=owner["deviceId"])
        command, code = accounts.create_pairing_code(actor, name, settings.pairing_code_ttl_s)
        await _run_command(settings, command)
        await _run_command(settings, accounts.revoke_device(actor, owner["deviceId"]))
        return str(code)

    return run_in_thread(run)
