"""The WuKongIM uplink (docs/relay.md): the hub and its people meet through WuKongIM when away from the LAN."""

from __future__ import annotations

from hub.relay.uplink import Uplink

__all__ = ["Uplink"]
