"""What a preset's program must be asked before it can start (Gemini CLI: which ACP flag), asked in the background.

Asking can take seconds (`gemini --help` took ~15 s on a loaded machine) or hang, so nobody waits for it but a start
of that agent: the agent list answers at once and says "checking" for a program still being asked. Answers are kept
per program and its modification time (an upgrade is asked again); a probe is one child process in a process group
of its own, killed when it passes its time or the hub stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import Awaitable, Callable

log = logging.getLogger("lineup.sessions")

PROBE_TIMEOUT_S = 30.0   # as `lineup agents add` waits for gemini's help (hub/presets.py gemini_flag)
GEMINI_OLD_FLAG = "--experimental-acp"


def gemini_flag_from_help(text: str) -> str:
    """`--acp` when gemini lists it in its help, else the older `--experimental-acp` (the rule of
    hub/presets.py gemini_flag, which `lineup agents add` asks the same way)."""
    return "--acp" if any(line.strip().startswith("--acp") for line in text.splitlines()) else GEMINI_OLD_FLAG


async def ask_gemini(program: str, timeout_s: float = PROBE_TIMEOUT_S) -> str:
    """Run `<program> --help` and read its ACP flag; the older flag when it fails or passes its time."""
    try:
        proc = await asyncio.create_subprocess_exec(program, "--help", stdin=subprocess.DEVNULL,
                                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                    start_new_session=True)
    except OSError as exc:
        log.info("%s --help could not run: %s", program, exc)
        return GEMINI_OLD_FLAG
    try:
        async with asyncio.timeout(timeout_s):
            out, _ = await proc.communicate()
    except BaseException as exc:  # its time passed, or the hub stops: the probe and its children go
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        if isinstance(exc, TimeoutError):
            log.warning("%s --help gave no answer in %.0f s; it is started with %s", program, timeout_s,
                        GEMINI_OLD_FLAG)
            return GEMINI_OLD_FLAG
        raise
    return gemini_flag_from_help(out.decode(errors="replace"))


def _version(program: str) -> float:
    try:
        return os.stat(program).st_mtime
    except OSError:
        return 0.0


class Probes:
    """Answers of programs, asked once each in the background: `known` never waits, `answer` does."""

    def __init__(self, ask: Callable[[str], Awaitable[str]] = ask_gemini) -> None:
        self._ask = ask
        self._answers: dict[tuple[str, float], str] = {}
        self._asking: dict[tuple[str, float], asyncio.Task[str]] = {}

    def known(self, program: str) -> str | None:
        """The program's answer if it is known; else None, and it is being asked (started now if it was not)."""
        key = (program, _version(program))
        if key in self._answers:
            return self._answers[key]
        self._start(key)
        return None

    async def answer(self, program: str) -> str:
        """The program's answer, waiting for it when it is still being asked."""
        key = (program, _version(program))
        if key in self._answers:
            return self._answers[key]
        return await asyncio.shield(self._start(key))

    def _start(self, key: tuple[str, float]) -> asyncio.Task[str]:
        task = self._asking.get(key)
        if task is None:
            task = self._asking[key] = asyncio.ensure_future(self._ask(key[0]))
            task.add_done_callback(lambda done: self._done(key, done))
        return task

    def _done(self, key: tuple[str, float], task: asyncio.Task[str]) -> None:
        self._asking.pop(key, None)
        if not task.cancelled() and task.exception() is None:
            self._answers[key] = task.result()

    async def close(self) -> None:
        """The hub stops: every probe still asking is stopped (its process killed)."""
        tasks = list(self._asking.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
