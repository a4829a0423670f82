"""This machine's addresses: which mean "this machine only", which another device can use, and the public_url set."""

from __future__ import annotations

import ipaddress
import socket
import urllib.parse
from typing import Any


def is_loopback_host(host: str | None) -> bool:
    """Whether an address or host name means "this machine only" (127.0.0.0/8, ::1, localhost)."""
    if not host:
        return False
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _primary_address() -> str | None:
    """The address this machine would use to reach the network (its default route), if it has one.

    Connecting a UDP socket only picks a route; no packet is sent.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # TEST-NET-2 (documentation only): routed like the internet
            address = str(probe.getsockname()[0])
        except OSError:  # no route at all
            return None
    return None if is_loopback_host(address) or address == "0.0.0.0" else address


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine's interfaces other than loopback and link-local, for the URLs we print
    and show for other devices: the one on the default route first (a phone is most likely on that network)."""
    try:
        import ifaddr
    except ImportError:  # pragma: no cover - ifaddr comes with zeroconf
        return []
    found = set()
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not is_loopback_host(ip.ip) and not ip.ip.startswith("169.254."):
                found.add(ip.ip)
    primary = _primary_address()
    return sorted(found, key=lambda address: (address != primary, ipaddress.ip_address(address)))


def urls_for(host: str, port: int, scheme: str = "http") -> list[str]:
    if host in ("0.0.0.0", "::", ""):
        return [f"{scheme}://127.0.0.1:{port}/"] + [f"{scheme}://{ip}:{port}/" for ip in lan_addresses()]
    shown = f"[{host}]" if ":" in host else host
    return [f"{scheme}://{shown}:{port}/"]


def device_urls(host: str, port: int, scheme: str = "http") -> list[str]:
    """The hub's URLs another device (a phone, the agent's machine) can use: none when it listens on loopback only."""
    return [url.rstrip("/") for url in urls_for(host, port, scheme)
            if not is_loopback_host(urllib.parse.urlsplit(url).hostname)]


def configured_public_url(hub: Any) -> str | None:
    """The `public_url` set in lineup.toml ([notify]): how the person's other devices reach the hub."""
    notifier = getattr(hub, "notifier", None)
    url = getattr(getattr(notifier, "config", None), "public_url", None)
    return str(url).rstrip("/") if url else None


def https_public_url(hub: Any) -> str | None:
    """The configured public_url when it is https (a TLS proxy): only then may agents be sent through it."""
    url = configured_public_url(hub)
    return url if url and urllib.parse.urlsplit(url).scheme == "https" else None
