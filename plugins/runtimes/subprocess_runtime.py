"""The `subprocess` runtime: one process per task, its output streamed into the conversation.

`command` is a list (or a shell-like string) run without a shell; `{task}`, `{title}` and `{description}` in
it are replaced by the task's text, and when none appears the text is passed as the last argument. Exit code 0
means succeeded, anything else failed (`error.code = exit_<n>`); a cancel request terminates the whole process
group (SIGTERM, then SIGKILL after `kill_grace_s`). A command that cannot be started fails the task with
`spawn_failed`; anything else that goes wrong ends the process and fails the task through the SDK (`handler_error`).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal

from hub import AgentConfig
from hub.sdk import AgentClient, TaskHandle

# The output is one message, and a message holds at most 256 KiB of text (hub/protocol/payloads.py): the limit leaves
# room for the truncation note, or the final message would be refused and the task never finish.
MESSAGE_MAX_CHARS = 256 * 1024
MAX_OUTPUT_BYTES = MESSAGE_MAX_CHARS - 1024
DEFAULT_MAX_OUTPUT_BYTES = MAX_OUTPUT_BYTES
PLACEHOLDERS = ("{task}", "{title}", "{description}")

log = logging.getLogger("lineup.runtimes.subprocess")


def build_argv(command: list[str], task: TaskHandle) -> list[str]:
    text = task.title if not task.description else f"{task.title}\n\n{task.description}"
    values = {"{task}": text, "{title}": task.title, "{description}": task.description}
    argv = []
    for part in command:
        arg = part
        for placeholder, value in values.items():
            arg = arg.replace(placeholder, value)
        argv.append(arg)
    if not any(p in part for part in command for p in PLACEHOLDERS):
        argv.append(text)
    return argv


class SubprocessRuntime:
    def __init__(self, config: AgentConfig, client: AgentClient) -> None:
        if not config.command:
            raise ValueError(f"agent {config.name!r}: the subprocess runtime needs `command`")
        self.config = config
        self.client = client
        self.max_output_bytes = int(config.options.get("max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES))
        if self.max_output_bytes > MAX_OUTPUT_BYTES:
            log.warning("agent %s: max_output_bytes %d is more than one message holds; using %d", config.name,
                        self.max_output_bytes, MAX_OUTPUT_BYTES)
            self.max_output_bytes = MAX_OUTPUT_BYTES
        self.kill_grace_s = float(config.options.get("kill_grace_s", 5.0))
        self.processes: dict[str, asyncio.subprocess.Process] = {}
        client.on_task(self.run_task)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        for process in list(self.processes.values()):
            await self._terminate(process)

    async def run_task(self, task: TaskHandle) -> None:
        await task.accept()
        try:
            process = await asyncio.create_subprocess_exec(
                *build_argv(self.config.command, task), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                cwd=str(self.config.cwd) if self.config.cwd else None, env={**os.environ, **self.config.env},
                start_new_session=True)  # its own process group, so cancel reaches its children too
        except OSError as exc:
            await task.fail("spawn_failed", f"Could not start {self.config.command[0]!r}: {exc.strerror or exc}")
            return
        except ValueError as exc:  # e.g. "embedded null byte": an argument no command line can carry
            why = "the task's text holds a NUL character, which no command-line argument can carry" \
                if "null" in str(exc) else str(exc)
            await task.fail("spawn_failed", f"Could not start {self.config.command[0]!r}: {why}.")
            return
        self.processes[task.id] = process
        watcher = asyncio.create_task(self._cancel_on_request(task, process))
        try:
            tail = await self._pump_output(task, process)
            code = await process.wait()
        except BaseException:
            # The output could not be reported (or the hub stops): the command must not run on unseen. The SDK
            # then fails the task with what was raised (docs/sdk.md "When a handler fails").
            await asyncio.shield(self._terminate(process))
            raise
        finally:
            watcher.cancel()
            self.processes.pop(task.id, None)
        if task.cancel_requested.is_set():
            await task.cancelled("Stopped on request")
        elif code == 0:
            await task.succeed(_last_line(tail) or "Finished")
        else:
            await task.fail(f"exit_{code}" if code > 0 else f"signal_{-code}",
                            f"The command exited with {code}. Last output:\n{tail[-2000:]}")

    async def _pump_output(self, task: TaskHandle, process: asyncio.subprocess.Process) -> str:
        """Stream stdout+stderr into the conversation, up to max_output_bytes; keep draining after that."""
        assert process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        seen, tail, noted = 0, "", False
        async with task.stream() if task.conversation_id else _Discard() as stream:
            while chunk := await process.stdout.read(4096):
                seen += len(chunk)
                text = decoder.decode(chunk)
                tail = (tail + text)[-4000:]
                if seen - len(chunk) < self.max_output_bytes:  # the chunk starts before the limit
                    room = self.max_output_bytes - (seen - len(chunk))
                    await stream.write(text if len(chunk) <= room else text[:room])
                # Also when the limit fell exactly on the end of the previous chunk.
                if seen > self.max_output_bytes and not noted:
                    noted = True
                    await stream.write(f"\n[output truncated after {self.max_output_bytes} bytes]\n")
        return tail

    async def _cancel_on_request(self, task: TaskHandle, process: asyncio.subprocess.Process) -> None:
        await task.cancel_requested.wait()
        await self._terminate(process)

    async def _terminate(self, process: asyncio.subprocess.Process) -> None:
        if process.returncode is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            async with asyncio.timeout(self.kill_grace_s):
                await process.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()


class _Discard:
    """Where output goes when the task has no conversation: only the tail is kept, for the summary."""

    async def __aenter__(self) -> _Discard:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def write(self, text: str) -> None:
        return None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""
