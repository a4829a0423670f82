"""What a hub-side tool handler gets and raises: ToolContext and ToolError (public: re-exported by `hub`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class ToolError(Exception):
    """Raised by a handler to answer a call with an error: `code` and a message for the caller."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class ToolContext:
    """What a hub-side handler gets besides the action and arguments."""

    call_id: str
    caller: dict[str, str]                 # {"kind": "agent" | "app", "id": ...}
    workspace_id: str
    instance_id: str | None = None
    state: dict[str, Any] = field(default_factory=dict)  # an app-type tool's instance state: change it in place
    config: dict[str, Any] = field(default_factory=dict)  # the plugin's `[plugins.<name>]` table of lineup.toml
