"""The ASGI application: routes, the static app, error handling, and the lifespan that runs the Hub."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import AsyncIterator

from starlette.applications import Starlette
from starlette.routing import Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles

from hub.core import Hub
from hub.gateway.sockets import agent_socket, app_socket
from hub.protocol.errors import LapError
from hub.settings import Settings
from hub.web import accounts, introspection, notifications, reads, relay_access
from hub.web.errors import lap_error_handler
from hub.web.headers import SecurityHeaders
from hub.web.plugin_routes import plugin_routes


def ui_dir() -> Path:
    """The web app's folder: beside the package in a checkout, or inside a PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    return Path(bundle) / "ui" if bundle else Path(__file__).resolve().parent.parent / "ui"


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
        *accounts.routes,
        *reads.routes,
        *notifications.routes,
        *relay_access.routes,
        WebSocketRoute("/ws/agent", agent_socket),
        WebSocketRoute("/ws/app", app_socket),
        Mount("/", app=StaticFiles(directory=ui_dir(), html=True, check_dir=False), name="ui"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={LapError: lap_error_handler})
    app.state.hub = hub
    app.add_middleware(SecurityHeaders)
    return app
