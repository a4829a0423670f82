"""A real hub on loopback serves https with its own CA's leaf on its one port, beside plain HTTP.

What a phone gets: the CA to download (an iPhone profile, a DER file for Android) by anyone, what the app shows
only when signed in, https under the hub's names, a new leaf from the same CA when its addresses change, and plain
HTTP sending a device that has opened the hub over https (the `lineup_https` cookie) there, while a device that
never did keeps being served over plain HTTP.
"""

from __future__ import annotations

import plistlib
import re
import socket
import ssl
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from hub.tls import fingerprint_der
from tests.support.fixtures import HubFactory
from tests.support.hubs import HubProcess
from tests.support.polling import eventually_sync

NAVIGATE = {"sec-fetch-mode": "navigate", "sec-fetch-dest": "document", "accept": "text/html"}
KEY_MARK = re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def ca_folder(hub: HubProcess) -> Path:
    return Path(hub.data_dir) / "tls" / "hub-ca"


def peer_certificate(port: int, ca: Path, name: str, address: str = "127.0.0.1") -> x509.Certificate:
    context = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection((address, port), timeout=10) as raw, \
            context.wrap_socket(raw, server_hostname=name) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der)


def test_the_hubs_port_answers_https_with_its_leaf_and_plain_http_alike(hub_factory: HubFactory) -> None:
    hub = hub_factory()
    ca = ca_folder(hub) / "ca.pem"
    leaf = x509.load_pem_x509_certificates((ca_folder(hub) / "leaf.pem").read_bytes())[0]
    for name in ("localhost", "127.0.0.1"):
        assert peer_certificate(hub.port, ca, name) == leaf
    with httpx.Client(verify=ssl.create_default_context(cafile=str(ca)), timeout=20) as https:
        answer = https.get(f"https://localhost:{hub.port}/-/health")
        assert answer.status_code == 200 and answer.json()["protocol"]
        page = https.get(f"https://127.0.0.1:{hub.port}/", headers=NAVIGATE)
        assert page.status_code == 200 and "<lineup-app" in page.text
        # A page load over https marks the device as one that trusts the hub (not Secure: http sees it too).
        cookie = page.headers["set-cookie"]
        assert cookie.startswith("lineup_https=1;") and "HttpOnly" in cookie and "Secure" not in cookie
    plain = httpx.get(f"http://127.0.0.1:{hub.port}/", headers=NAVIGATE, timeout=20)
    assert plain.status_code == 200 and "<lineup-app" in plain.text and "set-cookie" not in plain.headers
    # A client that trusts nothing of the hub's gets a certificate error, never a fallback to plain text.
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"https://127.0.0.1:{hub.port}/-/health", timeout=20)
    # A connection that says nothing is closed at the request deadline, and the hub keeps serving.
    silent = socket.create_connection(("127.0.0.1", hub.port), timeout=30)
    try:
        assert httpx.get(f"http://127.0.0.1:{hub.port}/-/health", timeout=20).status_code == 200
        assert silent.recv(10) in (b"", b"HTTP/1.1 4")  # closed (the default request_timeout_s is 10 s)
    finally:
        silent.close()


def test_plain_http_sends_a_trusting_device_to_https_and_serves_the_others(hub_factory: HubFactory) -> None:
    hub = hub_factory()
    trusted = {**NAVIGATE, "cookie": "theme=dark; lineup_https=1"}
    with httpx.Client(timeout=20, follow_redirects=False) as http:
        for host in ("127.0.0.1", "localhost"):
            moved = http.get(f"http://{host}:{hub.port}/inbox?x=1", headers=trusted)
            assert moved.status_code == 307, moved.text
            assert moved.headers["location"] == f"https://{host}:{hub.port}/inbox?x=1"
        # Not a page load (the app's own calls, an agent, the CLI): served where it was asked.
        assert http.get(f"http://127.0.0.1:{hub.port}/-/health",
                        headers={"cookie": "lineup_https=1", "sec-fetch-mode": "cors"}).status_code == 200
        assert http.post(f"http://127.0.0.1:{hub.port}/api/login", json={},
                         headers={"cookie": "lineup_https=1"}).status_code != 307
        # A device that never opened the hub over https: the app over plain HTTP, as before.
        assert http.get(f"http://127.0.0.1:{hub.port}/", headers=NAVIGATE).status_code == 200
        # A name the certificate is not valid for is never sent to https (a browser would show an error there).
        assert http.get(f"http://127.0.0.1:{hub.port}/", headers={**trusted, "host": f"10.1.2.3:{hub.port}"}
                        ).status_code == 200
        # The way back for a device that removed the CA: ?plain=1 stays on http and forgets the mark.
        back = http.get(f"http://127.0.0.1:{hub.port}/?plain=1", headers=trusted)
        assert back.status_code == 200 and back.headers["set-cookie"].startswith("lineup_https=;")
        assert "Max-Age=0" in back.headers["set-cookie"]


