"""The in-app channel: a stored `notification.created` event; the app shows a toast, counts it in the title
and the inbox badge, vibrates a phone where allowed, and raises a browser notification where permitted."""

from __future__ import annotations

from typing import Any

from hub import Delivery, post_in_app


class InAppChannel:
    name = "inapp"

    async def send(self, notification: dict[str, Any], delivery: Delivery) -> None:
        await post_in_app(delivery, notification)
