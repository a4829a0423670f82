"""Running the hub: bind the socket ourselves, serve with uvicorn, print where to open the app."""

from __future__ import annotations

import errno
import io
import json
import logging
import signal
import socket
import sys
import urllib.request
import webbrowser
from pathlib import Path
from typing import Any, Callable

import segno
import uvicorn

from hub.app import create_app
from hub.gateway.wire import FrameBatching
from hub.core import Hub
from hub.settings import Settings

log = logging.getLogger("lineup.server")


class PortInUse(Exception):
    """Another program (perhaps another hub) listens on the port already."""


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
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(port) from None
        raise SystemExit(f"lineup: cannot listen on {host}:{port}: {exc.strerror}.") from None
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


def urls_for(host: str, port: int, scheme: str = "http") -> list[str]:
    if host in ("0.0.0.0", "::", ""):
        return [f"{scheme}://127.0.0.1:{port}/"] + [f"{scheme}://{ip}:{port}/" for ip in lan_addresses()]
    shown = f"[{host}]" if ":" in host else host
    return [f"{scheme}://{shown}:{port}/"]


def tls_files(settings: Settings) -> tuple[Path, Path] | None:
    """The certificate and key to serve with, if TLS is on; a half-given pair is an error."""
    if settings.tls_cert or settings.tls_key:
        if not (settings.tls_cert and settings.tls_key):
            raise SystemExit("lineup: give both --tls-cert and --tls-key.")
        for path in (settings.tls_cert, settings.tls_key):
            if not path.is_file():
                raise SystemExit(f"lineup: {path} does not exist.")
        return settings.tls_cert, settings.tls_key
    if settings.tls_self_signed:
        from hub.tls import self_signed

        return self_signed(settings.data_dir / "tls", lan_addresses())
    return None


class HubServer(uvicorn.Server):
    """uvicorn's server, telling us when the socket is really accepting connections."""

    def __init__(self, config: uvicorn.Config, on_listening: Callable[[], Any]) -> None:
        super().__init__(config)
        self._on_listening = on_listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if not self.should_exit:
            self._on_listening()

    def handle_exit(self, sig: int, frame: Any) -> None:
        # SIGTERM is how a service manager (or the packaging test) stops the hub: shut down gracefully and exit 0.
        # uvicorn would re-raise the signal after its graceful shutdown, ending the process with -15 (issue 6).
        if sig == signal.SIGTERM:
            self.should_exit = True
            return
        super().handle_exit(sig, frame)


def uvicorn_config(app: Any, settings: Settings, tls: tuple[Path, Path] | None = None) -> uvicorn.Config:
    # shared/QUALITY.md rule 6: per-message deflate off, 1 MiB frames, uvloop and httptools where available.
    return uvicorn.Config(
        FrameBatching(app), ws_max_size=settings.max_frame_bytes, ws_per_message_deflate=False, lifespan="on",
        # The peer address is the TCP peer's: X-Forwarded-For would let any local client (or a DNS-rebound web
        # page) pick a new address for every guess (hub/web/auth.py::client_key).
        proxy_headers=False,
        log_level=settings.log_level, access_log=False, timeout_graceful_shutdown=5,
        loop="auto", http="auto", ws="websockets-sansio", log_config=None,
        ssl_certfile=str(tls[0]) if tls else None, ssl_keyfile=str(tls[1]) if tls else None,
    )


def running_hub_at(port: int) -> str | None:
    """The URL of a LineUp hub already answering on this port of this machine, if there is one."""
    url = f"http://127.0.0.1:{port}"
    try:
        with urllib.request.urlopen(url + "/-/health", timeout=2) as response:  # noqa: S310 - loopback only
            if json.loads(response.read()).get("protocol"):
                return url + "/"
    except (OSError, ValueError):
        return None
    return None


def print_qr(url: str, out: Callable[[str], Any]) -> None:
    """The phone's way in: a QR code of the LAN address, drawn with text characters (segno)."""
    buffer = io.StringIO()
    segno.make(url, error="m").terminal(out=buffer, compact=True)
    out(buffer.getvalue().rstrip("\n"))


