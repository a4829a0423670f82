"""The Web Push channel: each signed-in device that asked for pushes gets the notification on its lock screen.

The message is encrypted for the device's browser (RFC 8291, aes128gcm) and signed with the hub's VAPID key
(RFC 8292, hub/notify/vapid.py) by pywebpush; the push service only carries it. What it shows follows the rule of
every channel (hub/notify/push_payload.py). A device whose push service answers 404 or 410 unsubscribed or
expired: its subscription is dropped. Under a flood (more than FLOOD_COUNT pushes to one device within
FLOOD_WINDOW_S) the next ones become one digest that replaces itself, so a phone buzzes a few times, not forty.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections import deque
from typing import Any

import hub.notify.web_push as web_push
from hub.notify.web_push import PushSubscription

from .webhook import _buttons

log = logging.getLogger("lineup.notify.webpush")
FLOOD_COUNT = 3
FLOOD_WINDOW_S = 60.0
GONE = (404, 410)
TTL_S = 3600  # a phone off for longer than an hour gets nothing stale (the outbox's own rule for old events)
DEFAULT_CONTACT = "mailto:lineup-hub@example.com"  # RFC 8292's `sub`; `[notify.webpush] contact` sets your own


class PushRefused(RuntimeError):
    def __init__(self, status: int | None) -> None:
        super().__init__(f"the push service answered HTTP {status}" if status else "the push service did not answer")
        self.status = status


def _post(subscription: PushSubscription, data: str, private_pem: bytes, contact: str, urgency: str,
          topic: str | None) -> None:
    """One encrypted POST to the device's push service (a thread: pywebpush speaks `requests`)."""
    from py_vapid import Vapid  # with pywebpush (requests, aiohttp): imported at the first push, not at start
    from pywebpush import WebPushException, webpush

    headers: dict[str, str | int | float] = {"Urgency": urgency}
    if topic:
        headers["Topic"] = topic  # the push service keeps only the newest message of a topic for a sleeping phone
    try:
        webpush({"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh,
                                                             "auth": subscription.auth}},
                data=data, vapid_private_key=Vapid.from_pem(private_pem),
                vapid_claims={"sub": contact, "aud": web_push.origin(subscription.endpoint)},
                content_encoding="aes128gcm", ttl=TTL_S, timeout=10, headers=headers)
    except WebPushException as exc:
        # Its message quotes the push service's answer; only the status is kept (the endpoint is a capability).
        raise PushRefused(exc.response.status_code if exc.response is not None else None) from None
    except OSError as exc:
        raise PushRefused(None) from exc


class WebPushChannel:
    name = "webpush"

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self._pushed: dict[str, deque[float]] = {}  # subscription id -> times of its separate pushes
        self._folded: dict[str, int] = {}  # subscription id -> notifications its current digest stands for
        self._done: deque[tuple[str, str]] = deque(maxlen=2000)  # (notification, subscription) sent: a retry skips

    def reaches(self, conn: sqlite3.Connection, workspace_id: str) -> bool:
        """Whether a device of the workspace gets pushes: without one, nothing is queued or listed for it."""
        return bool(web_push.subscriptions(conn, workspace_id))

    async def send(self, notification: dict[str, Any], delivery: Any) -> None:
        subscriptions = await delivery.hub.read(lambda c: web_push.subscriptions(c, delivery.workspace_id))
        if not subscriptions:
            return
        options = delivery.config.options
        extra = options.get("endpoints") or []
        keys = await asyncio.to_thread(web_push.load_or_create, self.hub.settings.data_dir)
        contact = str(options.get("contact") or DEFAULT_CONTACT)
        payload = web_push.push_payload(notification, await self._answers(notification, delivery))
        failed: list[str] = []
        for subscription in subscriptions:
            if (notification["id"], subscription.id) in self._done:
                continue
            if not web_push.allowed(subscription.endpoint, extra):
                failed.append("a push service the hub does not post to")  # [notify.webpush] endpoints changed
                continue
            sent = self._shaped(subscription.id, notification, payload)
            urgency = "high" if notification.get("kind") == "waiting_for_me" else "normal"
            error = await self._push(subscription, json.dumps(sent, ensure_ascii=False), keys.private_pem, contact,
                                     urgency, sent["tag"] if sent["kind"] == "digest" else None, delivery)
            if error is None:
                self._done.append((notification["id"], subscription.id))
            elif error != "gone":
                failed.append(error)
        if failed:
            raise RuntimeError(f"{len(failed)} device(s) not reached: {failed[0]}")

    async def _answers(self, notification: dict[str, Any], delivery: Any) -> list[dict[str, Any]]:
        """The approval's buttons as the rule allows them (webhook's choice: at most one yes, then a Deny), each
        with a single-use token; other kinds get none."""
        if notification.get("interactionType") != "approval":
            return []
        answers = []
        for button in _buttons(notification):
            link = await delivery.action_link(notification["interactionId"], button["response"])
            token = json.loads(link["body"])["token"]
            answers.append({"label": button["label"], "token": token, "approves": button.get("approves", True)})
        return answers

    def _shaped(self, subscription_id: str, notification: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
        """The payload itself, or a digest when this device had FLOOD_COUNT pushes within FLOOD_WINDOW_S."""
        now = time.monotonic()
        recent = self._pushed.setdefault(subscription_id, deque())
        while recent and now - recent[0] > FLOOD_WINDOW_S:
            recent.popleft()
        if len(recent) < FLOOD_COUNT:
            recent.append(now)
            self._folded.pop(subscription_id, None)
            return payload
        self._folded[subscription_id] = self._folded.get(subscription_id, 0) + 1
        return web_push.digest_payload(self._folded[subscription_id], notification)

    async def _push(self, subscription: PushSubscription, data: str, private_pem: bytes, contact: str,
                    urgency: str, topic: str | None, delivery: Any) -> str | None:
        """None when the push service took it, "gone" when it dropped the device (404/410), else what went wrong."""
        try:
            await asyncio.to_thread(_post, subscription, data, private_pem, contact, urgency, topic)
        except PushRefused as exc:
            gone, said = exc.status in GONE, str(exc)
            log.info("web push to device %s: %s%s", subscription.device_id, said,
                     "; its subscription is dropped" if gone else "")
            await web_push.record(delivery.hub, subscription, said, gone=gone)
            return "gone" if gone else said
        await web_push.record(delivery.hub, subscription, None)
        return None
