"""Scripted fake model APIs on loopback for running the real agent CLIs offline: the shared server and script types.

Each API module (anthropic.py, openai_responses.py, gemini.py) builds a Starlette app and runs it with
`ThreadedServer`: a real uvicorn server on 127.0.0.1, port 0, in a background thread. A test scripts the model
as a list of `Reply` objects, one per main model request, in order:

    replies = [tool("Bash", {"command": "echo hi > out.txt"}), text("Done.")]

and reads back every request the CLI made from `server.requests` (`Request` records, newest last).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from hub.testing import close_left_sockets
from tests.support.polling import eventually_sync as wait_until


@dataclass(frozen=True)
class Text:
    """A text block of a reply."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """A tool call block of a reply; `id` is made up by the server when None."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """One scripted model answer: its blocks in order; `delay_s` holds the stream after its start (mid-turn tests)."""

    blocks: tuple[Text | ToolCall, ...]
    delay_s: float = 0.0


def text(value: str, *, delay_s: float = 0.0) -> Reply:
    return Reply((Text(value),), delay_s)


def tool(name: str, arguments: dict[str, Any], *, say: str = "", delay_s: float = 0.0,
         id: str | None = None) -> Reply:  # noqa: A002 - the API's own word
    """A reply calling one tool, optionally after a sentence of text."""
    blocks: tuple[Text | ToolCall, ...] = ((Text(say),) if say else ()) + (ToolCall(name, arguments, id),)
    return Reply(blocks, delay_s)


# A scripted step is a Reply, or a function of the request body returning one (to answer from what was sent).
Step = Reply | Callable[[dict[str, Any]], Reply]


@dataclass
class Request:
    """One request as the fake received it (the API key header is never kept)."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Any
    at: float = field(default_factory=time.monotonic)
    kind: str = ""  # set by the API module: "main", "side", "probe", ...


class Script:
    """The replies still to give, shared by the request handlers; thread-safe."""

    def __init__(self, steps: list[Step], fallback: str = "(the fake model has no more scripted replies)") -> None:
        self._steps = list(steps)
        self._lock = threading.Lock()
        self.fallback = fallback
        self.used = 0
        self._ids = itertools.count(1)

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def replace(self, *steps: Step) -> None:
        """Forget the replies still to give and give these instead (a test's own script on a shared stage)."""
        with self._lock:
            self._steps = list(steps)

    def next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            step = self._steps.pop(0) if self._steps else None
            self.used += step is not None
        if step is None:
            return text(self.fallback)
        return step(body) if callable(step) else step

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._steps)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):04d}"


class ThreadedServer:
    """Runs an ASGI app with uvicorn on 127.0.0.1:0 in a daemon thread; `url` once started, `close()` to stop."""

    def __init__(self, app: Any) -> None:
        # A CLI keeps its connections alive: a shutdown waits at most this long for them, then closes them, so no
        # socket of this server is left for the garbage collector of a later test (a ResourceWarning there).
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off",
                                access_log=False, ws="none", timeout_graceful_shutdown=3)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="fake-model", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the fake model server did not start")
            time.sleep(0.01)
        self.port: int = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        await self._server.serve()
        # A forced stop (a streamed reply still open: a CLI waiting on a slow turn) leaves its connection's socket
        # to close in a turn of the loop that asyncio.run's end never runs: closed here instead.
        await close_left_sockets("fake model server")

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        if self._thread.is_alive():  # a loaded machine: the graceful part ran out, the connections go now
            self._server.force_exit = True
            self._thread.join(10)


__all__ = ["Reply", "Request", "Script", "Step", "Text", "ThreadedServer", "ToolCall", "text", "tool", "wait_until"]
