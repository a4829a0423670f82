"""What a test process would otherwise redo for every client and every hub it starts, made once per process.

Measured over the fast loop (`pytest -m "not slow"`, per-thread CPU of the calls themselves):

- Every `httpx.get/post(...)`, `httpx.Client()` and `httpx.AsyncClient()` builds a TLS context and loads a CA bundle
  into it (certifi's, or SSL_CERT_FILE's), about 20 ms of CPU, even for the plain-http hubs the tests talk to: 1,959 of them, 42 CPU-s of
  the loop's ~390 (the Api helper's one client per call, pair_agent, the health polls while a hub process starts).
  `share_default_tls_context` hands every client that asks for the default verification (no `verify=` of its
  own) one context per set of CAs it would load: certifi's bundle, or what SSL_CERT_FILE / SSL_CERT_DIR name, as
  they are then (a test that points SSL_CERT_FILE at a CA of its own, or rewrites that file, gets a context made
  from it). Sharing one context between clients is what httpx itself recommends; a client with a `verify=` of its
  own still gets the context it asked for, made as before.
(hub/web/static_app.py keeps what it read of ui/ the same way for a hub started again in one process: each
in-process hub gzipped the whole app again, 786 times and 21 CPU-s over the fast loop.)
"""

from __future__ import annotations

import os
import ssl
import threading
from collections.abc import Callable
from typing import Any


def share_default_tls_context() -> None:
    """One TLS context for every httpx client of this process that asks for the default verification, per set of
    CAs it names (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR as they are and as that file is now)."""
    import httpx._transports.default as transports

    # httpx's transport module makes each client's context with this function (not exported: read and set by name).
    make: Callable[..., ssl.SSLContext] = getattr(transports, "create_ssl_context")  # noqa: B009
    if getattr(make, "shared_default", False):
        return
    shared: dict[tuple[Any, ...], ssl.SSLContext] = {}
    lock = threading.Lock()

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        if verify is not True or cert is not None:
            return make(verify=verify, cert=cert, trust_env=trust_env)
        key: tuple[Any, ...] = (trust_env,)
        if trust_env:
            named = os.environ.get("SSL_CERT_FILE") or ""
            try:
                stat = os.stat(named) if named else None
            except OSError:
                stat = None
            key += (named, stat and (stat.st_size, stat.st_mtime_ns, stat.st_ino), os.environ.get("SSL_CERT_DIR"))
        with lock:
            if key not in shared:
                shared[key] = make(verify=True, cert=None, trust_env=trust_env)
            return shared[key]

    create_ssl_context.shared_default = True  # type: ignore[attr-defined]
    setattr(transports, "create_ssl_context", create_ssl_context)  # noqa: B010
