"""Each person's relay device: its sealing keys and counters, in relay_devices (m014_relay_devices)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hub.relay.seal import DeviceKeys
from hub.store.queries import relay_devices as rows
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
    row = rows.device(conn, uid)
    if row is None:
        return None
    device_id, sealed, kid, to_device, to_hub, sent, received = row
    keys = DeviceKeys(kid, uid, to_device, to_hub) if kid and to_device and to_hub else None
    return RelayDevice(uid, device_id, bool(sealed), keys, sent, received)


def set_up(tx: Tx, uid: str, device_id: str, keys: DeviceKeys | None) -> None:
    """A device was given the access: its keys (None: a browser without WebCrypto) replace the previous ones."""
    rows.set_up(tx, uid, device_id, keys.kid if keys else None, keys.to_device if keys else None,
                keys.to_hub if keys else None)


def end(tx: Tx, uid: str) -> None:
    """The device's keys end (revoked, signed out): they open nothing the hub sends from now on."""
    rows.end(tx, uid)


def note_sent(tx: Tx, uid: str, kid: str, counter: int) -> None:
    rows.note_sent(tx, uid, kid, counter)


def note_received(tx: Tx, uid: str, kid: str, counter: int) -> None:
    rows.note_received(tx, uid, kid, counter)
