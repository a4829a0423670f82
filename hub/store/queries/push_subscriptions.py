"""Web Push subscriptions, one per signed-in device: stored, listed for a workspace or a person, dropped."""
# Not a projection of the log (hub/store/migrations.py, m013_push_subscriptions): a subscription is this device's
# address at its browser's push service, which the log has no business keeping. A revoked device gets nothing: every
# read joins the devices table.

from __future__ import annotations

import sqlite3

import msgspec

from hub.protocol.envelope import new_id, now_iso
from hub.store.queries.records import fetch_all
from hub.store.writer import Tx


class PushSubscription(msgspec.Struct, frozen=True, gc=False):
    id: str
    device_id: str
    workspace_id: str
    user_id: str
    endpoint: str
    p256dh: str
    auth: str
    created_at: str
    last_sent_at: str | None
    last_error: str | None
    device_name: str  # the devices table's name ("Pixel 8 · Chrome")

    def __repr__(self) -> str:  # the keys never reach a log line or a traceback
        return f"PushSubscription(id={self.id!r}, device_id={self.device_id!r})"


_SELECT = ("SELECT s.id, s.device_id, s.workspace_id, s.user_id, s.endpoint, s.p256dh, s.auth, s.created_at, "
           "s.last_sent_at, s.last_error, d.name FROM push_subscriptions s JOIN devices d ON d.id = s.device_id "
           "AND d.workspace_id = s.workspace_id WHERE d.revoked_at IS NULL")


def save(tx: Tx, device_id: str, workspace_id: str, user_id: str, endpoint: str, p256dh: str, auth: str) -> str:
    """This device's subscription, replacing the one it had (a browser renews its own); returns its id."""
    tx.conn.execute("DELETE FROM push_subscriptions WHERE device_id = ?", (device_id,))
    subscription_id = new_id("push")
    tx.conn.execute("INSERT INTO push_subscriptions (id, device_id, workspace_id, user_id, endpoint, p256dh, auth, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (subscription_id, device_id, workspace_id, user_id, endpoint, p256dh, auth, now_iso()))
    return subscription_id


def of_workspace(conn: sqlite3.Connection, workspace_id: str) -> list[PushSubscription]:
    """The live subscriptions of the workspace's devices, oldest first."""
    return fetch_all(conn, PushSubscription, f"{_SELECT} AND s.workspace_id = ? ORDER BY s.created_at, s.id",
                     (workspace_id,))


def of_user(conn: sqlite3.Connection, workspace_id: str, user_id: str) -> list[PushSubscription]:
    """A person's own devices that get pushes (Settings lists and stops them, as it lists their devices)."""
    return fetch_all(conn, PushSubscription, f"{_SELECT} AND s.workspace_id = ? AND s.user_id = ? "
                     "ORDER BY s.created_at, s.id", (workspace_id, user_id))


def drop(tx: Tx, subscription_id: str, workspace_id: str, user_id: str | None = None) -> bool:
    """Stop pushes to this subscription (its person's Stop in Settings, or the push service said it is gone)."""
    cursor = tx.conn.execute("DELETE FROM push_subscriptions WHERE id = ? AND workspace_id = ? "
                             "AND (? IS NULL OR user_id = ?)", (subscription_id, workspace_id, user_id, user_id))
    return cursor.rowcount > 0


def sent(tx: Tx, subscription_id: str, error: str | None) -> None:
    """What the last push to this subscription did: delivered now (no error), or the error in words."""
    if error is None:
        tx.conn.execute("UPDATE push_subscriptions SET last_sent_at = ?, last_error = NULL WHERE id = ?",
                        (now_iso(), subscription_id))
    else:
        tx.conn.execute("UPDATE push_subscriptions SET last_error = ? WHERE id = ?", (error[:300], subscription_id))
