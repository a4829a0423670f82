"""An input question's `pattern`: accepted only if RE2 (linear time) runs it cheaply, and checked by RE2 only."""

from __future__ import annotations

from typing import Any

import re2  # google-re2: a pattern from an agent must never reach a backtracking engine (docs/security.md#agents)

from hub.protocol.errors import LapError

MAX_PATTERN_CHARS = 500       # the same bound as the payload type (hub/protocol/payloads.py)
MAX_PROGRAM_SIZE = 1000       # RE2's compiled size: matching costs at most (text length × this) steps
MAX_CHECKED_CHARS = 10_000    # an answer checked against a pattern is at most this long (a pattern is for short codes)

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False   # RE2 would print the agent's pattern to stderr on every refusal
_OPTIONS.never_capture = True  # only "does it match": no submatch pass, which costs far more than the match


def _compile(pattern: str) -> Any:
    """The compiled pattern, or LapError(invalid_payload) naming it and saying why it is refused."""
    if not isinstance(pattern, str) or not pattern:
        raise LapError("invalid_payload", "interaction.pattern must be a non-empty string.")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise LapError("invalid_payload", f"interaction.pattern is longer than {MAX_PATTERN_CHARS} characters: "
                                          f"`{pattern[:60]}…`")
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise LapError("invalid_payload", f"interaction.pattern is not a valid regular expression (RE2 syntax): "
                                          f"`{pattern}` ({reason})",
                       hint="Patterns use RE2 syntax: no backreferences, lookahead or lookbehind.") from None
    if compiled.programsize > MAX_PROGRAM_SIZE:
        raise LapError("invalid_payload", f"interaction.pattern is too complex to check ({compiled.programsize} RE2 "
                                          f"instructions, at most {MAX_PROGRAM_SIZE}): `{pattern}`",
                       hint="Use smaller repetition counts, e.g. {1,50} rather than {1,900}.")
    return compiled


def check_pattern(pattern: str) -> None:
    """Refuse, at request time, a pattern the hub would not check an answer against (LapError invalid_payload)."""
    _compile(pattern)


def matches(pattern: str, text: str) -> bool:
    """Whether the whole `text` matches `pattern`, by RE2 only. A stored pattern RE2 refuses (one accepted before
    this check existed) and an over-long text are refused with LapError, never run by a backtracking engine."""
    if len(text) > MAX_CHECKED_CHARS:
        raise LapError("invalid_payload", f"An answer checked against a pattern is at most {MAX_CHECKED_CHARS} "
                                          f"characters; this one has {len(text)}.")
    try:
        compiled = _compile(pattern)
    except LapError as exc:
        raise LapError("invalid_payload", f"This question's pattern cannot be checked safely, so no answer can be "
                                          f"accepted: {exc.message}",
                       hint="Decline the question; the agent can ask again with an RE2 pattern.") from None
    return compiled.fullmatch(text) is not None
