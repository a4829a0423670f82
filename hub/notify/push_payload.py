"""What a Web Push carries to the service worker (ui/sw.js): the notification's words, where a tap leads, and the
answer buttons the rule allows (hub/notify/outside.py, as the hub composed them: never a yes to an approval that
carries a command, a file change or a tool's input), or a digest that stands for several."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

MAX_ACTIONS = 2  # what Chrome shows on a notification; a tap on the notification itself opens the card
MAX_BODY = 300  # a push carries at most about 4 KB once encrypted


def app_path(link: str | None) -> str:
    """The link's path and route only: the service worker opens it on its own origin (the hub may be reached by
    another name than the one `public_url` gives, https://hub.local beside http://192.168.1.20)."""
    if not link:
        return "/"
    parts = urlsplit(link)
    return (parts.path or "/") + (f"#{parts.fragment}" if parts.fragment else "")


def push_payload(notification: dict[str, Any], answers: list[dict[str, Any]]) -> dict[str, Any]:
    """`answers` are the buttons to offer, each `{label, token, approves}` (the token an action link's, which the
    service worker posts back to /api/actions in a body, never a URL)."""
    body = str(notification.get("body") or "")[:MAX_BODY]
    if notification.get("approveInApp"):
        body = f"{body}\n{notification['approveInApp']}".strip()
    actions = [{"action": f"answer-{i}", "title": a["label"], "token": a["token"], "approves": bool(a["approves"])}
               for i, a in enumerate(answers[:MAX_ACTIONS])]
    if len(actions) < MAX_ACTIONS:
        actions.append({"action": "open", "title": "Open"})
    return {"id": notification["id"], "kind": notification["kind"], "title": str(notification.get("title") or ""),
            "body": body, "url": app_path(notification.get("link")), "taskId": notification.get("taskId"),
            "interactionId": notification.get("interactionId"), "risk": notification.get("risk"),
            "tag": notification["id"], "actions": actions}


def digest_payload(count: int, newest: dict[str, Any]) -> dict[str, Any]:
    """One notification standing for `count` that came too fast to each buzz: it replaces the last digest (one tag)
    and leads to the inbox, where all of them wait. No buttons: which question would they answer?"""
    return {"id": f"digest-{newest['id']}", "kind": "digest", "count": count, "tag": "lineup-digest",
            "title": f"LineUp: {count} more" if count > 1 else "LineUp: 1 more",
            "body": f"The newest: {str(newest.get('title') or '')[:MAX_BODY]}", "url": "/#/inbox", "actions": []}
