"""The relay's transport boundary for sealed devices: seal right before a send, open right after a receive."""
# Everything above this boundary (the outbox, the inbound handler, any envelope or control op added later) works
# on plain payloads; WuKongIM carries only what leaves here. A person whose access was set up with keys
# (hub/relay/devices.py) gets every LineUp payload (5201, 5202) sealed and may send only sealed ones: an unsealed
# envelope from their uid is refused like a tampered one, since anyone holding WuKongIM's manager token can send
# as any uid. IM text (type 1) is plain by nature and passes as it is; whether it is sent or accepted at all is
# the person's `text` setting (hub/relay/config.py).

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from hub.relay import devices, seal, wire
from hub.relay.transport import Inbound
from hub.store.queries import relay as store
from hub.store.writer import Command, Tx

if TYPE_CHECKING:
    from hub.ports import HubCore

log = logging.getLogger("lineup.relay")
APP_TYPES = (wire.LAP, wire.CONTROL)
WHY = {"malformed": "not a sealed payload it can read", "unknown_key": "sealed with a key it does not hold "
       "(revoked, replaced, or not this device's)", "tampered": "its tag does not hold (changed on the way, or "
       "not sealed by the device)", "replayed": "its counter was seen already or goes backwards (replayed or "
       "reordered)", "unsealed": "a LineUp payload in clear from a person whose device seals"}


@dataclass(frozen=True)
class Outgoing:
    payload: dict[str, Any]            # what goes to WuKongIM
    kid: str | None = None             # set when sealed: the counter is recorded with the send's acknowledgement
    counter: int = 0

    def record(self, tx: Tx, uid: str) -> None:
        if self.kid is not None:
            devices.note_sent(tx, uid, self.kid, self.counter)


Refused = Callable[[str, str, str], Awaitable[None]]  # (uid, reason, message id)


class Sealing:
    def __init__(self, hub: HubCore, refused: Refused) -> None:
        self.hub = hub
        self.refused = refused
        self._sent: dict[str, int] = {}  # per key id: the last counter used by this run

    async def device(self, uid: str) -> devices.RelayDevice | None:
        return await self.hub.read(functools.partial(devices.device, uid=uid))

    def _counter(self, device: devices.RelayDevice, kid: str) -> int:
        # Higher than any sent before, also after a restart that lost the last one: the clock in microseconds has
        # moved on since (only a clock set back across a crash could repeat one; the device then refuses it).
        counter = max(self._sent.get(kid, device.sent) + 1, time.time_ns() // 1000)
        self._sent[kid] = counter
        return counter

    async def outgoing(self, uid: str, payload: dict[str, Any]) -> Outgoing | None:
        """What to send for `payload`; None when it must not go at all (the person's sealed keys ended)."""
        if wire.content_type(payload) not in APP_TYPES:
            return Outgoing(payload)
        device = await self.device(uid)
        if device is None or not device.sealed:
            return Outgoing(payload)  # set up without keys (no WebCrypto, or `lineup relay pair`): in clear
        if device.keys is None:
            return None
        counter = self._counter(device, device.keys.kid)
        return Outgoing(seal.seal(device.keys, seal.TO_DEVICE, payload, counter), device.keys.kid, counter)

    async def incoming(self, message: Inbound) -> Inbound | None:
        """The message with its payload opened, as it is when not sealed, or None: refused, reported, recorded."""
        kind = wire.content_type(message.payload)
        if kind != wire.SEALED and kind not in APP_TYPES:
            return message
        uid = message.from_uid
        device = await self.device(uid)
        if kind != wire.SEALED:
            if device is None or not device.sealed:
                return message
            await self._refuse(message, "unsealed")
            return None
        try:
            payload, counter = seal.open_sealed(device.keys if device else None, seal.TO_HUB,
                                                message.payload or {}, device.received if device else 0)
        except seal.SealError as exc:
            await self._refuse(message, exc.reason)
            return None
        assert device is not None and device.keys is not None
        kid = device.keys.kid
        await self.hub.execute(Command(run=lambda tx: devices.note_received(tx, uid, kid, counter)))
        return replace(message, payload=payload)

    async def _refuse(self, message: Inbound, reason: str) -> None:
        log.warning("relay: refused message %s from %s: %s", message.message_id, message.from_uid, WHY[reason])

        def run(tx: Tx) -> None:  # handled: a reconcile reading the channel again does not report it twice
            store.record_inbound(tx, message.message_id, message.from_uid, message.message_seq, f"refused_{reason}")
        await self.hub.execute(Command(run=run))
        await self.refused(message.from_uid, reason, message.message_id)


def effective(person: Any, device: devices.RelayDevice | None) -> Any:
    """The person as the relay serves them now: no app payloads once their sealed keys ended, and IM text only
    when set or when their app does not seal."""
    sealed = device is not None and device.sealed
    return replace(person, lap=person.lap and not (device is not None and device.ended), text=person.texts(sealed))
