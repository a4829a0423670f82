"""Error codes of LAP/0.1 with a human hint each (docs/design.md#every-failure-says-what-to-do-next)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# code -> (HTTP status, default hint). The codes are the closed list of docs/protocol.md#errors.
ERROR_CODES: dict[str, tuple[int, str]] = {
    "invalid_json": (400, "Send one JSON object per WebSocket text frame."),
    "invalid_envelope": (400, "Check the envelope fields: id, type, version \"0.1\", occurredAt, workspaceId, "
                              "payload."),
    "unsupported_version": (400, "This hub speaks LAP version \"0.1\"; upgrade or downgrade the client."),
    "invalid_payload": (422, "Check the payload against the schema printed by `lineup schema`."),
    "unauthorized": (401, "Sign in again, or pair the agent again with a fresh pairing code (`lineup pair`)."),
    "forbidden": (403, "The credential is valid but does not cover this workspace or object."),
    "not_found": (404, "Check the id; it may belong to another workspace or have been removed."),
    "conflict": (409, "An envelope with this id was already stored with a different payload; use a new id."),
    "illegal_transition": (409, "The task is not in a state that allows this change; fetch the task and retry."),
    "already_resolved": (409, "Someone already answered this; the card shows the decision."),
    "expired": (410, "It has expired; ask for a new one."),
    "rate_limited": (429, "Too many attempts; wait a minute and try again."),
    "storage_full": (507, "The hub's disk is full; nothing was stored. Free space and resend the same envelope."),
    "internal": (500, "The hub hit an unexpected error; resend the same envelope, and report it if it repeats."),
}

# `unauthorized` said to whom it is: an app's token is a signed-in device (the way back is signing in), an agent's
# credential a pairing (the way back is a fresh code). The default hint above names both, for where it is not known.
APP_SIGN_IN_HINT = "Sign in again in the app (or open a new sign-in link from the hub's owner)."
AGENT_PAIR_AGAIN_HINT = ("Pair the agent again with a fresh pairing code (the app's \"Connect my agent\", or "
                         "`lineup pair`).")


class LapError(Exception):
    """A refusal that reaches the client as `system.error` or an HTTP error body.

    `details` is what a program may branch on (the message is for people and may change): for
    illegal_transition, `{"from": the task's status, "to": the status asked for, or None}`."""

    def __init__(self, code: str, message: str, hint: str | None = None,
                 details: Mapping[str, Any] | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown LAP error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint or ERROR_CODES[code][1]
        self.details: dict[str, Any] = dict(details or {})

    @property
    def status(self) -> int:
        return ERROR_CODES[self.code][0]

    def as_payload(self, envelope_id: str | None = None) -> dict[str, object]:
        body: dict[str, object] = {"code": self.code, "message": self.message, "hint": self.hint}
        if self.details:
            body["details"] = self.details
        if envelope_id is not None:
            body = {"id": envelope_id, **body}
        return body

    @property
    def retryable(self) -> bool:
        return self.code in ("storage_full", "internal", "rate_limited")
