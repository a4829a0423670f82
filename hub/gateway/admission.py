"""Who may open the hub's sockets and agent endpoints: a browser page only of the hub's own origin, agents from other
machines only over TLS.

The origin check (`origin_allowed`) keeps a page of another site from driving the hub (CSRF, cross-site WebSocket
hijacking); the app's API and both sockets run it.

Agents on other machines use the hub's TLS listener when it has one: its plain port refuses them.

A hub listening beyond loopback serves agents a TLS listener (hub/server.py, `agent_tls = "auto"`), and the
pairing command carries its https address and certificate fingerprint. An agent that still comes to the plain
port from another machine would send its credential and every message in clear on the LAN
(docs/security.md#agents-transport): it is refused with the address to use instead. Plain ws:// for agents stays
possible by an explicit `agent_tls = "off"`.

Taken at the plain port all the same (docs/security.md, "Agents' transport"):

- the hub's own machine (a loopback peer), which includes a proxy running there;
- a request that came through an `https://` public_url (a TLS proxy the person set up on another machine): its
  Host names public_url's host and port, and its peer is listed in `trusted_proxies`. Anybody can write a Host
  header, so the name alone proves nothing; the proxy's address is what the person vouches for.

An `http://` public_url exempts nothing: it is plain http, so sending agents through it would put their
credentials on the network in clear (security issue item 8: it used to switch the rule off entirely).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from hub.netaddr import configured_public_url, https_public_url, is_loopback_host
from hub.protocol.errors import LapError


def origin_allowed(headers: Mapping[str, str]) -> bool:
    """No Origin header (SDKs, curl) is fine; a browser's Origin must be the hub's own host and port."""
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host")
    if not host or origin == "null":
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


def _peer_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # an IPv4 peer on a dual-stack socket
    return address


def names_public_url(hub: Any, scope: Mapping[str, Any]) -> str | None:
    """The https public_url when the request's Host names its host and port (a Host without a port names the
    default one, as proxies send it); else None. Never an http public_url."""
    public = https_public_url(hub)
    if public is None:
        return None
    hosts = [value.decode("latin-1") for key, value in scope.get("headers", ()) if key == b"host"]
    if len(hosts) != 1:
        return None
    try:
        asked, wanted = urlsplit("//" + hosts[0]), urlsplit(public)
        asked_port, wanted_port = asked.port, wanted.port or 443
    except ValueError:
        return None
    if not asked.hostname or not wanted.hostname:
        return None
    if asked.hostname.rstrip(".").lower() != wanted.hostname.rstrip(".").lower():
        return None
    return public if asked_port in (None, wanted_port) else None


def trusted_proxy(hub: Any, peer: str) -> bool:
    address = _peer_address(peer)
    networks = getattr(getattr(hub, "settings", None), "trusted_proxy_networks", [])
    return address is not None and any(address in network for network in networks)


def plain_agent_refusal(hub: Any, scope: Mapping[str, Any]) -> LapError | None:
    """The error for an agent (pairing or connecting) that reached the plain port from another machine, or None."""
    port = getattr(hub, "agent_tls_port", None)
    if not port or scope.get("scheme") in ("https", "wss"):
        return None
    client = scope.get("client")
    if client is None or is_loopback_host(client[0]):
        return None
    public = names_public_url(hub, scope)
    if public is not None and trusted_proxy(hub, client[0]):
        return None  # through the person's TLS proxy (public_url), from the address they listed
    server = scope.get("server")
    host = server[0] if server else "<the hub's address>"
    host = f"[{host}]" if ":" in host else host
    pin = getattr(hub, "tls_fingerprint", None)
    direct = f"--hub https://{host}:{port}" + (f" --fingerprint {pin}" if pin else "")
    message = ("This hub takes agents from other machines over TLS only, so that credentials and messages do not "
               "cross the network in clear.")
    if public is not None:
        return LapError("forbidden", message + f" This request came through public_url {public} from {client[0]}, "
                        "which is not listed in trusted_proxies.",
                        hint=f"If {client[0]} is your TLS proxy, add trusted_proxies = \"{client[0]}\" to lineup.toml "
                             "and restart the hub (the hop from the proxy to the hub is plain http, so only on a "
                             f"network you trust), or point the proxy at https://{host}:{port}; an agent can also "
                             f"use {direct} directly.")
    public = https_public_url(hub)
    if public is not None and trusted_proxy(hub, client[0]):
        return LapError("forbidden", message + f" This request came from {client[0]} (trusted_proxies) but does not "
                        f"name public_url {public} in its Host header.",
                        hint="Make the proxy pass on the Host the agent asked for (nginx: proxy_set_header Host "
                             f"$http_host), or point it at https://{host}:{port}; an agent can also use {direct} "
                             "directly.")
    return LapError(
        "forbidden", message,
        hint=f"Use {direct} (the app's \"Connect my agent\" command carries both), or start the hub with "
             "agent_tls = \"off\" to allow plain ws:// on this network.")


def banner_lines(hub: Any, whole_hub_tls: bool) -> list[str]:
    """What the start banner says about how agents reach the hub: whether they use TLS, and what public_url does
    for them (docs/security.md, "Agents' transport")."""
    settings = hub.settings
    port = getattr(hub, "agent_tls_port", None)
    public = configured_public_url(hub)
    lines = []
    if port and https_public_url(hub) is not None:
        lines.append(f"  agents: TLS on port {port} with the fingerprint below, or through public_url (the pairing "
                     "command carries public_url)")
    elif port:
        lines.append(f"  agents: TLS on port {port} (the pairing command carries it and the fingerprint; "
                     'agent_tls = "off" for plain)')
    elif whole_hub_tls:
        lines.append("  agents: TLS, as the app (the hub is served over https)")
    elif not is_loopback_host(settings.host):
        lines.append('  warning: agents talk plain ws:// on this network (agent_tls = "off"): their credentials and '
                     'messages travel in clear. Remove agent_tls = "off" to give them TLS.')
    if public is None:
        return lines
    if https_public_url(hub) is not None:
        where = "TLS up to your proxy"
        if port:
            where += ("; the plain port takes them from a proxy on this machine or at "
                      f"{settings.trusted_proxies} (trusted_proxies)" if settings.trusted_proxies else
                      "; the plain port takes them only from a proxy on this machine (a proxy on another machine: "
                      "list its address in trusted_proxies)")
        lines.append(f"  agents through public_url {public}: {where}")
    elif port or whole_hub_tls:
        lines.append(f"  warning: public_url {public} is plain http, so agents are not sent through it (their "
                     "command carries the hub's own https:// address) and it exempts nothing; the app's links "
                     "through it travel in clear. For a proxy, use an https:// public_url.")
    else:
        lines.append(f"  warning: public_url {public} is plain http: agents paired through it send their credential "
                     "and messages in clear. Use an https:// public_url (a TLS proxy).")
    return lines
