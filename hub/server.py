"""Running the hub: bind the socket ourselves, serve with uvicorn, print where to open the app."""

from __future__ import annotations

import logging
import socket
import sys
from typing import Any, Callable

import uvicorn

from hub.app import create_app
from hub.core import Hub
from hub.settings import Settings

log = logging.getLogger("lineup.server")


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind before uvicorn starts, so "listening" is true before anything is announced (STYLE.md, zeroconf)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SystemExit(f"lineup: cannot listen on {host}:{port}: {exc.strerror}. "
                         f"Is another hub running? Choose another port with --port.") from None
    sock.set_inheritable(True)
    return sock


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine's interfaces other than loopback, for the URLs we print."""
    try:
        import ifaddr
    except ImportError:  # pragma: no cover - ifaddr comes with zeroconf
        return []
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                found.append(ip.ip)
    return sorted(set(found))


def urls_for(host: str, port: int) -> list[str]:
    if host in ("0.0.0.0", "::", ""):
        return [f"http://127.0.0.1:{port}/"] + [f"http://{ip}:{port}/" for ip in lan_addresses()]
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]


class HubServer(uvicorn.Server):
    """uvicorn's server, telling us when the socket is really accepting connections."""

    def __init__(self, config: uvicorn.Config, on_listening: Callable[[], Any]) -> None:
        super().__init__(config)
        self._on_listening = on_listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if not self.should_exit:
            self._on_listening()


def uvicorn_config(app: Any, settings: Settings) -> uvicorn.Config:
    # shared/QUALITY.md rule 6: per-message deflate off, 1 MiB frames, uvloop and httptools where available.
    return uvicorn.Config(
        app, ws_max_size=settings.max_frame_bytes, ws_per_message_deflate=False, lifespan="on",
        log_level=settings.log_level, access_log=False, timeout_graceful_shutdown=5,
        loop="auto", http="auto", ws="websockets-sansio", log_config=None,
    )


def serve(settings: Settings, *, out: Callable[[str], Any] = print) -> None:
    logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    hub = Hub(settings)
    app = create_app(settings, hub)
    sock = bind_socket(settings.host, settings.port)
    port = sock.getsockname()[1]

    def on_listening() -> None:
        hub.on_listening(f"http://127.0.0.1:{port}" if settings.host in ("0.0.0.0", "::", "") else urls_for(settings.host, port)[0].rstrip("/"))
        out(f"LineUp hub {hub.version} is running. Data: {settings.data_dir}")
        for url in urls_for(settings.host, port):
            out(f"  open {url}")
        if hub.setup_code is not None:
            out(f"  first run: set up from this machine's browser, or from another device with setup code "
                f"{hub.setup_code}")
        out("Press Ctrl+C to stop.")
        sys.stdout.flush()

    server = HubServer(uvicorn_config(app, settings), on_listening)
    server.run(sockets=[sock])
