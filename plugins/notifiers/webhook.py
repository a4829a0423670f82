"""The webhook channel: a JSON POST, or an ntfy message whose action buttons answer an approval.

`[notify.webhook] url = "http://ntfy.local/lineup"`, `format = "ntfy"` (or "json"), optional `headers` (for
example an ntfy access token). In ntfy format an approval gets the buttons its notification allows (`buttons`:
hub/notify/outside.py), each posting a single-use, expiring token back to the hub (hub/notify/actions.py), and
Open. Deny is always among them; a yes only for an approval that carries no command, file change or tool input,
below high risk, never "always" (docs/notifications.md#ntfy-buttons). The json format carries the same marks
(`buttons`, `carriesItems`, each option's `approves`) for a receiver to follow.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PRIORITY = {"high": 5, "medium": 4, "low": 3}


def _post(url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> int:
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)  # noqa: S310 - the configured URL
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - the configured URL
            return int(response.status)
    except urllib.error.HTTPError as exc:
        exc.close()  # it holds the answer's socket: closed now, not whenever the collector gets to it
        raise RuntimeError(f"the webhook answered HTTP {exc.code}") from None


DECLINE = {"label": "Decline", "response": {"declined": True}, "approves": False}


def _buttons(notification: dict[str, Any]) -> list[dict[str, Any]]:
    """The answers to offer: at most one yes of `buttons` as the hub composed them, then always a Deny. A
    notification an older hub composed (still in the outbox) has no `buttons`: then only a declining option (one
    not marked is a yes), else a Decline."""
    offered = notification.get("buttons")
    if not isinstance(offered, list):
        offered = [{"label": o["label"], "response": {"optionId": o["id"]}, "approves": False}
                   for o in notification.get("options", []) if o.get("approves", True) is False]
    yes = [b for b in offered if b.get("approves") is not False][:1]
    no = [b for b in offered if b.get("approves") is False][:1]
    return yes + (no or [DECLINE])


class WebhookChannel:
    name = "webhook"

    async def send(self, notification: dict[str, Any], delivery: Any) -> None:
        options = delivery.config.options
        headers = {"Content-Type": "application/json", "X-LineUp-Notification-Id": notification["id"],
                   **{str(k): str(v) for k, v in (options.get("headers") or {}).items()}}
        if options.get("format", "json") == "ntfy":
            url, body = await self._ntfy(options["url"], notification, delivery)
        else:
            url, body = options["url"], {"type": "lineup.notification", **notification}
        await asyncio.to_thread(_post, url, json.dumps(body).encode(), headers, float(options.get("timeout_s", 10)))

    async def _ntfy(self, topic_url: str, notification: dict[str, Any], delivery: Any) -> tuple[str, dict[str, Any]]:
        """ntfy's JSON publishing: POST to the server root with the topic in the body."""
        parts = urlsplit(topic_url)
        topic = parts.path.strip("/")
        root = urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
        message: dict[str, Any] = {"topic": topic, "title": notification["title"],
                                   "message": notification.get("body", ""), "click": notification.get("link"),
                                   "priority": PRIORITY.get(notification.get("risk", "medium"), 3),
                                   "tags": [notification["kind"]]}
        actions = []
        if notification.get("interactionType") == "approval":
            if notification.get("approveInApp"):
                message["message"] = f"{message['message']}\n{notification['approveInApp']}".lstrip()
            for button in _buttons(notification)[:2]:  # ntfy shows up to three buttons; Open is the third
                link = await delivery.action_link(notification["interactionId"], button["response"])
                actions.append({"action": "http", "label": button["label"], "url": link["url"],
                                "method": link["method"], "headers": link["headers"], "body": link["body"],
                                "clear": True})
        if notification.get("link"):
            actions.append({"action": "view", "label": "Open", "url": notification["link"]})
        message["actions"] = actions
        return root, message
