"""The one way a test starts a hub: `start_hub()`, in this process (InProcessHub) or as `lineup serve` (HubProcess)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import io
import json
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from hub import serving
from hub.settings import ENV_PREFIX, Settings, load_settings
from tests.support.clicommands import cli_pairing_code, cli_token

# Both kinds have one interface (data_dir, port, base, ws_base, start, stop, token, pairing_code, log) and the same
# parts: `hub.testing.running_hub`, the one builder of a running hub (hub/server.py's `build_server`: the Hub, the
# Starlette app, uvicorn with its connection guard, as `lineup serve` builds it), a socket bound on port 0, real SQLite
# in the test's folder.
#
# InProcessHub, the default: real uvicorn in a thread of this test process, on an event loop of its own, so a test may
# block on sync httpx calls or use its own loop meanwhile. `token()` and `pairing_code()` run the domain commands
# `lineup token` / `lineup pair` run, through the CLI's own `_run_command` (tests/support/clicommands.py).
#
# HubProcess: `lineup serve` as a child process, for what needs a process: kill -9, SIGSTOP, signals, environment
# variables the hub reads from os.environ at start, the CLI itself.
#
# tests/conftest.py's `hub_factory` fixture calls start_hub and stops every hub at the test's end; tests/support/
# hubproc.py and inproc.py are the old names of this module's classes.


def start_hub(data_dir: Path, env: dict[str, str] | None = None, *, process: bool = False,
              start: bool = True) -> HubProcess | InProcessHub:
    """A hub on `data_dir` (its SQLite and settings), started unless `start=False`: in this process by default,
    a `lineup serve` child process with `process=True`. The caller stops it (conftest's `hub_factory` does)."""
    hub = (HubProcess if process else InProcessHub)(data_dir, env=env or {})
    return hub.start() if start else hub


def ephemeral_ports() -> tuple[int, int]:
    """The range the kernel picks from for port 0 and for the source port of every outgoing connection."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def free_port() -> int:
    """A loopback port free now, for what must know its port before it starts (prefer port 0 where it can).

    Picked below the ephemeral range: a port the kernel handed out for port 0 is free only until the next
    outgoing connection of any parallel test takes it as its source port (a CI run lost a hub that way: "port
    48867 is taken by another program"); below the range only another caller of this picks, at random."""
    low, _ = ephemeral_ports()
    candidates = range(10000, low) if low > 11000 else range(0)
    for port in random.sample(candidates, min(50, len(candidates))):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # no room below the range on this machine: the kernel's pick
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def recorded_port(data_dir: Path, pid: int) -> int:
    """The port the hub of process `pid` recorded once it listened (hub/serving.py), or 0 while it has not
    (a record left by an earlier hub of this folder, killed with -9, is ignored)."""
    try:
        found = json.loads((data_dir / serving.FILE_NAME).read_text())
    except (OSError, ValueError):
        return 0
    if found.get("pid") != pid:
        return 0
    return int(urlsplit(found["url"]).port or 0)


def run_cli(data_dir: Path, *args: str, env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `lineup ARGS --data-dir DATA_DIR` and return the completed process."""
    return subprocess.run([sys.executable, "-m", "hub", *args, "--data-dir", str(data_dir)], capture_output=True,
                          text=True, timeout=60, check=check, env={**os.environ, **(env or {})})


class LoopbackAddress:
    """The addresses of a hub listening on 127.0.0.1 at `port` (both kinds of test hub)."""

    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


@dataclass
class HubProcess(LoopbackAddress):
    data_dir: Path
    port: int = 0
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[str] | None = None
    log_path: Path | None = None

    def start(self, timeout_s: float = 20.0) -> HubProcess:
        """Start `lineup serve` and return once it answers /-/health. Port 0 (the default): the hub binds a free port
        itself and its serving record (hub/serving.py) says which, so no other process can take it in between, as
        a port picked here and bound there could be by a parallel test; a restart reuses that port."""
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-hub.log"
        env = {**os.environ, "LINEUP_LOG_LEVEL": "warning", **self.env}
        with open(self.log_path, "a") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hub", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--data-dir", str(self.data_dir), "--no-mdns"],
                stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hub exited with {self.proc.returncode}:\n{self.log()}")
            if not self.port:
                self.port = self._bound_port()
            if self.port and self._healthy():
                return self
            time.sleep(0.05)
        raise RuntimeError(f"hub did not answer within {timeout_s} s:\n{self.log()}")

    def _healthy(self) -> bool:
        """Whether the hub answers /-/health (a refused or cut connection: not yet)."""
        try:
            return httpx.get(self.base + "/-/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _bound_port(self) -> int:
        """The port this process recorded once it listened, or 0 while it has not."""
        assert self.proc is not None
        return recorded_port(self.data_dir, self.proc.pid)

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path and self.log_path.exists() else ""

    def stop(self, timeout_s: float = 15.0) -> int | None:
        """SIGTERM and wait: the graceful path."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def kill(self) -> None:
        """SIGKILL: the crash path (kill -9)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def token(self, workspace: str | None = None) -> str:
        """What `lineup token` prints, run in this process against the hub's data (tests/support/clicommands.py)."""
        return cli_token(self.data_dir, workspace)

    def pairing_code(self, name: str | None = None, workspace: str | None = None) -> str:
        return cli_pairing_code(self.data_dir, name, workspace)


def pair_agent(hub: HubProcess, app_token: str, name: str = "agent", runtime: str = "test") -> dict[str, str]:
    """Create a pairing code as the app would and redeem it as an agent would; returns the pair answer."""
    headers = {"Authorization": f"Bearer {app_token}"}
    code = httpx.post(hub.base + "/api/pairing-codes", headers=headers, json={"name": name}).json()["code"]
    answer = httpx.post(hub.base + "/api/pair", json={"code": code, "name": name, "runtime": runtime,
                                                       "agentVersion": "1.0"})
    answer.raise_for_status()
    return dict(answer.json())

HUB_LOGGERS = ("lineup", "uvicorn.error")
STOP_TIMEOUT_S = 15.0  # each of uvicorn's two shutdown stages


class _ThreadLog(logging.FileHandler):
    """The hub's log file: the records its own thread emits (the test's clients log from other threads)."""

    def __init__(self, path: Path, level: int, thread: threading.Thread) -> None:
        super().__init__(path, encoding="utf-8")
        self.setLevel(level)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self._thread = thread

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread == self._thread.ident and super().filter(record)


@functools.cache
def _add_quiet_sockets() -> None:
    """hub/server.py's configure_logging puts this filter on uvicorn's logger; once per test process."""
    from hub.server import QuietSockets

    logging.getLogger("uvicorn.error").addFilter(QuietSockets())


@dataclass
class InProcessHub(LoopbackAddress):
    data_dir: Path
    port: int = 0  # 0: the system picks a free one at bind time, no pick-then-bind race
    env: dict[str, str] = field(default_factory=dict)
    log_path: Path | None = None
    console_path: Path | None = None  # where the console banner goes; None: into the log, as HubProcess does
    settings: Settings | None = None
    _server: Any = None
    _thread: threading.Thread | None = None
    _failure: BaseException | None = None
    _handler: _ThreadLog | None = None
    _levels: dict[str, int] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None

    def __post_init__(self) -> None:
        self._check_env()

    def _check_env(self) -> None:
        known = {ENV_PREFIX + name.upper() for name in typing.get_type_hints(Settings)}
        unknown = sorted(set(self.env) - known)
        if unknown:  # read from os.environ by the hub or the interpreter: only a child process gets its own
            raise ValueError(f"the in-process hub cannot honour {unknown}: use hub_factory(process=True)")

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout_s: float = 20.0) -> InProcessHub:
        from hub.server import bind_socket
        from hub.testing import running_hub

        assert not self.running, "already running"
        self._check_env()  # a test may have changed `env` since (a restart with a new setting)
        # As HubProcess: LINEUP_* of the test's environment, the log level at warning, then the test's own env.
        environ = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}
        environ.update({"LINEUP_LOG_LEVEL": "warning", **self.env})
        settings = self.settings = load_settings({"data_dir": self.data_dir, "host": "127.0.0.1", "port": self.port,
                                                  "mdns": False}, environ=environ)
        self.log_path = self.log_path or self.data_dir.parent / f"{self.data_dir.name}-hub.log"
        _add_quiet_sockets()
        sock = bind_socket("127.0.0.1", self.port)
        self.port = sock.getsockname()[1]  # kept: a restart serves on the same address, as a restarted process does
        listening = threading.Event()
        self._server, self._failure = None, None

        def out(line: str) -> None:  # the console banner; HubProcess writes stdout into the same log file
            with open(self.console_path or self.log_path, "a", encoding="utf-8") as log:  # type: ignore[arg-type]
                log.write(line + "\n")

        async def serve() -> None:
            # Ready once the hub has said it listens, as `lineup serve` is once it prints its banner; served until
            # stop() sets should_exit (running_hub's own stop then finds it stopped). A hub that does not listen
            # within timeout_s is stopped by running_hub, which says why.
            async with running_hub(settings, sock, out=out, start_timeout_s=timeout_s, owns_loop=True) as running:
                self._server = running.server
                listening.set()
                await running.stopped()

        def run() -> None:
            try:
                with asyncio.Runner(loop_factory=_loop_factory()) as runner:
                    self._loop = runner.get_loop()
                    runner.run(serve())
            except BaseException as exc:  # noqa: BLE001 - handed on to the test, which re-raises it
                self._failure = exc
            finally:
                sock.close()
                listening.set()

        self._thread = threading.Thread(target=run, name=f"lineup-hub-{self.data_dir.name}", daemon=True)
        self._attach_log(self._thread)
        self._thread.start()
        if not listening.wait(timeout_s + 2 * STOP_TIMEOUT_S):  # running_hub's start deadline, then its stop
            self.stop()
            raise RuntimeError(f"hub did not answer within {timeout_s} s:\n{self.log()}")
        if not self.running or self._server is None or not self._server.started:
            self._thread.join(timeout_s)
            self._detach_log()
            raise RuntimeError(f"hub did not start: {self._failure!r}\n{self.log()}") from self._failure
        return self

    def _attach_log(self, thread: threading.Thread) -> None:
        level = logging.getLevelName(self.settings.log_level.upper())  # type: ignore[union-attr]
        self._handler = _ThreadLog(self.log_path, level, thread)  # type: ignore[arg-type]
        for name in HUB_LOGGERS:
            logger = logging.getLogger(name)
            self._levels[name] = logger.level
            if logger.getEffectiveLevel() > level:
                logger.setLevel(level)
            logger.addHandler(self._handler)

    def _detach_log(self) -> None:
        if self._handler is None:
            return
        for name in HUB_LOGGERS:
            logger = logging.getLogger(name)
            logger.removeHandler(self._handler)
            logger.setLevel(self._levels.get(name, logging.NOTSET))
        self._handler.close()
        self._handler = None

    def log(self) -> str:
        if self._handler is not None:
            self._handler.flush()
        return self.log_path.read_text() if self.log_path and self.log_path.exists() else ""

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> int | None:
        """uvicorn's graceful shutdown (what SIGTERM does to `lineup serve`); 0 as the process's exit code."""
        if self._thread is None:
            return None
        if self._server is not None:
            self._server.should_exit = True
        self._thread.join(timeout_s)
        if self._thread.is_alive() and self._server is not None:  # stuck: force uvicorn's second stage, then wait
            self._server.force_exit = True
            self._thread.join(timeout_s)
        alive = self._thread.is_alive()
        stack = self._tasks() if alive else ""
        self._detach_log()
        self._thread = None
        if alive:
            raise RuntimeError(f"the in-process hub did not stop within {2 * timeout_s} s; its tasks:\n{stack}")
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise RuntimeError(f"the in-process hub failed: {failure!r}") from failure
        return 0

    def _tasks(self) -> str:
        """Where each of the hub loop's tasks waits: what a stop that hangs is waiting for."""
        loop, found = self._loop, concurrent.futures.Future()  # type: ignore[var-annotated]

        def collect() -> None:
            out = io.StringIO()
            for task in asyncio.all_tasks(loop):
                task.print_stack(limit=6, file=out)
            found.set_result(out.getvalue())

        if loop is None or loop.is_closed():
            return "(no loop)"
        loop.call_soon_threadsafe(collect)
        try:
            return str(found.result(5))
        except concurrent.futures.TimeoutError:
            return "(the loop does not answer)"

    def kill(self) -> None:
        raise NotImplementedError("kill -9 needs a process: hub_factory(process=True)")

    def token(self, workspace: str | None = None, name: str = "cli token") -> str:
        """What `lineup token [--workspace W]` prints (tests/support/clicommands.py)."""
        return cli_token(self.data_dir, workspace, name)

    def pairing_code(self, name: str | None = None, workspace: str | None = None) -> str:
        """What `lineup pair` prints (tests/support/clicommands.py)."""
        return cli_pairing_code(self.data_dir, name, workspace)


class _HubLoop(asyncio.SelectorEventLoop):
    """asyncio's loop, except that a connection accepted just as the server closes is closed, not dropped.

    Python 3.11's `_accept_connection2` makes the transport after the accept; when the server closed in between, the
    transport's `Server._attach` fails, the error is swallowed, and the accepted socket is left to the garbage
    collector: a ResourceWarning in whatever test runs then (a browser reconnecting while a test's hub stops: runs
    74 and 85, each at test_first_run's teardown). A socket no transport took is closed here."""

    async def _accept_connection2(self, protocol_factory: Any, conn: socket.socket, *args: Any,
                                  **kwargs: Any) -> None:
        try:
            await super()._accept_connection2(protocol_factory, conn, *args, **kwargs)  # type: ignore[misc]
        finally:
            fd = conn.fileno()
            if fd != -1 and self._transports.get(fd) is None:  # type: ignore[attr-defined]
                conn.close()


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """asyncio's own loop, which uvicorn's `loop="auto"` also runs on where uvloop is missing (with the one fix of
    _HubLoop). Not uvloop here: outside the main thread uvloop does not see its child processes exit (libuv's SIGCHLD
    handling), so the agent runtimes' `process.wait()` would never return; asyncio's ThreadedChildWatcher works from
    any thread."""
    return _HubLoop
