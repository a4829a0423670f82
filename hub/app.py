"""The ASGI application: routes, the static app, error handling, and the lifespan that runs the Hub."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount, WebSocketRoute

from hub.core import Hub
from hub.domain.files import FileTooLarge
from hub.gateway.sockets import agent_socket, app_socket
from hub.layout import beside
from hub.protocol import vocabulary
from hub.protocol.errors import LapError
from hub.protocol.payloads import MAX_ATTACHMENTS
from hub.relay import requests as relay_requests
from hub.settings import Settings
from hub.web import accounts, files, introspection, notifications, reads, relay_access, session_roots, sessions
from hub.web.bodylimit import BodyLimit
from hub.web.compression import CompressReads
from hub.web.errors import lap_error_handler
from hub.web.headers import SecurityHeaders
from hub.web.hostcheck import HostCheck
from hub.web.plugin_routes import plugin_routes
from hub.web.port import attach
from hub.web.relay_check import routes as relay_check_routes
from hub.web.static_app import AppFiles
from hub.web.trust import routes as trust_routes


def ui_dir() -> Path:
    """The web app's folder: `ui/` beside hub/ in a checkout, hub/ui/ in a wheel or the executable (hub/layout.py)."""
    return beside("ui")


def create_app(settings: Settings, hub: Hub | None = None) -> Starlette:
    hub = hub or Hub(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        # Plugins are loaded by hub.start(); their routes go before the app's catch-all static mount.
        app.router.routes[-1:-1] = plugin_routes(hub)
        try:
            yield
        finally:
            await hub.stop()

    routes = [
        *introspection.routes,
        *trust_routes,
        *accounts.routes,
        *reads.routes,
        *notifications.routes,
        *relay_access.routes,
        *relay_check_routes,
        *files.routes,
        *sessions.routes,
        *session_roots.routes,
        WebSocketRoute("/ws/agent", agent_socket),
        WebSocketRoute("/ws/app", app_socket),
        # The page carries the protocol's vocabularies: the app needs them before its first paint (lib/status.js);
        # and the limits on files, so that a file too large is refused before it is sent (lib/files.js).
        Mount("/", app=AppFiles(ui_dir(), inline={"lineup-vocabulary": vocabulary.for_app(), "lineup-limits": {
            "maxFileBytes": settings.max_file_bytes, "maxAttachments": MAX_ATTACHMENTS}}), name="ui"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={LapError: lap_error_handler})
    attach(app, hub)  # the web layer sees it as hub/web/port.py's WebHub, which mypy checks the Hub against
    app.add_middleware(CompressReads)  # innermost: the other middlewares' headers go on the compressed answer
    # Inside SecurityHeaders: a 413 has them too. A file upload's body may be larger (hub/web/files.py).
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes,
                       larger={("POST", files.ROUTE): (settings.max_file_bytes, FileTooLarge)})
    # DNS rebinding (docs/security.md#names-dns-rebinding); inside SecurityHeaders: a 421 has them too
    app.add_middleware(HostCheck)
    app.add_middleware(SecurityHeaders)
    relay_requests.serve_with(hub, app)  # the relay's requests are answered by these same routes (docs/protocol.md)
    return app
