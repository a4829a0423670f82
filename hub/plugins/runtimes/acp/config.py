"""The `acp` runtime's options from lineup.toml (documented in the package docstring), checked at start-up."""

from __future__ import annotations

from dataclasses import dataclass

from hub import AgentConfig, RuntimeConfigError

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
    return AcpOptions(
        fs=fs, terminal=terminal,
        init_timeout_s=float(options.get("init_timeout_s", 60.0)),
        cancel_grace_s=float(options.get("cancel_grace_s", 10.0)),
        kill_grace_s=float(options.get("kill_grace_s", 5.0)),
        max_reply_chars=int(options.get("max_reply_chars", DEFAULT_MAX_REPLY_CHARS)))
