"""Finding hubs on the LAN (`lineup discover`, the SDK and the demo agent when no address is given)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from zeroconf import DNSQuestionType, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from hub.discovery import SERVICE_TYPE

# Every question asks for answers by multicast (QM). zeroconf's default first question asks for a unicast answer
# (QU), sent to port 5353 of the asker's address; that port is shared by every mDNS socket of the machine (avahi, a
# hub running beside us, another browser), and the kernel hands such an answer to one of them only, so a browse
# could miss a hub that answered. A multicast answer reaches every socket.
_ASK = DNSQuestionType.QM


@dataclass(frozen=True)
class FoundHub:
    name: str
    addresses: tuple[str, ...]
    port: int
    properties: dict[str, str]

    @property
    def url(self) -> str:
        return f"http://{self.addresses[0]}:{self.port}" if self.addresses else ""

    @property
    def agent_url(self) -> str:
        """Where an agent pairs and connects: the TLS listener for agents when the hub has one, else `url`."""
        port = self.properties.get("agentTls", "")
        if self.addresses and port.isdigit():
            return f"https://{self.addresses[0]}:{port}"
        return self.url

    @property
    def version(self) -> str:
        return self.properties.get("version", "?")


async def discover(timeout_s: float = 3.0, interfaces: list[str] | None = None) -> list[FoundHub]:
    """Browse for `timeout_s` seconds and return every hub that answered, by name.

    Without `interfaces`, LINEUP_MDNS_INTERFACES (comma-separated addresses) limits where to listen, as it
    limits where the hub advertises.
    """
    if interfaces is None:
        interfaces = [a.strip() for a in os.environ.get("LINEUP_MDNS_INTERFACES", "").split(",") if a.strip()] or None
    zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only) if interfaces \
        else AsyncZeroconf(ip_version=IPVersion.V4Only)
    names: set[str] = set()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change in (ServiceStateChange.Added, ServiceStateChange.Updated):
            names.add(name)
        elif state_change is ServiceStateChange.Removed:
            names.discard(name)

    browser = AsyncServiceBrowser(zeroconf.zeroconf, [SERVICE_TYPE], handlers=[on_change], question_type=_ASK)
    try:
        await asyncio.sleep(timeout_s)
        found = []
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zeroconf.zeroconf, 1500, question_type=_ASK):
                continue
            properties = {k.decode(): (v or b"").decode() for k, v in (info.properties or {}).items()}
            label = name[: -len(SERVICE_TYPE) - 1] if name.endswith("." + SERVICE_TYPE) else name
            found.append(FoundHub(label, tuple(info.parsed_addresses()), int(info.port or 0), properties))
        return found
    finally:
        await browser.async_cancel()
        await zeroconf.async_close()
