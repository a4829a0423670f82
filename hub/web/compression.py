"""Compressed reads: the app's GET /api/* answers are gzipped for clients that accept it (phones on slow links).

Only reads: an answer to a POST can carry a fresh secret (a token, a pairing code), and compressing a secret
beside text an attacker chooses is what BREACH exploits. The web app's own files are compressed once, at start
(hub/web/static_app.py).
"""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send


class CompressReads:
    def __init__(self, app: ASGIApp, minimum_size: int = 1024) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Not a stored file (hub/web/files.py): served as its bytes are, ranges included.
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].startswith("/api/") \
                and not scope["path"].startswith("/api/files/"):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
