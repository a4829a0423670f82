"""The rows of relay_devices (m014_relay_devices): each person's relay device, its derived sealing keys and counters.

hub/relay/devices.py gives them their meaning (sealed, ended, the keys as the seal uses them); the SQL lives here,
as everywhere outside the store's own modules (tests/unit/test_sql_boundary.py).
"""

from __future__ import annotations

import sqlite3

from hub.protocol.envelope import now_iso
from hub.store.writer import Tx

# (device_id, sealed, kid, to_device, to_hub, sent, received)
DeviceRow = tuple[str, int, str | None, bytes | None, bytes | None, int, int]


def device(conn: sqlite3.Connection, uid: str) -> DeviceRow | None:
    row = conn.execute("SELECT device_id, sealed, kid, to_device, to_hub, sent, received FROM relay_devices "
                       "WHERE uid = ?", (uid,)).fetchone()
    if row is None:
        return None
    device_id, sealed, kid, to_device, to_hub, sent, received = tuple(row)
    return (str(device_id), int(sealed), kid, bytes(to_device) if to_device else None,
            bytes(to_hub) if to_hub else None, int(sent), int(received))


def set_up(tx: Tx, uid: str, device_id: str, kid: str | None, to_device: bytes | None, to_hub: bytes | None) -> None:
    """A device was given the access: its keys (None: a browser without WebCrypto) replace the previous ones."""
    tx.conn.execute(
        "INSERT INTO relay_devices (uid, device_id, sealed, kid, to_device, to_hub, sent, received, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?) ON CONFLICT(uid) DO UPDATE SET device_id = excluded.device_id, "
        "sealed = excluded.sealed, kid = excluded.kid, to_device = excluded.to_device, to_hub = excluded.to_hub, "
        "sent = 0, received = 0, created_at = excluded.created_at, ended_at = NULL",
        (uid, device_id, int(kid is not None), kid, to_device, to_hub, now_iso()))


def end(tx: Tx, uid: str) -> None:
    tx.conn.execute("UPDATE relay_devices SET kid = NULL, to_device = NULL, to_hub = NULL, ended_at = ? "
                    "WHERE uid = ?", (now_iso(), uid))


def note_sent(tx: Tx, uid: str, kid: str, counter: int) -> None:
    tx.conn.execute("UPDATE relay_devices SET sent = MAX(sent, ?) WHERE uid = ? AND kid = ?", (counter, uid, kid))


def note_received(tx: Tx, uid: str, kid: str, counter: int) -> None:
    tx.conn.execute("UPDATE relay_devices SET received = MAX(received, ?) WHERE uid = ? AND kid = ?",
                    (counter, uid, kid))
