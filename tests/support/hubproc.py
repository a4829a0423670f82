"""Running a real `lineup serve` process on a loopback port for tests, and stopping or killing it.

Most tests use the in-process hub (tests/support/inproc.py, the default of the `hub_factory` fixture); this one is
for what needs a process: kill -9, SIGSTOP, signals, the environment the hub reads at start, the CLI itself."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from hub import serving


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


@dataclass
class HubProcess:
    data_dir: Path
    port: int = 0
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[str] | None = None
    log_path: Path | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

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
            if self.port:
                try:
                    if httpx.get(self.base + "/-/health", timeout=1).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
            time.sleep(0.05)
        raise RuntimeError(f"hub did not answer within {timeout_s} s:\n{self.log()}")

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
        from tests.support.clicommands import cli_token

        return cli_token(self.data_dir, workspace)

    def pairing_code(self, name: str | None = None, workspace: str | None = None) -> str:
        from tests.support.clicommands import cli_pairing_code

        return cli_pairing_code(self.data_dir, name, workspace)


def pair_agent(hub: HubProcess, app_token: str, name: str = "agent", runtime: str = "test") -> dict[str, str]:
    """Create a pairing code as the app would and redeem it as an agent would; returns the pair answer."""
    headers = {"Authorization": f"Bearer {app_token}"}
    code = httpx.post(hub.base + "/api/pairing-codes", headers=headers, json={"name": name}).json()["code"]
    answer = httpx.post(hub.base + "/api/pair", json={"code": code, "name": name, "runtime": runtime,
                                                       "agentVersion": "1.0"})
    answer.raise_for_status()
    return dict(answer.json())
