"""The `acp` runtime's options from lineup.toml (documented in the package docstring), checked at start-up."""

from __future__ import annotations

from dataclasses import dataclass

from hub.runtimes.base import AgentConfig, RuntimeConfigError

DEFAULT_MAX_REPLY_CHARS = 200_000       # a message is at most 256 KiB of text


@dataclass(frozen=True)
class AcpOptions:
    """What one ACP agent is offered and how long it is waited for."""

    fs: bool                    # fs/read_text_file and fs/write_text_file, inside `cwd` only
    terminal: bool              # terminal/*, commands run in `cwd`
    init_timeout_s: float       # `initialize`, `session/new`, `session/load`
    cancel_grace_s: float       # after `session/cancel`, before the turn is left behind
    kill_grace_s: float         # on stop: SIGTERM, then SIGKILL after this
    max_reply_chars: int        # a longer reply is cut with a note
    # The agent stops waiting for a permission answer after this long and denies by itself, telling the client
    # nothing (Hermes's ACP adapter: a fixed 60 s). The card carries that deadline and is withdrawn when it passes.
    permission_timeout_s: float | None = None
    # What this agent needs in order to start, said after a failed start (OpenClaw: its Gateway must run).
    unavailable_hint: str = ""


def read_options(config: AgentConfig) -> AcpOptions:
    """The agent's options; ValueError / RuntimeConfigError name the setting to fix."""
    if not config.command:
        raise ValueError(f"agent {config.name!r}: the acp runtime needs `command`")
    options = config.options
    for key in ("fs", "terminal"):
        if not isinstance(options.get(key, False), bool):
            raise RuntimeConfigError(f"agent {config.name!r}: `{key}` must be true or false")
    fs: bool = options.get("fs", False)
    terminal: bool = options.get("terminal", False)
    if fs and config.cwd is None:
        raise RuntimeConfigError(f"agent {config.name!r}: `fs = true` needs `cwd`, the folder the agent may "
                                 "read and write")
    timeout = options.get("permission_timeout_s")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 1):
        raise RuntimeConfigError(f"agent {config.name!r}: `permission_timeout_s` must be a number of seconds over 1")
    hint = options.get("unavailable_hint", "")
    if not isinstance(hint, str) or len(hint) > 1000:
        raise RuntimeConfigError(f"agent {config.name!r}: `unavailable_hint` must be text of at most 1000 characters")
    return AcpOptions(
        fs=fs, terminal=terminal, permission_timeout_s=float(timeout) if timeout is not None else None,
        unavailable_hint=hint,
        init_timeout_s=float(options.get("init_timeout_s", 60.0)),
        cancel_grace_s=float(options.get("cancel_grace_s", 10.0)),
        kill_grace_s=float(options.get("kill_grace_s", 5.0)),
        max_reply_chars=int(options.get("max_reply_chars", DEFAULT_MAX_REPLY_CHARS)))
