"""What the Web Push channel (plugins/notifiers/webpush.py) uses of the core, in one place: the devices' subscriptions
(a table no public API reaches: they belong to hub/auth's signed-in devices), the VAPID keys, the endpoint rule and
the payloads."""

from __future__ import annotations

import sqlite3
from typing import Any

from hub.notify.push_endpoints import allowed, origin
from hub.notify.push_payload import digest_payload, push_payload
from hub.notify.vapid import VapidKeys, load_or_create
from hub.store.queries import push_subscriptions as push_store
from hub.store.queries.push_subscriptions import PushSubscription
from hub.store.writer import Command, Tx

__all__ = ["PushSubscription", "VapidKeys", "allowed", "digest_payload", "load_or_create", "origin", "push_payload",
           "record", "subscriptions"]


def subscriptions(conn: sqlite3.Connection, workspace_id: str) -> list[PushSubscription]:
    return push_store.of_workspace(conn, workspace_id)


async def record(hub: Any, subscription: PushSubscription, error: str | None, *, gone: bool = False) -> None:
    """What a push did: taken (no error), refused (the error in words), or the device gone (404/410): dropped."""
    def run(tx: Tx) -> None:
        if gone:
            push_store.drop(tx, subscription.id, subscription.workspace_id)
        else:
            push_store.sent(tx, subscription.id, error)
    await hub.execute(Command(run=run))
