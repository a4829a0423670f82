"""JSON lines between the driver and its client processes: commands on stdin, answers on stdout."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any


class Child:
    """Driver side: a `python -m bench.<module>` process; `call` sends a command and waits for the answer."""

    def __init__(self, module: str) -> None:
        self.module = module
        from bench.targets import spawn
        self.proc = spawn([sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, bufsize=1, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def recv(self, timeout_s: float) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout_s)
        except queue.Empty:
            raise TimeoutError(f"{self.module} did not answer within {timeout_s} s") from None
        if line is None:
            raise RuntimeError(f"{self.module} exited with {self.proc.wait()}")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"{self.module}: {answer['error']}")
        return answer

    def call(self, command: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        self.send(command)
        return self.recv(timeout_s)

    def close(self, timeout_s: float = 10.0) -> None:
        if self.proc.poll() is None:
            try:
                self.send({"cmd": "exit"})
                self.proc.wait(timeout_s)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


class Channel:
    """Child side: read commands from stdin (a thread feeds an asyncio queue), answer on stdout."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.commands: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            if line.strip():
                self.loop.call_soon_threadsafe(self.commands.put_nowait, json.loads(line))
        self.loop.call_soon_threadsafe(self.commands.put_nowait, None)

    async def recv(self) -> dict[str, Any] | None:
        return await self.commands.get()

    @staticmethod
    def send(answer: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


async def serve(make_handlers: Callable[[], dict[str, Any]]) -> None:
    """The child's main loop: dispatch each command to `handlers[cmd](command)` and send back its answer."""
    channel = Channel()
    handlers = make_handlers()
    while True:
        command = await channel.recv()
        if command is None or command.get("cmd") == "exit":
            close = handlers.get("exit")
            if close is not None:
                await close(command or {})
            return
        try:
            answer = await handlers[command["cmd"]](command)
        except Exception as exc:  # report, keep serving: the driver decides what to do  # noqa: BLE001 - a benchmark reports any failure and goes on
            import traceback
            answer = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-2000:]}
        channel.send(answer)


def run_child(make_handlers: Callable[[], dict[str, Any]]) -> None:
    """Run a client process on uvloop (as fast as the hub's loop), serving the driver's commands."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        asyncio.run(serve(make_handlers))
    else:
        uvloop.run(serve(make_handlers))
