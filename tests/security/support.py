"""Helpers of the security tests: a served hub whose console (the banner) and log are kept apart, in this process
by default and as `lineup serve` where a test needs a process; an in-process hub reached through ASGI with any client
address, a recording TCP proxy, and a runner for async set-up code in module-scoped fixtures.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import typing
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

from hub.app import create_app
from hub.core import Hub
from hub.settings import ENV_PREFIX, Settings, load_settings
from tests.support.hubproc import recorded_port, run_cli
from tests.support.inproc import InProcessHub as ThreadHub

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]


def run_async(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run async set-up code from a synchronous (module-scoped) fixture, on a loop of its own in a thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, make()).result()


def _settings_only(env: dict[str, str]) -> bool:
    known = {ENV_PREFIX + name.upper() for name in typing.get_type_hints(Settings)}
    return set(env) <= known


@dataclass
class ServedHub:
    """A hub served by real uvicorn on a loopback port; the console banner a person reads and the log are written
    to two files, so a test can tell what the hub shows its owner from what it logs.

    In this process by default (tests/support/inproc.py, on a thread and loop of its own). `lineup serve` as a child
    process (`process=True`, and whenever `args` or an environment variable the hub reads from os.environ are
    given) where the test needs one: kill -9, the process's own limits, what the process writes to stdout/stderr
    by any means (the secret-leak tests), command-line TLS options."""

    data_dir: Path
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    port: int = 0
    tls: bool = False
    process: bool | None = None
    proc: subprocess.Popen[str] | None = None
    thread_hub: ThreadHub | None = None

    def __post_init__(self) -> None:
        if self.process is None:
            self.process = bool(self.args) or self.host != "127.0.0.1" or not _settings_only(self.env)

    @property
    def out_path(self) -> Path:
        return self.data_dir.parent / f"{self.data_dir.name}-stdout.txt"

    @property
    def err_path(self) -> Path:
        return self.data_dir.parent / f"{self.data_dir.name}-stderr.txt"

    @property
    def base(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://{self.host}:{self.port}"

    def start(self, timeout_s: float = 20.0) -> ServedHub:
        """Start it and return once it answers /-/health. Port 0 (the default): the hub binds a free port itself
        and records which (hub/serving.py), so no parallel test can take it in between; a restart reuses it."""
        if not self.process:
            if self.thread_hub is None:
                self.thread_hub = ThreadHub(self.data_dir, port=self.port, env=dict(self.env),
                                            log_path=self.err_path, console_path=self.out_path)
            self.thread_hub.env = dict(self.env)
            self.thread_hub.start(timeout_s)
            self.port = self.thread_hub.port
            return self
        env = {**os.environ, "LINEUP_LOG_LEVEL": "warning", **self.env}
        with open(self.out_path, "a") as out, open(self.err_path, "a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hub", "serve", "--host", self.host, "--port", str(self.port),
                 "--data-dir", str(self.data_dir), "--no-mdns", *self.args],
                stdout=out, stderr=err, text=True, env=env, cwd=ROOT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hub exited with {self.proc.returncode}:\n{self.banner()}\n{self.log()}")
            if not self.port:
                self.port = recorded_port(self.data_dir, self.proc.pid)
                if not self.port:
                    time.sleep(0.05)
                    continue
            try:
                if httpx.get(self.base + "/-/health", timeout=1, verify=False).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"hub did not answer within {timeout_s} s:\n{self.banner()}\n{self.log()}")

    def banner(self) -> str:
        return self.out_path.read_text() if self.out_path.exists() else ""

    def log(self) -> str:
        if self.thread_hub is not None:
            return self.thread_hub.log()
        return self.err_path.read_text() if self.err_path.exists() else ""

    def wait_banner(self, pattern: str, timeout_s: float = 10.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            match = re.search(pattern, self.banner())
            if match:
                return match
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} not printed within {timeout_s} s:\n{self.banner()}")

    def stop(self, timeout_s: float = 15.0) -> None:
        if self.thread_hub is not None:
            self.thread_hub.stop(timeout_s)
            return
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return run_cli(self.data_dir, *args, check=check)

    def token(self, workspace: str | None = None) -> str:
        return self.cli("token", *(["--workspace", workspace] if workspace else [])).stdout.strip()


# ---- an in-process hub, reached with any client address ------------------------------------------------------

@dataclass
class AsgiHub:
    """The real ASGI app and Hub in this process; `client(address)` is an httpx client whose requests arrive from
    that address (scope["client"]), so policies that depend on the caller's address can be tested without a LAN."""

    hub: Hub
    app: Any

    def client(self, address: str = "127.0.0.1", host: str | None = None) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, client=(address, 50000))
        return httpx.AsyncClient(transport=transport, base_url=f"http://{host or '192.0.2.10'}", timeout=30)


@contextlib.asynccontextmanager
async def asgi_hub(data_dir: Path) -> AsyncIterator[AsgiHub]:
    hub = Hub(load_settings({"data_dir": data_dir, "mdns": False}, environ={}))
    app = create_app(hub.settings, hub)
    async with app.router.lifespan_context(app):  # runs hub.start(): plugins and their routes are loaded
        yield AsgiHub(hub, app)


# ---- a TCP proxy that records the request line of every HTTP request passing through -------------------------

REQUEST_LINE = re.compile(rb"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) HTTP/1\.[01]\r\n")


class RecordingProxy:
    """Listens on a loopback port and forwards every connection to the hub; keeps every request target (path and
    query) the clients sent, whatever client it was (httpx, websockets, the SDK's urllib)."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.targets: list[str] = []
        self.server: asyncio.Server | None = None
        self.port = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._done: set[asyncio.Future[None]] = set()

    async def start(self) -> RecordingProxy:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._done.add(done)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            done.set_result(None)
            return
        self._writers.update((writer, up_writer))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, record: bool) -> None:
            pending = b""
            try:
                while data := await src.read(65536):
                    if record:
                        pending = (pending + data)[-70000:]
                        for match in REQUEST_LINE.finditer(pending):
                            self.targets.append(match.group(2).decode("latin1"))
                        pending = pending[pending.rfind(b"\r\n") + 2:] if b"\r\n" in pending else pending
                    dst.write(data)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                with contextlib.suppress(Exception):
                    dst.close()

        try:
            await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))
        finally:
            done.set_result(None)

    async def close(self) -> None:
        """Close every connection (each handler then ends by itself: nothing is cancelled) and stop listening."""
        if self.server is not None:
            self.server.close()
        for writer in self._writers:
            writer.close()
        await asyncio.wait_for(asyncio.gather(*self._done), 10)
        if self.server is not None:
            await self.server.wait_closed()


def normalised(message: str, *ids: str) -> str:
    """An error message with the ids it names replaced, to compare the answers for two different ids."""
    for value in ids:
        message = message.replace(value, "<id>")
    return message
