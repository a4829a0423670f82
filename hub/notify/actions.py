"""Single-use, expiring action links: a notification's button answers an interaction without signing in.

The secret travels in the request body (never the URL): ntfy's `http` action posts `{"token": …}` back to
`/api/actions`. The token is stored hashed; it works once, until it expires, for one interaction and one answer.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from hub.auth import secrets
from hub.domain.actors import Actor
from hub.domain.collaboration import interaction_respond
from hub.protocol import payloads as P
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, now_iso
from hub.protocol.errors import LapError
from hub.store.queries import action_links
from hub.store.writer import Command, Tx


def create_action_link(workspace_id: str, interaction_id: str, response: dict[str, Any],
                       ttl_s: float) -> tuple[Command, str]:
    token = secrets.new_token("act")
    expires_at = (datetime.now(UTC) + timedelta(seconds=ttl_s)).isoformat(timespec="seconds")

    def run(tx: Tx) -> None:
        action_links.create(tx, secrets.token_hash(token), workspace_id, interaction_id, json.dumps(response),
                            expires_at)

    return Command(run=run), token


def use_action_link(token: str) -> Command:
    """Answer the interaction as the workspace's owner and spend the link, in one transaction."""
    def run(tx: Tx) -> dict[str, Any]:
        link = action_links.by_token_hash(tx.conn, secrets.token_hash(token))
        if link is None:
            raise LapError("unauthorized", "This action link is not valid.")
        if link.used_at is not None:
            raise LapError("already_resolved", "This action link was already used.",
                           hint="Open the app to see the decision.")
        if datetime.fromisoformat(link.expires_at) <= datetime.now(UTC):
            raise LapError("expired", "This action link has expired.", hint="Answer in the app instead.")
        owner_id = action_links.answering_owner_id(tx.conn, link.workspace_id)
        if owner_id is None:
            raise LapError("not_found", "The workspace has no owner any more.")
        action_links.spend(tx, link.id)
        actor = Actor("user", owner_id, link.workspace_id)
        response = json.loads(link.response)
        env = Envelope(id=f"action-{link.id}", type="interaction.respond", version=PROTOCOL_VERSION,
                       occurredAt=now_iso(), workspaceId=link.workspace_id,
                       payload={"interactionId": link.interaction_id, "response": response, "via": "action_link"})
        interaction_respond(tx, actor, env, P.InteractionRespond(interactionId=link.interaction_id,
                                                                 response=response))
        return {"interactionId": link.interaction_id, "response": response}

    return Command(run=run)
