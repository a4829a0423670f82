"""Commands the agent runs through terminal/*: output kept up to a byte limit, exit status in ACP's terms."""

from __future__ import annotations

import asyncio
import signal

from acp.schema import TerminalExitStatus

from hub.acp.process import killpg


class Terminal:
    """A command the agent runs through terminal/create: output kept up to its byte limit (oldest cut)."""

    def __init__(self, process: asyncio.subprocess.Process, limit: int | None) -> None:
        self.process = process
        self.limit = limit
        self.output = b""
        self.truncated = False
        self.pump = asyncio.create_task(self._pump())

    async def _pump(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk
            if self.limit is not None and len(self.output) > self.limit:
                cut = len(self.output) - self.limit
                while cut < len(self.output) and (self.output[cut] & 0xC0) == 0x80:
                    cut += 1  # never start inside a UTF-8 character
                self.output = self.output[cut:]
                self.truncated = True

    async def drained(self) -> None:
        """The output is complete shortly after the command exits (unless something it started holds it)."""
        await asyncio.wait({self.pump}, timeout=1.0)

    def exit_status(self) -> TerminalExitStatus | None:
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return TerminalExitStatus(exit_code=None, signal=name)
        return TerminalExitStatus(exit_code=code, signal=None)

    def kill(self) -> None:
        if self.process.returncode is None:
            killpg(self.process.pid, signal.SIGKILL)

    async def close(self) -> None:
        self.kill()
        await self.process.wait()
        self.pump.cancel()
        await asyncio.gather(self.pump, return_exceptions=True)
