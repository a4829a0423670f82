"""Resolving a bearer secret (device token or agent credential) to the actor it stands for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hub.auth.secrets import token_hash
from hub.protocol.actors import Actor
from hub.store.queries import accounts as people

if TYPE_CHECKING:
    from hub.ports import Reader


async def app_actor(hub: Reader, token: str) -> Actor | None:
    """The person behind a device token, or None if it is unknown or revoked."""
    digest = token_hash(token)
    owner = await hub.read(lambda c: people.device_owner(c, digest))
    if owner is None:
        return None
    return Actor("user", owner.user_id, owner.workspace_id, device_id=owner.device_id)


async def agent_actor(hub: Reader, credential: str) -> Actor | None:
    """The agent behind a credential, or None if it is unknown or revoked."""
    digest = token_hash(credential)
    owner = await hub.read(lambda c: people.credential_owner(c, digest))
    if owner is None:
        return None
    return Actor("agent", owner.agent_id, owner.workspace_id)
