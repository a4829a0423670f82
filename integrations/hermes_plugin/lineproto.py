"""The line protocol between LineUp's Hermes plugin (inside `hermes gateway`) and its bridge (`lineup hook
hermes-bridge`, LineUp's own program). Standard library only: this file runs in Hermes's Python too.

The plugin starts the bridge and talks to it over the bridge's stdin (plugin → bridge) and stdout (bridge →
plugin). Each message is one JSON object on one line, UTF-8, ending in "\\n", at most MAX_LINE_BYTES (a longer
line is dropped whole, up to its newline, without being held in memory). `t` names the kind. Every line from the
other side is checked here (`check`) before anything acts on it: a line that is not JSON, not an object, of an
unknown kind, or with a field missing, of the wrong type or too long is dropped and logged, never acted on.

Plugin → bridge:

- `hello {v: 1, boot, hermes}`: the first line after each start of the bridge. `boot` names this Hermes process
  (a card the bridge knows from another `boot` was asked by a Hermes that is gone); `hermes` is its version.
- `send {id, chat, text}`: Hermes says `text` in conversation `chat` (a LineUp conversation id).
- `approval {id, chat, session, command, description, permanent, smart_denied, timeout, deadline}`: Hermes waits
  for an exec approval until `deadline` (Unix time, `timeout` seconds after it asked).
- `approval_done {id, how}`: Hermes stopped waiting for approval `id` (the line's id is the approval's + `.done`)
  by itself: `timeout`, or `once` / `session` / `always` / `deny` when answered another way (`/approve`, `/stop`).
- `clarify {id, chat, session, question, choices (a list or null), timeout, deadline}`: Hermes asks a question.
- `clarify_done {id}`: Hermes no longer waits for that question (answered in the chat, timed out, session over).
- `ack {id, applied}`: the bridge's `message` / `answer` / `reply` `id` is handled; `applied`: Hermes still
  waited for it.

Bridge → plugin:

- `ready {agent}`: connected to the hub as agent `agent` (for the log).
- `ack {id, ok, error?}`: the plugin's line `id` is done: stored by the hub (`ok`), or refused for good (`error`).
- `message {id, chat, text, user?}`: the person's message `id` in conversation `chat`.
- `answer {id, choice, reason?}`: approval `id` was answered `once`, `session`, `always` or `deny` (`reason`: the
  person's note, said to Hermes with a denial).
- `reply {id, text}`: question `id` was answered (`text` empty: declined).
- `fatal {reason}`: the bridge stops for good (its credential refused or taken over): not started again.

Delivery is at least once both ways, made exactly once by ids: the plugin re-sends what the bridge has not acked
after starting a new bridge, the bridge re-sends what the plugin has not acked after it restarts (from its own
cursor: hub/connect/hermes_bridge.py), and each side drops an id it has done already.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from typing import Any

VERSION = 1
MAX_LINE_BYTES = 2 * 1024 * 1024   # a message is at most 256 Ki characters; escaped as JSON it stays under this
MAX_TEXT = 256 * 1024              # characters: the hub's limit for one message (docs/sdk.md "Sizes")
ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
CHOICES = ("once", "session", "always", "deny")
MAX_TIMEOUT_S = 7 * 24 * 3600.0

# field: (type, required, limit). `str` limits are characters; ID-typed fields match ID; `list` is of strings.
_Str, _Id, _Bool, _Num, _Choices = "str", "id", "bool", "num", "choices"
SPECS: dict[str, dict[str, dict[str, tuple[str, bool, int]]]] = {
    "to_bridge": {
        "hello": {"v": (_Num, True, 0), "boot": (_Id, True, 0), "hermes": (_Str, False, 64)},
        "send": {"id": (_Id, True, 0), "chat": (_Id, True, 0), "text": (_Str, True, MAX_TEXT)},
        "approval": {"id": (_Id, True, 0), "chat": (_Id, True, 0), "session": (_Str, True, 1024),
                     "command": (_Str, True, MAX_TEXT), "description": (_Str, False, 8000),
                     "permanent": (_Bool, True, 0), "smart_denied": (_Bool, False, 0),
                     "timeout": (_Num, True, 0), "deadline": (_Num, True, 0)},
        "approval_done": {"id": (_Id, True, 0), "how": (_Str, True, 32)},
        "clarify": {"id": (_Id, True, 0), "chat": (_Id, True, 0), "session": (_Str, True, 1024),
                    "question": (_Str, True, 16000), "choices": (_Choices, False, 50),
                    "timeout": (_Num, True, 0), "deadline": (_Num, True, 0)},
        "clarify_done": {"id": (_Id, True, 0)},
        "ack": {"id": (_Id, True, 0), "applied": (_Bool, False, 0)},
    },
    "to_plugin": {
        "ready": {"agent": (_Id, True, 0)},
        "ack": {"id": (_Id, True, 0), "ok": (_Bool, True, 0), "error": (_Str, False, 2000)},
        "message": {"id": (_Id, True, 0), "chat": (_Id, True, 0), "text": (_Str, True, MAX_TEXT),
                    "user": (_Id, False, 0)},
        "answer": {"id": (_Id, True, 0), "choice": (_Str, True, 16), "reason": (_Str, False, 4000)},
        "reply": {"id": (_Id, True, 0), "text": (_Str, True, MAX_TEXT)},
        "fatal": {"reason": (_Str, True, 4000)},
    },
}


class BadLine(ValueError):
    """A line from the other side that is not acted on; the message says why (for the log, never the person)."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as its line. Raises BadLine if it would be longer than the other side accepts."""
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode() + b"\n"
    if len(data) > MAX_LINE_BYTES:
        raise BadLine(f"a {message.get('t')!r} line of {len(data):,} bytes is over the {MAX_LINE_BYTES:,} limit")
    return data