def test_the_ca_downloads_for_phones_are_public_and_hold_no_key(hub_factory: HubFactory) -> None:
    hub = hub_factory()
    ca_der = x509.load_pem_x509_certificate((ca_folder(hub) / "ca.pem").read_bytes()).public_bytes(
        serialization.Encoding.DER)
    with httpx.Client(base_url=f"http://127.0.0.1:{hub.port}", timeout=20) as http:
        profile = http.get("/trust/lineup-hub.mobileconfig")  # no token: a phone that scanned the QR code
        assert profile.status_code == 200
        assert profile.headers["content-type"] == "application/x-apple-aspen-config"
        assert 'filename="lineup-hub.mobileconfig"' in profile.headers["content-disposition"]
        parsed = plistlib.loads(profile.content)
        assert parsed["PayloadType"] == "Configuration" and parsed["PayloadVersion"] == 1
        [payload] = parsed["PayloadContent"]
        assert payload["PayloadType"] == "com.apple.security.root" and payload["PayloadContent"] == ca_der
        assert payload["PayloadUUID"] != parsed["PayloadUUID"]
        assert plistlib.loads(http.get("/trust/lineup-hub.mobileconfig").content) == parsed  # the same profile
        android = http.get("/trust/lineup-hub-ca.crt")
        assert android.status_code == 200 and android.headers["content-type"] == "application/x-x509-ca-cert"
        assert android.content == ca_der
        assert x509.load_der_x509_certificate(android.content).extensions.get_extension_for_class(
            x509.NameConstraints).critical
        # Nothing here changes anything, and no way of asking reaches a key.
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            for path in ("/trust/lineup-hub.mobileconfig", "/trust/lineup-hub-ca.crt", "/api/trust"):
                assert http.request(method, path).status_code == 405
        for path in ("/trust/ca-key.pem", "/trust/leaf-key.pem", "/tls/hub-ca/ca-key.pem", "/trust/",
                     "/trust/lineup-hub-ca.pem", "/../tls/hub-ca/ca-key.pem"):
            assert not KEY_MARK.search(http.get(path).content), path
    assert not KEY_MARK.search(profile.content + android.content)


def test_what_the_app_shows_needs_a_signed_in_person(hub_factory: HubFactory) -> None:
    hub = hub_factory()
    token = hub.token()
    ca_der = (ca_folder(hub) / "ca.pem").read_text()
    with httpx.Client(base_url=f"http://127.0.0.1:{hub.port}", timeout=20) as http:
        assert http.get("/api/trust").status_code == 401
        info = http.get("/api/trust", headers={"authorization": f"Bearer {token}"}).json()
    assert info["available"] is True and info["secure"] is False and info["hubMachine"] is True
    assert info["httpsHere"] == f"https://127.0.0.1:{hub.port}/"
    assert f"https://localhost:{hub.port}/" in info["httpsUrls"]
    assert any(url.endswith(f".local:{hub.port}/") for url in info["httpsUrls"])
    assert info["caFingerprint"] == fingerprint_der(ssl.PEM_cert_to_DER_cert(ca_der))
    assert info["downloads"] == {"iphone": "/trust/lineup-hub.mobileconfig", "android": "/trust/lineup-hub-ca.crt"}


def test_a_new_address_is_served_with_a_new_leaf_of_the_same_ca(hub_factory: HubFactory,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from hub.ca import https, names

    monkeypatch.setattr(https, "CHECK_ADDRESSES_EVERY_S", 0.2)
    running = hub_factory()
    folder = ca_folder(running)
    ca_before = (folder / "ca.pem").read_bytes()
    first = peer_certificate(running.port, folder / "ca.pem", "127.0.0.1")
    with pytest.raises(ssl.SSLCertVerificationError):
        peer_certificate(running.port, folder / "ca.pem", "127.0.0.2")  # an address of the hub now
    real = names.addresses_for
    monkeypatch.setattr(names, "addresses_for", lambda host: [*real(host), "127.0.0.2"])  # a new address

    def renewed() -> x509.Certificate | None:
        try:
            return peer_certificate(running.port, folder / "ca.pem", "127.0.0.2")  # an address of the hub now
        except ssl.SSLCertVerificationError:
            return None
    second = eventually_sync(renewed, timeout=30, what="a new leaf for the new address")
    assert second.serial_number != first.serial_number and second.issuer == first.issuer
    assert (folder / "ca.pem").read_bytes() == ca_before  # the phones that trusted the CA still do
    assert peer_certificate(running.port, folder / "ca.pem", "localhost") == second  # the new leaf for every name


def test_lan_https_off_serves_plain_http_only(hub_factory: HubFactory) -> None:
    hub = hub_factory(env={"LINEUP_LAN_HTTPS": "off"})
    assert httpx.get(f"http://127.0.0.1:{hub.port}/-/health", timeout=20).status_code == 200
    assert not (ca_folder(hub) / "ca.pem").exists()
    with socket.create_connection(("127.0.0.1", hub.port), timeout=20) as raw, pytest.raises((ssl.SSLError, OSError)):
        ssl.create_default_context().wrap_socket(raw, server_hostname="localhost")


def test_the_ca_key_never_reaches_the_log(hub_factory: HubFactory) -> None:
    hub = hub_factory(env={"LINEUP_LOG_LEVEL": "debug"})
    httpx.get(f"http://127.0.0.1:{hub.port}/trust/lineup-hub.mobileconfig", timeout=20)
    with httpx.Client(verify=ssl.create_default_context(cafile=str(ca_folder(hub) / "ca.pem")), timeout=20) as h:
        h.get(f"https://localhost:{hub.port}/", headers=NAVIGATE)
    log = hub.log()
    for key in ("ca-key.pem", "leaf-key.pem"):
        body = "".join((ca_folder(hub) / key).read_text().splitlines()[1:-1])
        assert body[:40] not in log.replace("\n", "")
    assert "PRIVATE KEY" not in log
