"""The mail channel: SMTP with STARTTLS or TLS and sign-in (aiosmtplib), a plain-text and an HTML part.

`[notify.mail] host, port, security = "starttls" | "tls" | "none", username, password, from, to = [...]`.
The Message-ID is the notification's id, so a mail re-sent after a crash is recognisably the same one. A mail has
no answer links, only a link to the app, and says where an approval is approved (`approveInApp`).
"""

from __future__ import annotations

import unicodedata
from email.message import EmailMessage
from html import escape
from typing import Any

import aiosmtplib


def header_value(text: str) -> str:
    """One header line: a CR/LF (from an agent's name or a task's title) would make `email` refuse the message
    (so the mail would never be sent) or, elsewhere, start a header of its own (a Bcc)."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in str(text))


def build_message(notification: dict[str, Any], sender: str, recipients: list[str]) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = header_value(f"[LineUp] {notification['title']}")
    message["From"] = header_value(sender)
    message["To"] = header_value(", ".join(recipients))
    message["Message-ID"] = header_value(f"<{notification['id']}@lineup>")
    link = notification.get("link", "")
    lines = [notification["title"], "", notification.get("body", "")]
    if notification.get("risk"):
        lines.append(f"Risk: {notification['risk']}")
    if notification.get("agent"):
        lines.append(f"Agent: {notification['agent']}")
    if notification.get("approveInApp"):
        lines += ["", notification["approveInApp"]]
    lines += ["", f"Open: {link}"]
    message.set_content("\n".join(lines))
    message.add_alternative(
        f"<h2>{escape(notification['title'])}</h2><p>{escape(notification.get('body', ''))}</p>"
        + (f"<p>Risk: <strong>{escape(notification['risk'])}</strong></p>" if notification.get("risk") else "")
        + (f"<p>Agent: {escape(notification['agent'])}</p>" if notification.get("agent") else "")
        + (f"<p>{escape(notification['approveInApp'])}</p>" if notification.get("approveInApp") else "")
        + f'<p><a href="{escape(link, quote=True)}">Open in LineUp</a></p>', subtype="html")
    return message


class MailChannel:
    name = "mail"

    async def send(self, notification: dict[str, Any], delivery: Any) -> None:
        options = delivery.config.options
        recipients = options.get("to") or []
        if isinstance(recipients, str):
            recipients = [recipients]
        if not recipients:
            raise RuntimeError("notify.mail.to names nobody")
        security = options.get("security", "starttls")
        message = build_message(notification, options.get("from", "lineup@localhost"), recipients)
        await aiosmtplib.send(
            message, hostname=options["host"], port=int(options.get("port", 587 if security == "starttls" else 465
                                                                       if security == "tls" else 25)),
            username=options.get("username"), password=options.get("password"), use_tls=security == "tls",
            start_tls=security == "starttls", timeout=float(options.get("timeout_s", 20)))
