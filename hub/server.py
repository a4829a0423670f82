"""Running the hub: bind the socket ourselves, serve with uvicorn, print where to open the app."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import io
import json
import logging
import signal
import socket
import ssl
import sys
import urllib.request
import webbrowser
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import segno
import uvicorn

from hub import serving
from hub.app import create_app
from hub.ca.https import LanHttps
from hub.ca.listener import SniffingServer
from hub.connguard import ConnectionGuard, guarded_protocol, raise_file_limit
from hub.core import Hub, Reach
from hub.filemodes import check_config_file
from hub.gateway import admission
from hub.gateway.wire import FrameBatching
from hub.netaddr import device_urls, is_loopback_host, lan_addresses, urls_for
from hub.settings import Settings, private_data_dir
from hub.web.trusted_https import HttpsWhenTrusted

log = logging.getLogger("lineup.server")


class PortInUse(Exception):
    """Another program (perhaps another hub) listens on the port already."""


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind before uvicorn starts, so "listening" is true before anything is announced
    (docs/style.md#listening-before-announcing)."""
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


def lan_https_for(settings: Settings, tls: tuple[Path, Path] | None) -> LanHttps | None:
    """`lan_https = "auto"`: the hub's port also answers https with the leaf of the hub's own CA (docs/security.md,
    "The hub's own certificate authority"); not when the whole port is TLS already (--tls-*), nor with "off"."""
    if settings.lan_https not in ("auto", "off"):
        raise SystemExit(f'lineup: lan_https = {settings.lan_https!r}; use "auto" or "off".')
    if tls is not None or settings.lan_https == "off":
        return None
    return LanHttps(settings.data_dir, settings.host)


AgentTls = tuple[socket.socket, ssl.SSLContext, Path]  # the listener, its context, its certificate


def agent_tls_listener(settings: Settings, tls: tuple[Path, Path] | None, port: int) -> AgentTls | None:
    """Beyond loopback over plain HTTP, agents get TLS by default (docs/design.md#security-baseline):
    a second listener on `agent_tls_port` (0: the hub's port + 1) serving the same app with the self-signed certificate,
    whose fingerprint the pairing command carries. `agent_tls = "off"` is the explicit choice of plain ws://."""
    if settings.agent_tls not in ("auto", "off"):
        raise SystemExit(f'lineup: agent_tls = {settings.agent_tls!r}; use "auto" or "off".')
    if tls is not None or settings.agent_tls == "off" or is_loopback_host(settings.host):
        return None  # already TLS everywhere, plain chosen, or no other machine can reach the hub
    from hub.tls import self_signed

    cert, key = self_signed(settings.data_dir / "tls", lan_addresses())
    tls_port = settings.agent_tls_port or port + 1
    try:
        sock = bind_socket(settings.host, tls_port)
    except PortInUse:
        raise SystemExit(f"lineup: port {tls_port} (the TLS listener for agents) is taken: set agent_tls_port "
                         f'to a free port, or agent_tls = "off" to let agents talk plain ws:// on the LAN.') from None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return sock, context, cert


