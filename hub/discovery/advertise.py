"""Advertising the hub on the LAN: one AsyncZeroconf, registered only once the port is listening.

Follows python-zeroconf's and Home Assistant's practice (docs/style.md#one-zeroconf-per-process): one instance per
process owned by one object, `allow_name_change=True` so two hubs with the same name both appear, a small TXT record
without secrets, goodbye packets on shutdown, and interfaces restricted when configured (tests use 127.0.0.1 only).
"""

from __future__ import annotations

import logging
import socket
from typing import Any

from zeroconf import IPVersion, ServiceInfo
from zeroconf.asyncio import AsyncZeroconf

from hub.discovery import SERVICE_TYPE
from hub.discovery.names import instance_name

log = logging.getLogger("lineup.discovery")


def txt_record(hub_id: str, version: str, needs_setup: bool, agent_tls_port: int | None = None) -> dict[str, str]:
    """What a phone needs before connecting; nothing secret (anyone on the LAN can read it). `agentTls` is the
    port of the TLS listener for agents (hub/server.py), when the hub has one: agents found this way pair there."""
    record = {"hubId": hub_id, "version": version, "protocol": "0.1", "api": "/api",
              "signIn": "setup" if needs_setup else "required"}
    if agent_tls_port:
        record["agentTls"] = str(agent_tls_port)
    return record


def server_name(hub_id: str, machine: str | None = None) -> str:
    """A host name of this hub's own (`<machine>-lineup-<id>.local.`), never the machine's `<host>.local.`.

    Sharing the machine's name merged A records across hubs and with the system's own mDNS responder: a hub
    bound to 127.0.0.1 was listed at the machine's LAN address, which it does not listen on.
    """
    host = (machine if machine is not None else socket.gethostname()).split(".")[0]
    label = instance_name(host).replace(" ", "-")[:40].strip("-") or "hub"
    return f"{label}-lineup-{hub_id[:8] or 'hub'}.local."


class Advertiser:
    def __init__(self, *, interfaces: list[str] | None, addresses: list[str], port: int, hub_id: str = "") -> None:
        self.interfaces = interfaces
        self.addresses = addresses  # only the addresses the hub listens on
        self.port = port
        self.server = server_name(hub_id)
        self.zeroconf: AsyncZeroconf | None = None
        self.info: ServiceInfo | None = None

    def _service_info(self, name: str, properties: dict[str, str]) -> ServiceInfo:
        label = instance_name(name)
        return ServiceInfo(SERVICE_TYPE, f"{label}.{SERVICE_TYPE}", port=self.port, properties=properties,
                           parsed_addresses=self.addresses, server=self.server)

    async def start(self, name: str, properties: dict[str, str]) -> str:
        """Register the service; returns the instance name actually used (renamed on a conflict)."""
        interfaces: Any = self.interfaces if self.interfaces else None
        self.zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only) if interfaces \
            else AsyncZeroconf(ip_version=IPVersion.V4Only)
        self.info = self._service_info(name, properties)
        await self.zeroconf.async_register_service(self.info, allow_name_change=True)
        log.info("advertising %s on port %d (%s)", self.info.name, self.port, ", ".join(self.addresses))
        return self.info.name

    async def update(self, name: str, properties: dict[str, str]) -> None:
        """A new hub name or TXT: re-register under the new name (goodbye for the old one)."""
        if self.zeroconf is None or self.info is None:
            return
        new_info = self._service_info(name, properties)
        if new_info.name == self.info.name:
            await self.zeroconf.async_update_service(new_info)
        else:
            await self.zeroconf.async_unregister_service(self.info)
            await self.zeroconf.async_register_service(new_info, allow_name_change=True)
        self.info = new_info

    async def stop(self) -> None:
        """Goodbye packets first, then close: clients drop the hub from their lists at once."""
        if self.zeroconf is None:
            return
        try:
            await self.zeroconf.async_unregister_all_services()
        finally:
            await self.zeroconf.async_close()
            self.zeroconf = None
