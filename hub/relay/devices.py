"""Each person's relay device: its sealing keys and counters, in relay_devices (m014_relay_devices)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hub.protocol.envelope import now_iso
from hub.relay.seal import DeviceKeys
from hub.store.writer import Tx


@dataclass(frozen=True)
class RelayDevice:
    uid: str
    device_id: str
    sealed: bool              # the access was set up with keys: nothing of the app goes in clear to this uid
    keys: DeviceKeys | None   # None: not sealed, or the keys ended (revoked, signed out)
    sent: int                 # the highest counter sealed for the device
    received: int             # the highest counter accepted from it

    @property
    def ended(self) -> bool:
        return self.sealed and self.keys is None


def device(conn: sqlite3.Connection, uid: str) -> RelayDevice | None:
    """The device holding `uid`'s relay access as the hub knows it, or None (never set up from the app)."""
    row = conn.execute("SELECT device_id, sealed, kid, to_device, to_hub, sent, received FROM relay_devices "
                       "WHERE uid = ?", (uid,)).fetchone()
    if row is None:
        return None
    device_id, sealed, kid, to_device, to_hub, sent, received = tuple(row)
    keys = DeviceKeys(kid, uid, bytes(to_device), bytes(to_hub)) if kid and to_device and to_hub else None
    return RelayDevice(uid, device_id, bool(sealed), keys, int(sent), int(received))


def set_up(tx: Tx, uid: str, device_id: str, keys: DeviceKeys | None) -> None:
    """A device was given the access: its keys (None: a browser without WebCrypto) replace the previous ones."""
    tx.conn.execute(
        "INSERT INTO relay_devices (uid, device_id, sealed, kid, to_device, to_hub, sent, received, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?) ON CONFLICT(uid) DO UPDATE SET device_id = excluded.device_id, "
        "sealed = excluded.sealed, kid = excluded.kid, to_device = excluded.to_device, to_hub = excluded.to_hub, "
        "sent = 0, received = 0, created_at = excluded.created_at, ended_at = NULL",
        (uid, device_id, int(keys is not None), keys.kid if keys else None, keys.to_device if keys else None,
         keys.to_hub if keys else None, now_iso()))


def end(tx: Tx, uid: str) -> None:
    """The device's keys end (revoked, signed out): they open nothing the hub sends from now on."""
    tx.conn.execute("UPDATE relay_devices SET kid = NULL, to_device = NULL, to_hub = NULL, ended_at = ? "
                    "WHERE uid = ?", (now_iso(), uid))


def note_sent(tx: Tx, uid: str, kid: str, counter: int) -> None:
    tx.conn.execute("UPDATE relay_devices SET sent = MAX(sent, ?) WHERE uid = ? AND kid = ?", (counter, uid, kid))


def note_received(tx: Tx, uid: str, kid: str, counter: int) -> None:
    tx.conn.execute("UPDATE relay_devices SET received = MAX(received, ?) WHERE uid = ? AND kid = ?",
                    (counter, uid, kid))
