"""The names and networks the hub's certificate authority is limited to: localhost, `.local` names, LAN networks."""

from __future__ import annotations

import ipaddress
import socket

from hub.ca.authority import IpNetwork, Names
from hub.discovery.advertise import server_name
from hub.netaddr import is_loopback_host, lan_addresses

# A LAN interface's network, but never wider than this: a CA for a whole 10.0.0.0/8 could sign for addresses far
# beyond the person's own network.
WIDEST_IPV4_PREFIX = 16


def local_names(hub_id: str) -> list[str]:
    """The hub's mDNS name (`<machine>-lineup-<id>.local`, hub/discovery/advertise.py) and the machine's own
    `<machine>.local`, which the system's responder (Bonjour, Avahi) answers for."""
    names = [server_name(hub_id).rstrip(".").lower()]
    short = socket.gethostname().split(".")[0].lower()
    if short and short != "localhost":
        names.append(f"{short}.local")
    return names


def addresses_for(listen_host: str) -> list[str]:
    """The addresses the hub is reached at: loopback always, then the LAN addresses (all of them when it listens
    on every interface, else the one it listens on)."""
    found = ["127.0.0.1", "::1"]
    if listen_host in ("0.0.0.0", "::", ""):
        found += lan_addresses()
    elif not is_loopback_host(listen_host):
        found.append(listen_host)
    return list(dict.fromkeys(found))


def lan_networks(addresses: list[str]) -> list[IpNetwork]:
    """The network of each LAN address, from its interface's prefix (ifaddr), clamped to a /16 at widest."""
    prefixes: dict[str, int] = {}
    try:
        import ifaddr

        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                if isinstance(ip.ip, str):
                    prefixes[ip.ip] = ip.network_prefix
    except ImportError:  # pragma: no cover - ifaddr comes with zeroconf
        pass
    networks: list[IpNetwork] = []
    for address in addresses:
        if is_loopback_host(address):
            continue
        parsed = ipaddress.ip_address(address)
        prefix = prefixes.get(address, parsed.max_prefixlen)
        if parsed.version == 4:
            prefix = max(prefix, WIDEST_IPV4_PREFIX)
        networks.append(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
    return list(dict.fromkeys(networks))


def hub_names(hub_id: str, listen_host: str) -> Names:
    return Names(tuple(["localhost", *local_names(hub_id)]), tuple(addresses_for(listen_host)))
