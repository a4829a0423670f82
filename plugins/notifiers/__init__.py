"""Built-in notification channels: in-app (with the browser's notifications), webhook (ntfy-compatible), mail."""

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
    return channels
