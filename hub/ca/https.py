"""The hub on https with its own CA beside plain HTTP on one port: a new certificate when its addresses change."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import ssl
from pathlib import Path

from hub.ca.authority import HubCA, Names, leaf_names
from hub.ca.listener import SniffingServer
from hub.ca.names import hub_names, lan_networks

log = logging.getLogger("lineup.tls")

CHECK_ADDRESSES_EVERY_S = 30.0  # a laptop that joins another network gets a new leaf within this


def ca_folder(data_dir: Path) -> Path:
    return data_dir / "tls" / "hub-ca"


class LanHttps:
    """Made by build_server; `prepare` runs once the hub knows its id (its `.local` name), before it listens."""

    def __init__(self, data_dir: Path, listen_host: str) -> None:
        self.store = HubCA(ca_folder(data_dir))
        self.listen_host = listen_host
        self.context: ssl.SSLContext | None = None
        self.names = Names((), ())  # what the current leaf is valid for
        self.hub_id = ""
        self.server: SniffingServer | None = None
        self._watching: asyncio.Task[None] | None = None

    def prepare(self, hub_id: str) -> ssl.SSLContext:
        """The CA (made on first start, limited to this hub's names and networks) and a leaf for the names now."""
        self.hub_id = hub_id
        names = hub_names(hub_id, self.listen_host)
        label = socket.gethostname().split(".")[0] or "hub"
        self.store.ensure_ca(label, list(names.dns), lan_networks(list(names.ips)))
        self.refresh(names)
        assert self.context is not None
        return self.context

    def refresh(self, names: Names | None = None) -> bool:
        """A new leaf (same CA) when the hub's addresses changed; new connections get it at once."""
        names = names or hub_names(self.hub_id, self.listen_host)
        renewed = self.store.ensure_leaf(names)
        if renewed or self.context is None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            context.load_cert_chain(self.store.leaf_path, self.store.leaf_key_path)
            self.context = context
            leaf = self.store.leaf()
            assert leaf is not None
            self.names = leaf_names(leaf)
            if self.server is not None:
                self.server.context = context
            if renewed:
                log.info("https certificate for %s", ", ".join([*self.names.dns, *self.names.ips]))
        return renewed

    def covers(self, host: str | None) -> bool:
        """Whether the current leaf is valid for this host name or address (a browser would accept it)."""
        if not host:
            return False
        name = host.strip("[]").rstrip(".").lower()
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return name in self.names.dns
        return any(address == ipaddress.ip_address(ip) for ip in self.names.ips)

    def watch(self) -> None:
        self._watching = asyncio.get_running_loop().create_task(self._watch(), name="lineup-https-names")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(CHECK_ADDRESSES_EVERY_S)
            try:
                await asyncio.to_thread(self.refresh)
            except Exception:  # the old leaf keeps serving; try again at the next check
                log.exception("could not renew the https certificate")

    async def stop(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
            await asyncio.gather(self._watching, return_exceptions=True)
