"""Which address of the hub to show for use on another device (a phone, the agent's machine), never loopback."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from hub.netaddr import is_loopback_host


def configured_public_url(hub: Any) -> str | None:
    """The `public_url` set in lineup.toml ([notify]): how the person's other devices reach the hub."""
    notifier = getattr(hub, "notifier", None)
    url = getattr(getattr(notifier, "config", None), "public_url", None)
    return str(url).rstrip("/") if url else None


def for_other_devices(request: Request) -> tuple[str | None, str]:
    """(base URL another device can use, where it came from).

    In order: the configured `public_url`; the address the app was opened at, unless that is loopback (then it
    reached this hub over the network, so other devices can too); the hub's LAN address (the one on the default
    route first). None with "none" when the hub listens on loopback only: the app says so instead of showing a
    link that works on this machine alone.
    """
    hub = request.app.state.hub
    configured = configured_public_url(hub)
    if configured:
        return configured, "configured"
    opened = str(request.base_url).rstrip("/")
    if request.url.hostname and not is_loopback_host(request.url.hostname):
        return opened, "opened"
    if hub.lan_urls:
        return str(hub.lan_urls[0]), "lan"
    return None, "none"


def for_agents(request: Request) -> tuple[str, bool]:
    """(base URL for an agent's command, whether it works from another machine). A hub without a LAN address
    still pairs agents on its own machine, so its loopback address is shown, marked as this machine's only."""
    url, _ = for_other_devices(request)
    if url is not None:
        return url, True
    return str(request.base_url).rstrip("/"), False