class QuietSockets(logging.Filter):
    """At debug level websockets logs, through uvicorn's logger, every frame (a hello carries a token or a
    credential, messages carry the person's words) and every handshake header and request line: the lines stay,
    their secrets and contents do not (seed 002 §11: minimal logs)."""

    SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "set-cookie", "sec-websocket-protocol"}

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        if record.msg in ("< %s", "> %s") and len(args) == 1 and hasattr(args[0], "opcode"):
            record.args = (f"{args[0].opcode.name} [{len(getattr(args[0], 'data', b''))} bytes]",)
        elif record.msg in ("< %s: %s", "> %s: %s") and len(args) == 2 and str(args[0]).lower() in self.SECRET_HEADERS:
            record.args = (args[0], "[redacted]")
        elif record.msg == "< %s %s %s" and len(args) == 3 and "?" in str(args[1]):
            record.args = (args[0], str(args[1]).split("?", 1)[0] + "?[redacted]", args[2])
        elif isinstance(record.msg, str) and '"WebSocket %s"' in record.msg and len(args) >= 2 and "?" in str(args[1]):
            # uvicorn's `"WebSocket /ws/app?…" [accepted]` (info level): a query string is no place for secrets,
            # but a client may still put one there.
            record.args = (args[0], str(args[1]).split("?", 1)[0] + "?[redacted]", *args[2:])
        return True


def configure_logging(settings: Settings, to_file: bool) -> None:
    """To stderr in a terminal; to `<data dir>/lineup.log` when started without one (a double-click)."""
    fmt = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    if to_file:
        settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        logging.basicConfig(level=settings.log_level.upper(), filename=settings.data_dir / "lineup.log", format=fmt)
    else:
        logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr, format=fmt)
    logging.getLogger("uvicorn.error").addFilter(QuietSockets())


def serve(settings: Settings, *, open_browser: bool = False, out: Callable[[str], Any] = print) -> None:
    headless = sys.stdout is None or not sys.stdout.isatty() and getattr(sys, "frozen", False)
    configure_logging(settings, to_file=headless)
    if sys.stdout is None:  # a windowed executable has no console at all
        out = log.info
    try:
        sock = bind_socket(settings.host, settings.port)
    except PortInUse:
        url = running_hub_at(settings.port)
        if url is None:
            raise SystemExit(f"lineup: port {settings.port} is taken by another program. "
                             f"Choose another port with --port.") from None
        out(f"LineUp is already running at {url}")
        if open_browser:
            webbrowser.open(url)
        return
    port = sock.getsockname()[1]
    tls = tls_files(settings)
    urls = urls_for(settings.host, port, "https" if tls else "http")
    hub = Hub(settings)
    if tls is not None:
        from hub.tls import fingerprint

        hub.tls_fingerprint = fingerprint(tls[0])
    hub.public_url = next((u for u in urls if "127.0.0.1" not in u), urls[0]).rstrip("/")
    app = create_app(settings, hub)

    def on_listening() -> None:
        loopback = settings.host in ("0.0.0.0", "::", "")
        hub.on_listening(f"{'https' if tls else 'http'}://127.0.0.1:{port}" if loopback else urls[0].rstrip("/"), port,
                         lan_addresses() if loopback else [settings.host])
        out(f"LineUp hub {hub.version} is running. Data: {settings.data_dir}")
        for url in urls:
            out(f"  open {url}")
        phone_url = next((u for u in urls if "127.0.0.1" not in u), None)
        if phone_url is not None:
            out("  on your phone (same Wi-Fi), scan:")
            print_qr(phone_url, out)
        if hub.tls_fingerprint:
            out(f"  TLS certificate SHA-256 fingerprint: {hub.tls_fingerprint}")
        if hub.setup_code is not None:
            out(f"  first run: set up from this machine's browser, or from another device with setup code "
                f"{hub.setup_code}")
        out("Press Ctrl+C to stop.")
        if sys.stdout is not None:
            sys.stdout.flush()
        if open_browser:
            webbrowser.open(urls[0])

    server = HubServer(uvicorn_config(app, settings, tls), on_listening)
    server.run(sockets=[sock])