class HubServer(uvicorn.Server):
    """uvicorn's server, telling us when the socket is really accepting connections; with `agent_tls`, it also
    serves the same app over TLS on a second socket (one lifespan, one hub)."""

    def __init__(self, config: uvicorn.Config, on_listening: Callable[[], Any],
                 agent_tls: AgentTls | None = None, on_stopped: Callable[[], Any] | None = None,
                 lan_https: LanHttps | None = None) -> None:
        super().__init__(config)
        self.hub: Hub | None = None  # set by build_server
        self._on_listening = on_listening
        self._on_stopped = on_stopped
        self._agent_tls = agent_tls
        self.lan_https = lan_https

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        if self.lan_https is None or sockets is None:
            await super().startup(sockets=sockets)
        else:
            await super().startup(sockets=[])  # the lifespan only: the hub's socket is served below
            if self.should_exit:
                return
            await self._serve_https_beside_http(self.lan_https, sockets)
        if self.should_exit:
            return
        if self._agent_tls is not None:
            sock, context, _ = self._agent_tls
            # In self.servers, so uvicorn closes it and waits for its connections at shutdown like the main one.
            self.servers.append(await asyncio.get_running_loop().create_server(
                self._protocol, sock=sock, ssl=context, backlog=self.config.backlog))
        self._on_listening()

    def _protocol(self) -> asyncio.Protocol:
        # As uvicorn makes it for its own sockets (uvicorn/server.py); Config.http_protocol_class is typed as
        # asyncio.Protocol's class, whose constructor takes no arguments.
        return self.config.http_protocol_class(config=self.config, server_state=self.server_state,  # type: ignore[call-arg]
                                               app_state=self.lifespan.state)

    async def _serve_https_beside_http(self, lan_https: LanHttps, sockets: list[socket.socket]) -> None:
        """The hub's port answers TLS with the leaf of its own CA and plain HTTP alike (hub/ca/listener.py).
        The CA needs the hub's id (its `.local` name), known once the lifespan has started the hub."""
        assert self.hub is not None
        context = await asyncio.to_thread(lan_https.prepare, self.hub.hub_id)
        for sock in sockets:
            server = SniffingServer(sock, self._protocol, context, timeout_s=self.hub.settings.request_timeout_s,
                                    backlog=self.config.backlog,
                                    guard=getattr(self.config.http_protocol_class, "guard", None),
                                    open_count=lambda: len(self.server_state.connections))
            server.start()
            lan_https.server = server
            self.servers.append(server)  # type: ignore[arg-type]  # close() and wait_closed(), all uvicorn uses
        lan_https.watch()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.lan_https is not None:
            await self.lan_https.stop()
        try:
            await super().shutdown(sockets=sockets)
        finally:
            if self._on_stopped is not None:
                self._on_stopped()

    def handle_exit(self, sig: int, frame: Any) -> None:
        # SIGTERM is how a service manager (or the packaging test) stops the hub: shut down gracefully and exit 0.
        # uvicorn would re-raise the signal after its graceful shutdown, ending the process with -15.
        if sig == signal.SIGTERM:
            self.should_exit = True
            return
        super().handle_exit(sig, frame)


def guarded_http(settings: Settings) -> type:
    """uvicorn's HTTP protocol (httptools where available, else h11) with the connection limits (hub/connguard.py)."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    return guarded_protocol(AutoHTTPProtocol, ConnectionGuard(
        request_timeout_s=settings.request_timeout_s, max_header_bytes=settings.max_header_bytes,
        per_address=settings.max_connections_per_address,
        per_local_address=settings.max_connections_per_local_address,
        reserved_local=settings.connections_reserved_local))


def uvicorn_config(app: Any, settings: Settings, tls: tuple[Path, Path] | None = None) -> uvicorn.Config:
    # docs/quality.md#websocket-server-settings: no per-message deflate, 1 MiB frames, uvloop and httptools.
    return uvicorn.Config(
        FrameBatching(app), ws_max_size=settings.max_frame_bytes, ws_per_message_deflate=False, lifespan="on",
        # uvicorn types `http` as a name or type[asyncio.Protocol]; guarded_http returns a subclass it accepts.
        http=guarded_http(settings), timeout_keep_alive=settings.keep_alive_timeout_s,  # type: ignore[arg-type]
        h11_max_incomplete_event_size=settings.max_header_bytes,  # h11's own head limit; httptools: hub/connguard.py
        # The peer address is the TCP peer's: X-Forwarded-For would let any local client (or a DNS-rebound web
        # page) pick a new address for every guess (hub/web/auth.py::client_key).
        proxy_headers=False,
        log_level=settings.log_level, access_log=False, timeout_graceful_shutdown=5, server_header=False,
        loop="auto", ws="websockets-sansio", log_config=None,
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
    their secrets and contents do not (docs/design.md#minimal-logs)."""

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
    made_private = private_data_dir(settings.data_dir)  # 0700 at every start, also a folder that existed wider
    configure_logging(settings, to_file=headless)
    raise_file_limit()
    check_config_file(settings.data_dir)
    if sys.stdout is None:  # a windowed executable has no console at all
        out = log.info
    if made_private:
        out(made_private)
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
    # uvicorn shuts down gracefully on Ctrl+C, then raises it again for the caller: here that is a normal stop, not
    # click's "Aborted!" and exit status 1.
    with contextlib.suppress(KeyboardInterrupt):
        build_server(settings, sock, open_browser=open_browser, out=out).run(sockets=[sock])
    out("LineUp hub stopped.")


