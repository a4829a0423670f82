"""An ACP agent's tool calls as they go (tool_call, tool_call_update), each one message once it is over."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from acp.schema import ContentToolCallContent, FileEditToolCallContent

from hub.acp.text import content_text, plain_title
from hub.sdk import activity

ENDED = ("completed", "failed")
EXIT_CODE = re.compile(r"(?:^|\n)\s*(?:Error:\s*)?exit(?:ed with)?\s*(?:code|status)[:\s]+(-?\d+)", re.IGNORECASE)
FENCE = re.compile(r"^\s*```[\w-]*\n(.*?)\n?```\s*$", re.DOTALL)


@dataclass
class ToolCall:
    """What the agent said of one tool call so far: each update replaces the fields it carries."""

    tool_call_id: str
    title: str = ""
    kind: str = "other"
    status: str = "pending"
    content: list[Any] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None
    reported: bool = False

    def merge(self, update: Any) -> None:
        if getattr(update, "title", None):
            self.title = str(update.title)
        if getattr(update, "kind", None):
            self.kind = str(update.kind)
        if getattr(update, "status", None):
            self.status = str(update.status)
        if getattr(update, "content", None) is not None:
            self.content = list(update.content)
        if getattr(update, "locations", None):
            self.locations = [str(location.path) for location in update.locations if location.path]
        if getattr(update, "raw_input", None) is not None:
            self.raw_input = update.raw_input
        if getattr(update, "raw_output", None) is not None:
            self.raw_output = update.raw_output


def _unfenced(text: str) -> str:
    """Claude Code's adapter wraps a command's output in a Markdown fence (```console … ```): the output itself."""
    found = FENCE.match(text)
    return found.group(1) if found else text


def _command(call: ToolCall) -> str | None:
    raw = call.raw_input if isinstance(call.raw_input, dict) else {}
    for key in ("command", "cmd"):
        value = raw.get(key)
        if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
            # codex-acp runs ["bash", "-lc", "<script>"]: the script is what the person reads
            if len(value) == 3 and value[1] in ("-c", "-lc") and value[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh"):
                return str(value[2])
            return shlex.join(value)
        if isinstance(value, str) and value.strip():
            return value
    title = plain_title(call.title)
    return title if call.kind == "execute" and title and title != "Terminal" else None


def _output(call: ToolCall) -> tuple[str, int | None]:
    """What the command printed (its text content, else its raw output) and its exit code when the agent said it."""
    raw = call.raw_output
    code: int | None = None
    text = ""
    if isinstance(raw, dict):
        for key in ("exit_code", "exitCode", "code"):
            if isinstance(raw.get(key), int) and not isinstance(raw.get(key), bool):
                code = raw[key]
                break
        for key in ("formatted_output", "aggregated_output", "output", "stdout"):
            if isinstance(raw.get(key), str) and raw[key]:
                text = raw[key]
                if key == "stdout" and isinstance(raw.get("stderr"), str) and raw["stderr"]:
                    text = f"{text.rstrip()}\n{raw['stderr']}"
                break
    elif isinstance(raw, str):
        text = raw
    shown = [_unfenced(content_text(item.content)) for item in call.content
             if isinstance(item, ContentToolCallContent) and getattr(item.content, "type", None) == "text"]
    if shown and (call.status == "failed" or not text):
        text = "\n".join(shown)
    if code is None and call.status == "failed":
        found = EXIT_CODE.search(text)
        code = int(found.group(1)) if found else None
    return text, code


def block(call: ToolCall, cwd: str, status: str | None = None) -> dict[str, Any]:
    """The tool block of the call: its command and output, its file changes, or the names of what it read."""
    changes = [activity.file_change(item.path, item.old_text, item.new_text, cwd) for item in call.content
               if isinstance(item, FileEditToolCallContent)]
    kind = call.kind
    command = _command(call) if kind in ("execute", "other") else None
    if command and kind == "other":
        kind = "execute"
    output, code = _output(call) if kind == "execute" or call.status == "failed" else ("", None)
    if kind == "read":
        output = ""  # what the agent read stays on the machine: its name only
    return activity.record(kind, plain_title(call.title) or kind, status or call.status, tool_id=call.tool_call_id,
                           command=command, exit_code=code, paths=call.locations, output=output, changes=changes,
                           cwd=cwd)


class ToolCalls:
    """A turn's tool calls by id; each one is told as a message once it ends, or when the turn ends without it."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCall] = {}

    def seen(self, update: Any) -> ToolCall:
        call = self.calls.get(update.tool_call_id)
        if call is None:
            call = self.calls[update.tool_call_id] = ToolCall(update.tool_call_id)
        call.merge(update)
        return call

    def ended(self, call: ToolCall) -> bool:
        return call.status in ENDED and not call.reported

    def left_open(self) -> list[ToolCall]:
        return [call for call in self.calls.values() if not call.reported]
