"""The systems under test as processes: the real hub (`python -m hub serve`) and the B_relay baseline."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.lap import Handshake, envelope

WORK_ROOT = Path(os.environ.get("LINEUP_BENCH_TMP", tempfile.gettempdir())) / "lineup-bench"


def bench_nice() -> int:
    """BENCH_NICE=<n>: run the hub, the relay and the client processes at this niceness (opt-in; see README)."""
    return int(os.environ.get("BENCH_NICE", "0") or 0)


def spawn(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """Popen, with the bench's niceness applied in the child before exec, so every thread inherits it."""
    nice = bench_nice()
    return subprocess.Popen(args, preexec_fn=(lambda: os.nice(nice)) if nice else None, **kwargs)  # noqa: PLW1509 - set before any thread starts: a process group the run can kill


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(base: str, proc: subprocess.Popen[bytes], timeout_s: float, interval_s: float = 0.01,
                 started: float | None = None) -> float:
    """Poll GET /-/health until 200; returns the seconds since `started` (default: now). Raises if the process
    dies or time runs out."""
    started = time.monotonic() if started is None else started
    deadline = started + timeout_s
    with httpx.Client(timeout=1.0) as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"process exited with {proc.returncode}")
            try:
                if http.get(base + "/-/health").status_code == 200:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
            time.sleep(interval_s)
    raise RuntimeError(f"{base} not healthy within {timeout_s} s")


@dataclass
class Fixture:
    """What the clients need: where to connect, the app token, and one (credential, conversation) per agent."""

    url: str
    token: str
    workspace_id: str
    agents: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"url": self.url, "token": self.token, "workspaceId": self.workspace_id, "agents": self.agents}


class Target:
    name = "target"

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None
        self.spawn_to_healthy_s: float | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def command(self) -> list[str]:
        raise NotImplementedError

    def start(self, timeout_s: float = 20.0) -> Target:
        WORK_ROOT.mkdir(parents=True, exist_ok=True)
        self.log_path = self.log_path or WORK_ROOT / f"{self.name}-{self.port}.log"
        env = {**os.environ, "LINEUP_LOG_LEVEL": "warning"}
        with open(self.log_path, "ab") as log:
            spawned = time.monotonic()
            self.proc = spawn(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env)
        self.spawn_to_healthy_s = wait_healthy(self.base, self.proc, timeout_s, started=spawned)
        return self

    def stop(self, timeout_s: float = 15.0) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path and self.log_path.exists() else ""

    def prepare(self, n_agents: int) -> Fixture:
        raise NotImplementedError

    def cleanup(self) -> None:
        """Remove what the run left on disk (the log; a hub also its data dir)."""
        if self.log_path is not None and self.log_path.exists():
            self.log_path.unlink()


class RelayTarget(Target):
    name = "relay"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "bench.relay", "--port", str(self.port)]

    def prepare(self, n_agents: int) -> Fixture:
        return Fixture(self.ws_url, "relay-token", "ws_relay",
                       [{"credential": f"relay-{i}", "conversationId": f"conv-{i}"} for i in range(n_agents)])


class HubTarget(Target):
    name = "hub"

    def __init__(self, data_dir: Path | None = None) -> None:
        super().__init__()
        self.owns_dir = data_dir is None
        WORK_ROOT.mkdir(parents=True, exist_ok=True)
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="hub-", dir=WORK_ROOT))
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}.log"
        self.token: str | None = None

    @property
    def db_path(self) -> Path:
        return self.data_dir / "lineup.db"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "hub", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--data-dir", str(self.data_dir), "--no-mdns"]

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hub", *args, "--data-dir", str(self.data_dir)],
                              capture_output=True, text=True, timeout=120, check=check,
                              env={**os.environ, "LINEUP_LOG_LEVEL": "warning"})

    def app_token(self) -> str:
        if self.token is None:
            self.token = self.cli("token").stdout.strip()
        return self.token

    def pair(self, n_agents: int) -> list[dict[str, str]]:
        headers = {"Authorization": f"Bearer {self.app_token()}"}
        paired = []
        with httpx.Client(base_url=self.base, timeout=10.0) as http:
            for i in range(n_agents):
                code = http.post("/api/pairing-codes", headers=headers, json={}).json()["code"]
                answer = http.post("/api/pair", json={"code": code, "name": f"bench-agent-{i}", "runtime": "bench",
                                                      "agentVersion": "1.0"})
                answer.raise_for_status()
                paired.append(answer.json())
        return paired

    def prepare(self, n_agents: int) -> Fixture:
        paired = self.pair(n_agents)
        workspace_id = paired[0]["workspaceId"] if paired else ""
        conversations = asyncio.run(self._create_conversations(workspace_id, [p["agentId"] for p in paired]))
        return Fixture(self.ws_url, self.app_token(), workspace_id,
                       [{"credential": p["credential"], "conversationId": c, "agentId": p["agentId"]}
                        for p, c in zip(paired, conversations, strict=False)])

    async def _create_conversations(self, workspace_id: str, agent_ids: list[str]) -> list[str]:
        answers: dict[str, asyncio.Future[Any]] = {}
        loop = asyncio.get_running_loop()

        def on_frame(data: bytes) -> None:
            from bench.lap import decode_ack
            frame = decode_ack(data)
            if frame.type in ("system.ack", "system.error") and frame.payload.id in answers:
                fut = answers[frame.payload.id]
                if not fut.done():
                    fut.set_result(frame)

        hs = Handshake(on_frame)
        client = await hs.open(self.ws_url, "app", self.app_token())
        ids = []
        for i, agent_id in enumerate(agent_ids):
            conversation_id = f"conv-bench-{i}-{os.urandom(4).hex()}"
            env_id = f"cc-{conversation_id}"
            answers[env_id] = loop.create_future()
            client.send_text(envelope("conversation.create", {"title": f"bench {i}", "agentIds": [agent_id]},
                                      id=env_id, workspace_id=workspace_id, conversation_id=conversation_id))
            ids.append(conversation_id)
        results = await asyncio.wait_for(asyncio.gather(*answers.values()), 30)
        await client.close()
        bad = [r for r in results if r.type != "system.ack"]
        if bad:
            raise RuntimeError(f"conversation.create refused: {bad[0]}")
        return ids

    def cleanup(self) -> None:
        if self.owns_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            if self.log_path is not None and self.log_path.exists():
                self.log_path.unlink()
