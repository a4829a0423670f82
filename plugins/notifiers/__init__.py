"""Built-in notification channels: in-app (with the browser's notifications), webhook (ntfy-compatible), mail."""

from __future__ import annotations

from typing import Any

from hub import hookimpl


@hookimpl
def register_notifiers(hub: Any) -> list[Any]:
    from plugins.notifiers.inapp import InAppChannel

    channels: list[Any] = [InAppChannel()]
    config = hub.notifier.config
    if config.channel("webhook").options.get("url"):
        from plugins.notifiers.webhook import WebhookChannel

        channels.append(WebhookChannel())
    if config.channel("mail").options.get("host"):
        from plugins.notifiers.mail import MailChannel  # imports aiosmtplib: only when mail is configured

        channels.append(MailChannel())
    return channels
