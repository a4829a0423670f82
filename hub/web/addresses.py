"""Which address of the hub to show for use on another device (a phone, the agent's machine), never loopback."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from starlette.requests import Request

from hub.netaddr import configured_public_url, https_public_url, is_loopback_host
from hub.web.port import WebHub, hub_of


def for_other_devices(request: Request) -> tuple[str | None, str]:
    """(base URL another device can use, where it came from).

    In order: the configured `public_url`; the address the app was opened at, unless that is loopback (then it
    reached this hub over the network, so other devices can too); the hub's LAN address (the one on the default
    route first). None with "none" when the hub listens on loopback only: the app says so instead of showing a
    link that works on this machine alone.
    """
    configured = configured_public_url(hub_of(request))
    if configured:
        return configured, "configured"
    return _without_public_url(request)


def _without_public_url(request: Request) -> tuple[str | None, str]:
    hub = hub_of(request)
    opened = str(request.base_url).rstrip("/")
    if request.url.hostname and not is_loopback_host(request.url.hostname):
        return opened, "opened"
    if hub.lan_urls:
        return hub.lan_urls[0], "lan"
    return None, "none"


@dataclass(frozen=True)
class AgentAddress:
    """What the pairing command gives an agent (docs/security.md, "Agents' transport")."""

    url: str                   # the hub's base URL for the agent
    other_devices: bool        # whether it works from another machine
    fingerprint: str | None    # the hub's own certificate to pin; None when plain or a proxy's certificate
    transport: str             # "tls"; "plain": credentials cross the network in clear; "local": plain, this machine


def _own_tls_ports(hub: WebHub) -> set[int]:
    ports = {hub.agent_tls_port}
    url = hub.url
    if url is not None and url.startswith("https://"):
        ports.add(urlsplit(url).port)  # the whole hub is served over TLS
    return {port for port in ports if port}


def for_agents(request: Request) -> AgentAddress:
    """The address for an agent's command, and whether agents using it talk TLS.

    An https public_url (a TLS proxy) first, without the hub's fingerprint unless it names the hub's own TLS port
    (a proxy shows its own certificate). An http public_url only when the hub offers agents no TLS at all (it would
    carry their credentials in clear past the TLS listener: item 8 of the security issue). Else the address another
    device can use, turned into the TLS listener's (https, the hub's port + 1) when there is one. A hub without a LAN
    address still pairs agents on its own machine, so its loopback address is shown, marked as this machine's only.
    """
    hub = hub_of(request)
    pin = hub.tls_fingerprint
    tls_ports = _own_tls_ports(hub)
    public = configured_public_url(hub)
    if public is not None and https_public_url(hub) is not None:
        return AgentAddress(public, True, pin if urlsplit(public).port in tls_ports else None, "tls")
    if public is not None and not tls_ports:
        return AgentAddress(public, True, None, "plain")
    url, _ = _without_public_url(request)
    other_devices = url is not None
    if url is None:
        url = str(request.base_url).rstrip("/")
    parts = urlsplit(url)
    port = hub.agent_tls_port
    if port and parts.scheme == "http" and parts.hostname:
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        url = urlunsplit(("https", f"{host}:{port}", parts.path, "", ""))
    if url.startswith("https://"):
        return AgentAddress(url, other_devices, pin, "tls")
    return AgentAddress(url, other_devices, None, "plain" if other_devices else "local")
