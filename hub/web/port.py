"""The hub as the web layer sees it (`WebHub`), and the one way a route reaches it: `hub_of(request)`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from starlette.requests import HTTPConnection
from starlette.types import Scope

from hub.ports import Store

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from hub.auth.limits import GuessLimiter, SignInLimits
    from hub.discovery.advertise import Advertiser
    from hub.gateway.broker import Broker
    from hub.gateway.presence import Presence
    from hub.gateway.streams import Streams
    from hub.notify.service import Notifier
    from hub.pluginhost.manager import PluginHost
    from hub.relay import Uplink
    from hub.runtimes.base import RuntimeSpec
    from hub.runtimes.supervisor import Supervisor
    from hub.settings import Settings
    from hub.store.writer import Writer
    from hub.tools.registry import ToolRegistry


class WebHub(Store, Protocol):
    """Exactly what hub/web uses of the hub, as plugins have `PluginHub` (hub/ports.py): reads and commands through
    the one writer, the facts the routes show, the guess limits they count, and the parts whose state they report.

    hub/core.py's `Hub` satisfies it: hub/app.py hands it over through `attach`, which mypy checks. Every member is
    read-only here: a route never sets anything on the hub; it runs a command or calls a part's method.
    """

    # ---- who the hub is, and where it is reached -------------------------------------------------------------
    @property
    def settings(self) -> Settings: ...

    @property
    def version(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def hub_id(self) -> str: ...

    @property
    def epoch(self) -> str: ...

    @property
    def started(self) -> bool: ...

    @property
    def setup_code(self) -> str | None: ...

    @property
    def url(self) -> str | None: ...

    @property
    def public_url(self) -> str | None: ...

    @property
    def lan_urls(self) -> list[str]: ...

    @property
    def tls_fingerprint(self) -> str | None: ...

    @property
    def agent_tls_port(self) -> int | None: ...

    @property
    def advertiser(self) -> Advertiser | None: ...

    # ---- guess limits (hub/auth/limits.py) -----------------------------------------------------------------------
    @property
    def sign_in_limiter(self) -> GuessLimiter: ...

    @property
    def pairing_limiter(self) -> GuessLimiter: ...

    @property
    def login_limits(self) -> SignInLimits: ...

    # ---- the parts whose state the routes report or use --------------------------------------------------------
    @property
    def writer(self) -> Writer: ...

    @property
    def loop_lag_ms(self) -> float: ...

    @property
    def broker(self) -> Broker: ...

    @property
    def streams(self) -> Streams: ...

    @property
    def presence(self) -> Presence: ...

    @property
    def supervisor(self) -> Supervisor: ...

    @property
    def notifier(self) -> Notifier: ...

    @property
    def relay(self) -> Uplink: ...

    @property
    def plugins(self) -> PluginHost: ...

    @property
    def runtime_specs(self) -> dict[str, RuntimeSpec]: ...

    @property
    def tools(self) -> ToolRegistry: ...


def attach(app: Starlette, hub: WebHub) -> None:
    """Give the app its hub (hub/app.py): the one place the web layer's hub is set."""
    app.state.hub = hub


def hub_of(request: HTTPConnection) -> WebHub:
    """The hub a request (or a WebSocket) is served by, typed: routes read it only through here."""
    hub: WebHub = request.app.state.hub
    return hub


def hub_in_scope(scope: Scope) -> WebHub | None:
    """The hub of an ASGI scope, for the plain middlewares (None for an app made without one)."""
    hub: WebHub | None = getattr(getattr(scope.get("app"), "state", None), "hub", None)
    return hub
