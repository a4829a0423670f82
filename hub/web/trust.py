"""\"Trust this hub\": the hub's CA for phones (an iPhone profile, a DER file for Android) and what the app shows.

The downloads are public: a certificate is public by nature, and a phone that scans the QR code is not signed in.
Only the CA's certificate is ever read here, never a key. What the app shows (`GET /api/trust`) needs a
signed-in person. Nothing here changes any state.
"""

from __future__ import annotations

import socket
from typing import Any

import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hub.ca.https import LanHttps
from hub.ca.profile import mobileconfig
from hub.netaddr import is_loopback_host
from hub.tls import fingerprint_der
from hub.web.auth import require_user
from hub.web.port import hub_of

PROFILE_PATH = "/trust/lineup-hub.mobileconfig"
DER_PATH = "/trust/lineup-hub-ca.crt"


def _https(request: Request) -> LanHttps | None:
    https = getattr(request.app.state, "lan_https", None)
    return https if isinstance(https, LanHttps) and https.context is not None else None


def _not_offered() -> JSONResponse:
    return JSONResponse({"error": {"code": "not_found", "message": "This hub serves no https of its own.",
                                   "hint": "It is off (lan_https = \"off\") or the hub runs with --tls-*."}},
                        status_code=404)


def _download(body: bytes, media_type: str, filename: str) -> Response:
    return Response(body, media_type=media_type, headers={
        "content-disposition": f'attachment; filename="{filename}"', "cache-control": "no-store"})


async def profile(request: Request) -> Response:
    https = _https(request)
    if https is None:
        return _not_offered()
    label = socket.gethostname().split(".")[0] or "hub"
    return _download(mobileconfig(https.store.ca_der(), label), "application/x-apple-aspen-config",
                     "lineup-hub.mobileconfig")


async def certificate(request: Request) -> Response:
    https = _https(request)
    if https is None:
        return _not_offered()
    return _download(https.store.ca_der(), "application/x-x509-ca-cert", "lineup-hub-ca.crt")


def _qr(url: str) -> str:
    return str(segno.make(url, error="m").svg_inline(scale=4, dark="#1b1f24", light="#ffffff"))


def _phone_base(request: Request) -> str | None:
    """An http address a phone on the LAN can use: the one this page was opened at, else the hub's LAN address."""
    if request.url.hostname and not is_loopback_host(request.url.hostname):
        return f"http://{request.headers.get('host', request.url.netloc)}"
    lan = hub_of(request).lan_urls
    return str(lan[0]).replace("https://", "http://", 1) if lan else None


async def trust_info(request: Request) -> JSONResponse:
    """Whether the hub offers https, where, the CA's fingerprint, and the downloads (with QR codes for a phone)."""
    await require_user(request)
    https = _https(request)
    if https is None:
        return JSONResponse({"available": False})
    port = request.url.port or (443 if request.url.scheme == "https" else 80)
    host = request.url.hostname or ""
    local = is_loopback_host(host)
    names = [name for name in https.names.dns if local or not is_loopback_host(name)]
    names += [ip for ip in https.names.ips if local or not is_loopback_host(ip)]
    urls = [f"https://{f'[{n}]' if ':' in n else n}:{port}/" for n in names]
    here = f"https://{request.headers.get('host', '')}/" if https.covers(host) else None
    base = _phone_base(request)
    result: dict[str, Any] = {
        "available": True, "secure": request.url.scheme == "https", "httpsHere": here, "httpsUrls": urls,
        "caFingerprint": fingerprint_der(https.store.ca_der()),
        "downloads": {"iphone": PROFILE_PATH, "android": DER_PATH},
        "hubMachine": local,
        "phoneLinks": None,
    }
    if local and base:  # shown on the hub's own machine: a phone scans these
        result["phoneLinks"] = {kind: {"url": base + path, "qrSvg": _qr(base + path)}
                                for kind, path in (("iphone", PROFILE_PATH), ("android", DER_PATH))}
    return JSONResponse(result, headers={"cache-control": "no-store"})


routes = [
    Route(PROFILE_PATH, profile, methods=["GET"]),
    Route(DER_PATH, certificate, methods=["GET"]),
    Route("/api/trust", trust_info, methods=["GET"]),
]
