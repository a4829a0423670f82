"""Resolving a bearer secret (device token or agent credential) to the actor it stands for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hub.auth.secrets import token_hash
from hub.domain.actors import Actor

if TYPE_CHECKING:
    from hub.core import Hub


async def app_actor(hub: Hub, token: str) -> Actor | None:
    """The person behind a device token, or None if it is unknown or revoked."""
    digest = token_hash(token)
    row = await hub.read(lambda c: c.execute(
        "SELECT d.id AS device_id, d.user_id, d.workspace_id FROM devices d JOIN users u ON u.id = d.user_id "
        "WHERE d.token_hash = ? AND d.revoked_at IS NULL", (digest,)).fetchone())
    if row is None:
        return None
    return Actor("user", row["user_id"], row["workspace_id"], device_id=row["device_id"])


async def agent_actor(hub: Hub, credential: str) -> Actor | None:
    """The agent behind a credential, or None if it is unknown or revoked."""
    digest = token_hash(credential)
    row = await hub.read(lambda c: c.execute(
        "SELECT c.agent_id, c.workspace_id FROM credentials c JOIN agents a ON a.id = c.agent_id "
        "WHERE c.secret_hash = ? AND c.revoked_at IS NULL AND a.revoked_at IS NULL", (digest,)).fetchone())
    if row is None:
        return None
    return Actor("agent", row["agent_id"], row["workspace_id"])
