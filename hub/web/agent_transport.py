"""Agents on other machines use the hub's TLS listener when it has one: its plain port refuses them.

A hub listening beyond loopback serves agents a TLS listener (hub/server.py, `agent_tls = "auto"`), and the
pairing command carries its https address and certificate fingerprint. An agent that still comes to the plain
port from another machine would send its credential and every message in clear on the LAN (issue 15 item 14):
it is refused with the address to use instead. Plain ws:// for agents stays possible by an explicit
`agent_tls = "off"`; the hub's own machine (loopback) and a configured `public_url` (a TLS proxy the person set
up) are not refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.netaddr import is_loopback_host
from hub.protocol.errors import LapError
from hub.web import addresses


def plain_agent_refusal(hub: Any, scope: Mapping[str, Any]) -> LapError | None:
    """The error for an agent (pairing or connecting) that reached the plain port from another machine, or None."""
    port = getattr(hub, "agent_tls_port", None)
    if not port or scope.get("scheme") in ("https", "wss") or addresses.configured_public_url(hub):
        return None
    client = scope.get("client")
    if client is None or is_loopback_host(client[0]):
        return None
    server = scope.get("server")
    host = server[0] if server else "<the hub's address>"
    host = f"[{host}]" if ":" in host else host
    pin = getattr(hub, "tls_fingerprint", None)
    return LapError(
        "forbidden", "This hub takes agents from other machines over TLS only, so that credentials and messages "
        "do not cross the network in clear.",
        hint=f"Use --hub https://{host}:{port}" + (f" --fingerprint {pin}" if pin else "") + " (the app's "
             "\"Connect my agent\" command carries both), or start the hub with agent_tls = \"off\" to allow "
             "plain ws:// on this network.")
