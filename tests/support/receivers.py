"""Real local receivers for notification tests: an HTTP endpoint that records POSTs, an SMTP server (aiosmtpd)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller

from tests.support.hubproc import free_port


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class HttpReceiver:
    """An HTTP server on 127.0.0.1 that records every POST; `status` and `delay_s` shape its answers."""

    status: int = 200
    delay_s: float = 0.0
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                receiver.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                      json.loads(raw or b"{}")))
                time.sleep(receiver.delay_s)
                self.send_response(receiver.status)
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd API
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


class SmtpReceiver:
    """A real SMTP server (aiosmtpd) on a loopback port, keeping every message it accepts."""

    def __init__(self) -> None:
        self.inbox = _Inbox()
        self.port = free_port()  # aiosmtpd's start-up check connects to the port, so it cannot be 0
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    @property
    def messages(self) -> list[Message]:
        return self.inbox.messages

    def close(self) -> None:
        self.controller.stop()
