"""Interaction cards (docs/design.md#interaction-cards): checking a request, checking an answer, and naming the
outcome."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse

import msgspec

from hub.domain.approvals import approved_items, assess_item, combined, stored_item
from hub.domain.command_risk import Assessment, higher
from hub.domain.links import check_link
from hub.domain.patterns import check_pattern, matches
from hub.domain.unified_diff import claims_diff, diff_problem
from hub.protocol.errors import LapError
from hub.protocol.payloads import InteractionSpec

MIN_OPTIONS, MAX_OPTIONS = 2, 20
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
DIFF_HINT = ("Send a unified diff as `git diff` or `diff -u` write it: `--- a/path` and `+++ b/path`, then hunks "
             "`@@ -start,count +start,count @@` whose lines (` ` context, `-` removed, `+` added) match the counts; "
             "or send the text so that it does not start like a diff.")
DEFAULT_APPROVAL_OPTIONS = [
    {"id": "approve", "label": "Approve", "style": "primary"},
    {"id": "reject", "label": "Reject", "style": "danger"},
]


def parse_time(value: str, field: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise LapError("invalid_payload", f"{field} is not an ISO 8601 time: {value!r}") from None
    if parsed.tzinfo is None:
        raise LapError("invalid_payload", f"{field} needs a time zone, e.g. 2026-07-25T12:00:00Z.")
    return parsed


def normalize_spec(spec: InteractionSpec, interaction_id: str, now: datetime,
                   assessments: list[Assessment] | None = None) -> dict[str, Any]:
    """The stored form of a request: checked per type, id assigned, approval options defaulted, and for an approval
    of commands, file changes, tool inputs or a commit every item counted and judged, the risk never lower than the
    hub's own judgement of any item (`assessments`, made before the writer by the gateway: hub/domain/approvals.py;
    made here when missing)."""
    data: dict[str, Any] = msgspec.to_builtins(spec)
    data["id"] = interaction_id
    if spec.approves is not None:
        if spec.type != "approval":
            raise LapError("invalid_payload", "`approves` belongs to an approval only.")
        items = approved_items(spec.approves)
        if assessments is None or len(assessments) != len(items):
            assessments = [assess_item(item) for item in items]
        data["approves"] = [stored_item(item, found) for item, found in zip(items, assessments, strict=True)]
        found = combined(assessments)
        data["risk"] = higher(spec.risk, found.level)
        if found.reasons:
            data["riskReasons"] = found.reasons
            data["riskReasonCodes"] = found.codes
    options = data.get("options", [])
    if spec.type == "approval" and not options:
        data["options"] = options = [dict(o) for o in DEFAULT_APPROVAL_OPTIONS]
    if spec.type in ("approval", "choice"):
        if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
            raise LapError("invalid_payload",
                           f"A {spec.type} needs {MIN_OPTIONS} to {MAX_OPTIONS} options; it has {len(options)}.")
        ids = [o["id"] for o in options]
        if len(set(ids)) != len(ids):
            raise LapError("invalid_payload", "Option ids must be unique.")
    if spec.type == "input" and spec.pattern is not None:
        check_pattern(spec.pattern)  # RE2 only: an agent's pattern never runs on a backtracking engine
    for index, attachment in enumerate(spec.attachments):
        if "url" in attachment:
            check_link(str(attachment["url"]), f"interaction.attachments[{index}].url")
    if spec.type == "review" and not (spec.content or spec.attachments or spec.description):
        raise LapError("invalid_payload", "A review needs content, attachments or a description to review.")
    if spec.type == "review" and spec.content and claims_diff(spec.content):
        problem = diff_problem(spec.content)
        if problem is not None:  # the app would show it as plain text: tell the agent instead (docs/protocol.md)
            raise LapError("invalid_payload", f"The review's content starts like a unified diff but is not a unified "
                                              f"diff: {problem}.", hint=DIFF_HINT)
    if spec.expiresAt is not None and parse_time(spec.expiresAt, "interaction.expiresAt") <= now:
        raise LapError("invalid_payload", "interaction.expiresAt is in the past.")
    return data


def _check_text(spec: dict[str, Any], text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise LapError("invalid_payload", "The answer needs a non-empty `text`.")
    fmt = spec.get("format", "text")
    if spec.get("maxLength") and len(text) > spec["maxLength"]:
        raise LapError("invalid_payload", f"The answer is longer than {spec['maxLength']} characters.")
    if fmt == "url":
        parsed = urlparse(text.strip())
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise LapError("invalid_payload", "The answer must be a URL starting with http:// or https://.")
    elif fmt == "email" and not _EMAIL.match(text.strip()):
        raise LapError("invalid_payload", "The answer must be an email address.")
    elif fmt in ("number", "integer"):
        try:
            float(text) if fmt == "number" else int(text.strip())
        except ValueError:
            wanted = "a number" if fmt == "number" else "a whole number"
            raise LapError("invalid_payload", f"The answer must be {wanted}.") from None
    if spec.get("pattern") and not matches(spec["pattern"], text):
        raise LapError("invalid_payload", f"The answer does not have the requested format: it must match "
                                          f"`{spec['pattern']}`.", hint=f"It must match {spec['pattern']}.")
    return text


def check_response(spec: dict[str, Any], response: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Validate an answer against its request; return (outcome, the response as stored)."""
    comment = response.get("comment")
    if comment is not None and (not isinstance(comment, str) or len(comment) > 4000):
        raise LapError("invalid_payload", "`comment` must be text of at most 4000 characters.")
    extra = {"comment": comment} if comment else {}
    if response.get("declined") is True:
        return "declined", {"declined": True, **extra}
    kind = spec["type"]
    option_ids = [o["id"] for o in spec.get("options", [])]
    if kind == "approval":
        option_id = response.get("optionId")
        if option_id not in option_ids:
            raise LapError("invalid_payload", f"optionId must be one of {option_ids}.")
        option = next(o for o in spec["options"] if o["id"] == option_id)
        approved = option_id != "reject" and option.get("style") != "danger"
        return ("answered" if approved else "declined"), {"optionId": option_id, "approved": approved, **extra}
    if kind == "choice":
        if spec.get("multiple"):
            chosen = response.get("optionIds")
            if not isinstance(chosen, list) or not chosen or len(set(map(str, chosen))) != len(chosen):
                raise LapError("invalid_payload", "A multiple choice answer needs `optionIds`: distinct option ids.")
            if any(c not in option_ids for c in chosen):
                raise LapError("invalid_payload", f"Every option id must be one of {option_ids}.")
            return "answered", {"optionIds": chosen, **extra}
        option_id = response.get("optionId")
        if option_id not in option_ids:
            raise LapError("invalid_payload", f"optionId must be one of {option_ids}.")
        return "answered", {"optionId": option_id, **extra}
    if kind == "input":
        return "answered", {"text": _check_text(spec, response.get("text")), **extra}
    if kind == "review":
        decision = response.get("decision")
        if decision not in ("approve", "request_changes"):
            raise LapError("invalid_payload", "A review answer needs `decision`: approve or request_changes.")
        return "answered", {"decision": decision, **extra}
    raise LapError("invalid_payload", f"Unknown interaction type {kind!r}.")


def is_expired(expires_at: str | None, now: datetime | None = None) -> bool:
    if not expires_at:
        return False
    return parse_time(expires_at, "expiresAt") <= (now or datetime.now(UTC))