def check(line: bytes, direction: str) -> dict[str, Any]:
    """The message a line holds, checked against SPECS[direction] (`to_bridge`: what the bridge reads; `to_plugin`:
    what the plugin reads). Unknown fields are dropped. Raises BadLine."""
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadLine(f"not JSON ({type(exc).__name__})") from None
    if not isinstance(message, dict):
        raise BadLine(f"not an object ({type(message).__name__})")
    kind = message.get("t")
    specs = SPECS[direction]
    if not isinstance(kind, str) or kind not in specs:
        raise BadLine(f"unknown kind {str(kind)[:40]!r}")
    checked: dict[str, Any] = {"t": kind}
    for name, (type_, required, limit) in specs[kind].items():
        if name not in message or message[name] is None:
            if required:
                raise BadLine(f"{kind}: `{name}` is missing")
            continue
        checked[name] = _field(kind, name, message[name], type_, limit)
    if kind in ("approval", "clarify") and not 0 < checked["timeout"] <= MAX_TIMEOUT_S:
        raise BadLine(f"{kind}: `timeout` must be more than 0 s and at most 7 days")
    if kind == "answer" and checked["choice"] not in CHOICES:
        raise BadLine(f"answer: `choice` must be one of {CHOICES}")
    return checked


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _field(kind: str, name: str, value: Any, type_: str, limit: int) -> Any:
    where = f"{kind}: `{name}`"
    if type_ == _Bool:
        if not isinstance(value, bool):
            raise BadLine(f"{where} must be true or false")
        return value
    if type_ == _Num:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise BadLine(f"{where} must be a number")
        return float(value)
    if type_ == _Id:
        if not isinstance(value, str) or not ID.fullmatch(value):
            raise BadLine(f"{where} must be 1 to 128 of A-Z a-z 0-9 _ . : -")
        return value
    if type_ == _Choices:
        if not isinstance(value, list) or len(value) > limit or not all(isinstance(v, str) for v in value):
            raise BadLine(f"{where} must be a list of at most {limit} texts")
        if any(len(v) > 2000 for v in value):
            raise BadLine(f"{where}: a choice is longer than 2000 characters")
        return list(value)
    if not isinstance(value, str):
        raise BadLine(f"{where} must be text")
    if len(value) > limit:
        raise BadLine(f"{where} is {len(value):,} characters, over {limit:,}")
    return value


class LineReader:
    """Lines from a stream, each at most `max_bytes`: a longer one is skipped to its newline, holding at most one
    chunk of it in memory (`dropped` counts them). `next()` returns None at the end of the stream."""

    CHUNK = 64 * 1024

    def __init__(self, stream: asyncio.StreamReader, max_bytes: int = MAX_LINE_BYTES) -> None:
        self.stream = stream
        self.max_bytes = max_bytes
        self.dropped = 0
        self._buffer = bytearray()
        self._skipping = False
        self._eof = False

    async def next(self) -> bytes | None:
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                if self._skipping:
                    self._skipping = False
                    continue
                if len(line) > self.max_bytes:
                    self.dropped += 1
                    continue
                return line
            if self._skipping:
                self._buffer.clear()
            elif len(self._buffer) > self.max_bytes:
                self.dropped += 1
                self._skipping = True
                self._buffer.clear()
            if self._eof:
                if self._buffer and not self._skipping:  # a last line without its newline
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None
            chunk = await self.stream.read(self.CHUNK)
            if not chunk:
                self._eof = True
            self._buffer += chunk