def build_server(settings: Settings, sock: socket.socket, *, open_browser: bool = False,
                 out: Callable[[str], Any] = print, plugins: Mapping[str, Any] | None = None,
                 ready: Callable[[], Any] | None = None) -> HubServer:
    """The hub, its app and the uvicorn server for a bound socket (port 0 allowed: the bound port is used).
    `serve` runs it in the main thread; `hub.testing.running_hub` in a test's loop (TestHub, the suite's hubs).
    `plugins` are registered after the built-ins, as a plugins folder is; `ready` is called once the hub is
    listening and has said so (what `lineup serve`'s banner means). The server's `hub` is the Hub it serves."""
    port = sock.getsockname()[1]
    tls = tls_files(settings)
    urls = urls_for(settings.host, port, "https" if tls else "http")
    # What other devices are shown (phone sign-in, the agent command) and notification links use: never loopback.
    lan_urls = device_urls(settings.host, port, "https" if tls else "http")
    agent_tls = agent_tls_listener(settings, tls, port)
    certificate = agent_tls[2] if agent_tls is not None else tls[0] if tls is not None else None
    pin = None
    if certificate is not None:
        from hub.tls import fingerprint

        pin = fingerprint(certificate)
    hub = Hub(settings, plugins=dict(plugins or {}), reach=Reach(
        public_url=lan_urls[0] if lan_urls else urls[0].rstrip("/"), lan_urls=tuple(lan_urls),
        tls_fingerprint=pin,
        # read by the pairing command (hub/web/accounts.py)
        agent_tls_port=agent_tls[0].getsockname()[1] if agent_tls is not None else None))
    app = create_app(settings, hub)
    lan_https = lan_https_for(settings, tls)
    app.state.lan_https = lan_https  # read by the "Trust this hub" routes (hub/web/trust.py)

    def on_listening() -> None:
        loopback = settings.host in ("0.0.0.0", "::", "")
        local_url = f"{'https' if tls else 'http'}://127.0.0.1:{port}" if loopback else urls[0].rstrip("/")
        hub.on_listening(local_url, port, lan_addresses() if loopback else [settings.host])
        serving.record(settings.data_dir, local_url + "/")  # for `lineup pair`/`token` on this folder
        out(f"LineUp hub {hub.version} is running. Data: {settings.data_dir}")
        for url in urls:
            out(f"  open {url}")
        if hub.lan_urls:
            out("  on your phone (same Wi-Fi), scan:")
            print_qr(hub.lan_urls[0] + "/", out)
        else:
            from hub.cli_invocation import data_dir_args, port_args, program

            again = " ".join(part for part in (program(), "serve --host 0.0.0.0", port_args(port),
                                               data_dir_args(settings)) if part)
            out("  only this machine can reach it (no LAN address): for a phone or an agent on another machine, "
                f"run `{again}`")
        for line in admission.banner_lines(hub, whole_hub_tls=tls is not None):
            out(line)
        if hub.tls_fingerprint:
            out(f"  TLS certificate SHA-256 fingerprint: {hub.tls_fingerprint}")
        local_names = [name for name in (lan_https.names.dns if lan_https else ()) if name.endswith(".local")]
        if local_names:
            out("  https, once a device trusts this hub (Settings → Trust this hub): "
                + " or ".join(f"https://{name}:{port}/" for name in local_names))
        if hub.setup_code is not None:
            out(f"  first run: set up from this machine's browser, or from another device with setup code "
                f"{hub.setup_code}")
        out("Press Ctrl+C to stop.")
        if sys.stdout is not None:
            sys.stdout.flush()
        if open_browser:
            webbrowser.open(urls[0])
        if ready is not None:
            ready()

    served = app if lan_https is None else HttpsWhenTrusted(app, lan_https)
    server = HubServer(uvicorn_config(served, settings, tls), on_listening, agent_tls,
                       on_stopped=lambda: serving.forget(settings.data_dir), lan_https=lan_https)
    server.hub = hub
    return server
