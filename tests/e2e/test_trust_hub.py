"""A browser that trusts the hub's CA opens it over https as a secure context; one that does not keeps plain http.

Chromium on Linux reads the trust a person adds from the NSS database under $HOME/.pki/nssdb: the test imports the
hub's CA there with Debian's certutil (libnss3-tools) under a temporary HOME and launches Chromium with it, as a
phone that installed the profile or the certificate. It then opens https://localhost:<port>/ without a certificate
error, the page is a secure context and the app's service worker registers (browsers refuse one on a page with a
certificate error); the same address over http sends it to https. The same CA key cannot vouch for another name
(name constraints, enforced by Chromium too). Settings on the hub's own machine shows "Trust this hub" with both
downloads.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from playwright.sync_api import Browser, Playwright

from hub.ca.authority import HubCA, Names, sign_leaf
from tests.e2e.conftest import PHONE, create_owner
from tests.support import browsers
from tests.support.fixtures import OpenPage
from tests.support.hubs import HubProcess
from tests.support.needs import missing

ROGUE = "outside.example"


def nss_home(folder: Path, ca_pem: Path) -> Path:
    """A HOME whose NSS database trusts the CA for websites (`-t C,,`), as `certutil` documents."""
    certutil = shutil.which("certutil")
    if certutil is None:
        missing("certutil is missing (apt-get install libnss3-tools; .ci/run does it)")
    database = folder / ".pki" / "nssdb"
    database.mkdir(parents=True)
    subprocess.run([certutil, "-N", "-d", f"sql:{database}", "--empty-password"], check=True, timeout=60)
    subprocess.run([certutil, "-d", f"sql:{database}", "-A", "-t", "C,,", "-n", "lineup", "-i", str(ca_pem)],
                   check=True, timeout=60)
    return folder


@contextlib.contextmanager
def rogue_server(store: HubCA, folder: Path) -> Iterator[int]:
    """An https server on loopback whose certificate the hub's own CA key signed for a name outside its
    constraints: what a stolen key could try."""
    ca = store.ca()
    ca_key = serialization.load_pem_private_key(store.ca_key_path.read_bytes(), password=None)
    assert ca is not None and isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    chain, key_path = folder / "rogue.pem", folder / "rogue-key.pem"
    chain.write_bytes(sign_leaf(ca, ca_key, key, Names((ROGUE,), ())).public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(chain, key_path)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(10)
            with contextlib.suppress(OSError, ssl.SSLError), context.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1024)
                tls.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nrogue")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def test_a_browser_that_trusts_the_ca_opens_the_hub_over_https_and_http_sends_it_there(
        hub: HubProcess, playwright: Playwright, browser: Browser, tmp_path: Path) -> None:
    owner = create_owner(hub)
    store = HubCA(Path(hub.data_dir) / "tls" / "hub-ca")
    home = nss_home(tmp_path / "home", store.ca_path)
    with rogue_server(store, tmp_path) as rogue_port:
        trusting = playwright.chromium.launch(
            executable_path=browsers.executable(full=True), headless=True,
            args=[*browsers.ARGS, f"--host-resolver-rules=MAP {ROGUE} 127.0.0.1"], env={**os.environ, "HOME": str(home)})
        try:
            context = trusting.new_context(viewport=PHONE)
            context.set_default_timeout(30_000)
            context.add_init_script(
                f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {owner.token!r});")
            page = context.new_page()
            answer = page.goto(f"https://localhost:{hub.port}/#/settings")
            assert answer is not None and answer.ok
            assert page.evaluate("window.isSecureContext") is True
            assert page.evaluate("location.protocol") == "https:"
            assert page.evaluate("'serviceWorker' in navigator") is True
            # The app registers its service worker in a secure context (ui/app.js): refused on a certificate error.
            scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.active ? r.scope : null)")
            assert scope == f"https://localhost:{hub.port}/"
            # Settings says this device trusts the hub, and offers no download.
            done = page.locator("lineup-trust-hub .trust-done")
            done.wait_for()
            assert page.locator("lineup-trust-hub .trust-download").count() == 0

            # The same device at the plain address is sent to https (it opened the hub over https before).
            page.goto(f"http://localhost:{hub.port}/")
            assert page.url == f"https://localhost:{hub.port}/"

            # The CA's key cannot vouch for a name outside its constraints: Chromium refuses the certificate.
            with pytest.raises(Exception, match="ERR_CERT"):
                context.new_page().goto(f"https://{ROGUE}:{rogue_port}/")

            # A device that never opened the hub over https (no mark): served over plain http, as before.
            fresh = trusting.new_context(viewport=PHONE)
            plain = fresh.new_page()
            plain.goto(f"http://127.0.0.1:{hub.port}/")
            assert plain.url.startswith(f"http://127.0.0.1:{hub.port}/")
            plain.locator("lineup-app").wait_for(state="attached")
            fresh.close()
            context.close()
        finally:
            trusting.close()

    # A browser without the CA gets a certificate error at the https address, never the app.
    untrusting = browser.new_context()
    try:
        with pytest.raises(Exception, match="ERR_CERT"):
            untrusting.new_page().goto(f"https://localhost:{hub.port}/")
    finally:
        untrusting.close()


def test_settings_on_the_hubs_machine_offers_trust_this_hub_with_both_downloads(hub: HubProcess, open_page: OpenPage) -> None:
    owner = create_owner(hub)
    page = open_page(hub, token=owner.token, path="/#/settings")
    panel = page.locator("lineup-trust-hub section.trust-hub")
    panel.wait_for()
    assert panel.locator("h2").inner_text().strip() == "Trust this hub"
    iphone = panel.locator("[data-platform=iphone] a.trust-download")
    android = panel.locator("[data-platform=android] a.trust-download")
    assert iphone.get_attribute("href") == "/trust/lineup-hub.mobileconfig"
    assert android.get_attribute("href") == "/trust/lineup-hub-ca.crt"
    assert panel.locator("[data-platform=iphone] .trust-steps li").count() == 3
    assert "Certificate Trust Settings" in panel.inner_text()
    # This hub listens on loopback only: no phone can reach it, and the panel says so instead of a QR code.
    assert panel.locator(".trust-no-lan").is_visible()
    with page.expect_download() as download:
        android.click()
    saved = Path(download.value.path())
    assert saved.read_bytes() == HubCA(Path(hub.data_dir) / "tls" / "hub-ca").ca_der()
