"""Single-use, expiring action links: a notification's button answers an interaction without signing in.

The secret travels in the request body (never the URL): ntfy's `http` action posts `{"token": …}` back to
`/api/actions`. The token is stored hashed; it works once, until it expires, for one interaction and one answer.

A button answers only what may be answered outside the app (hub/notify/outside.py,
docs/notifications.md#what-a-notification-may-answer): no yes to an approval that carries a command, a file change
or a tool's input (the app shows all of it), no "always" or "for this session" option, no yes to a high-risk
question (the app asks twice). No link is made for such an answer, and a link that would give one (an older hub's,
or one written by hand) is refused when pressed. Declining stays one tap. A question that is no longer waiting
(answered, expired, withdrawn, its task ended) refuses its buttons in words a person reads on a phone.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from hub.auth import secrets
from hub.domain.collaboration import CLOSED_BECAUSE, interaction_respond
from hub.domain.interactions import is_expired
from hub.notify.outside import why_not
from hub.protocol import payloads as P
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, now_iso
from hub.protocol.errors import LapError
from hub.store.queries import action_links
from hub.store.queries import interactions as interaction_rows
from hub.store.queries.records import InteractionRecord
from hub.store.writer import Command, Tx

NOTHING_CHANGED = "This button changed nothing."


def refuse_outside_the_app(interaction: InteractionRecord, response: dict[str, Any]) -> None:
    """Refuse an answer a button may not give (hub/notify/outside.py `why_not`), saying where it is given."""
    why = why_not(interaction.to_view().spec, interaction.risk, response)
    if why is None:
        return
    if why == "items":
        raise LapError("forbidden", "Approvals of commands, file changes and tool input are made in the app, where "
                                    f"all of it is shown. {NOTHING_CHANGED}",
                       hint="Open LineUp to see it and approve there; a notification's button can only reject it.")
    if why == "remembers":
        raise LapError("forbidden", "“Always” and “for this session” are chosen in the app, where what they allow is "
                                    f"shown. {NOTHING_CHANGED}",
                       hint="Open LineUp to choose it there; a notification's button answers this once only.")
    if interaction.type == "approval":
        raise LapError("forbidden", "High-risk approvals are confirmed in the app: open it to approve.",
                       hint="The app shows the whole action and asks you to confirm; a notification's button "
                            "can only reject it.")
    raise LapError("forbidden", "High-risk questions are answered in the app: open it to answer.",
                   hint="The app shows the whole question and asks you to confirm; a notification's button "
                        "can only decline it.")


def create_action_link(workspace_id: str, interaction_id: str, response: dict[str, Any],
                       ttl_s: float) -> tuple[Command, str]:
    token = secrets.new_token("act")
    expires_at = (datetime.now(UTC) + timedelta(seconds=ttl_s)).isoformat(timespec="seconds")

    def run(tx: Tx) -> None:
        interaction = interaction_rows.interaction(tx.conn, interaction_id, workspace_id)
        if interaction is None:
            raise LapError("not_found", f"No interaction {interaction_id!r} in this workspace.")
        refuse_outside_the_app(interaction, response)
        action_links.create(tx, secrets.token_hash(token), workspace_id, interaction_id, json.dumps(response),
                            expires_at)

    return Command(run=run), token


def _when(value: str | None) -> str:
    """A stored time as a person reads it: `2026-07-25 14:02:03 UTC`."""
    if not value:
        return ""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _decision(spec: dict[str, Any], response: Any) -> str:
    """What was decided, in the question's own words (an option's label) where it has them."""
    if not isinstance(response, dict):
        return ""
    if response.get("declined") is True:
        return "declined"
    labels = {o.get("id"): str(o.get("label") or o.get("id")) for o in spec.get("options", [])}
    if "optionId" in response:
        return labels.get(response["optionId"], str(response["optionId"]))
    if isinstance(response.get("optionIds"), list):
        return ", ".join(labels.get(i, str(i)) for i in response["optionIds"])
    if response.get("decision") in ("approve", "request_changes"):
        return "approved" if response["decision"] == "approve" else "changes requested"
    return ""


def stale(interaction: InteractionRecord) -> LapError | None:
    """Why a button of this question can no longer answer it, or None while it waits."""
    if interaction.status == "expired" or (interaction.status == "pending" and is_expired(interaction.expires_at)):
        return LapError("expired", f"This question expired at {_when(interaction.expires_at)}; it can no longer be "
                                   f"answered. {NOTHING_CHANGED}", hint="Open LineUp to see it.")
    if interaction.status == "pending":
        return None
    when = f" at {_when(interaction.responded_at)}" if interaction.responded_at else ""
    card = interaction.to_view()
    response = card.response
    if interaction.status == "cancelled":
        cause = response.get("cause") if isinstance(response, dict) else None
        if cause == "withdrawn":
            reason = response.get("reason") if isinstance(response, dict) else None
            words = f"The agent withdrew this question{when}" + (f": {reason}" if reason else "") + "."
        elif cause == "task_ended":
            status = response.get("taskStatus") if isinstance(response, dict) else None
            words = f"This question's task ended{f' ({status})' if status else ''}{when}."
        elif cause in CLOSED_BECAUSE:
            words = f"This question was closed{when}: {CLOSED_BECAUSE[cause]}."
        else:
            words = f"This question was closed{when}."
        return LapError("already_resolved", f"{words} It can no longer be answered. {NOTHING_CHANGED}",
                        hint="Open LineUp to see it.")
    name = card.respondedBy.get("displayName") if card.respondedBy else None
    decision = _decision(card.spec, response)
    return LapError("already_resolved", f"This question was already answered{f' by {name}' if name else ''}{when}"
                                        f"{f': {decision}' if decision else ''}. {NOTHING_CHANGED}",
                    hint="Open LineUp to see the decision.")


def use_action_link(token: str) -> Command:
    """Answer the interaction as the workspace's owner and spend the link, in one transaction."""
    def run(tx: Tx) -> dict[str, Any]:
        link = action_links.by_token_hash(tx.conn, secrets.token_hash(token))
        if link is None:
            raise LapError("unauthorized", "This action link is not valid.")
        interaction = interaction_rows.interaction(tx.conn, link.interaction_id, link.workspace_id)
        if interaction is None:
            raise LapError("not_found", "This question no longer exists.", hint="Open LineUp to see what waits.")
        closed = stale(interaction)
        if closed is not None:  # said first: what happened to the question is what the person needs to know
            raise closed
        if link.used_at is not None:
            raise LapError("already_resolved", f"This button was already used. {NOTHING_CHANGED}",
                           hint="Open LineUp to see the decision.")
        if datetime.fromisoformat(link.expires_at) <= datetime.now(UTC):
            raise LapError("expired", "This button has expired; the question still waits for you.",
                           hint="Open LineUp to answer it.")
        response = json.loads(link.response)
        refuse_outside_the_app(interaction, response)  # a link an older hub made, or one written by hand
        owner_id = action_links.answering_owner_id(tx.conn, link.workspace_id)
        if owner_id is None:
            raise LapError("not_found", "The workspace has no owner any more.")
        action_links.spend(tx, link.id)
        actor = Actor("user", owner_id, link.workspace_id)
        env = Envelope(id=f"action-{link.id}", type="interaction.respond", version=PROTOCOL_VERSION,
                       occurredAt=now_iso(), workspaceId=link.workspace_id,
                       payload={"interactionId": link.interaction_id, "response": response, "via": "action_link"})
        interaction_respond(tx, actor, env, P.InteractionRespond(interactionId=link.interaction_id,
                                                                 response=response))
        decision = _decision(interaction.to_view().spec, response)
        return {"interactionId": link.interaction_id, "response": response,
                "message": f"Answered “{interaction.title}”{f': {decision}' if decision else ''}."}

    return Command(run=run)
