"""Built-in notification channels: in-app (with the browser's notifications), Web Push, webhook (ntfy), mail."""

from __future__ import annotations

from typing import Any

from hub import hookimpl, notify_channel_options


@hookimpl
def register_notifiers(hub: Any) -> list[Any]:
    from .inapp import InAppChannel

    channels: list[Any] = [InAppChannel()]
    if notify_channel_options(hub, "webhook").get("url"):
        from .webhook import WebhookChannel

        channels.append(WebhookChannel())
    if notify_channel_options(hub, "mail").get("host"):
        from .mail import MailChannel  # imports aiosmtplib: only when mail is configured

        channels.append(MailChannel())
    if notify_channel_options(hub, "webpush").get("enabled", True) is not False:
        from .webpush import WebPushChannel  # imports pywebpush (requests, aiohttp): only when pushes may go out

        channels.append(WebPushChannel(hub))
    return channels


@hookimpl
def register_routes(hub: Any) -> list[Any]:
    """Web Push's key and the devices' subscriptions (hub/web/push.py)."""
    from hub.web.push import routes

    return list(routes)
