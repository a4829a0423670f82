"""TLS (docs/security.md): `--tls-self-signed` makes a certificate once and shows its fingerprint; the SDK pins it,
pairs and connects, and refuses another certificate (PinMismatch, before any secret is sent, and without a reconnect
loop); plain HTTP is not served on the TLS port; `--tls-cert/--tls-key` serves a certificate the person made. Also: the
pin is checked on the very connection that carries the pairing code, not on a separate one a man in the middle
could let through.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import hashlib
import ipaddress
import json
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hub.sdk import AgentClient, SdkError, load_credential, pair, pair_or_load
from hub.sdk.tlspin import PinMismatch
from hub.tls import fingerprint as file_fingerprint
from tests.security.support import ROOT, ServedHub
from tests.support.hubproc import free_port
from tests.support.polling import eventually

FINGERPRINT = r"TLS certificate SHA-256 fingerprint: ([0-9A-F:]{95})"


def served_fingerprint(port: int) -> str:
    der = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate(("127.0.0.1", port)))
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, 64, 2))


def other_fingerprint(fingerprint: str) -> str:
    flipped = "0" if fingerprint[0] != "0" else "1"
    return flipped + fingerprint[1:]


def make_certificate(folder: Path, name: str, *, issuer: tuple[Any, x509.Name] | None = None, ca: bool = False,
                     ) -> tuple[Path, Path, Any, x509.Name]:
    """A key and certificate for 127.0.0.1 (signed by `issuer`, else self-signed), written as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    signer_key, signer_name = issuer if issuer else (key, subject)
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(signer_name).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
               .not_valid_after(now + datetime.timedelta(days=2))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
    certificate = builder.sign(signer_key, hashes.SHA256())
    cert_path, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path, key, subject


@pytest.fixture(scope="module")
def tls_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedHub]:
    hub = ServedHub(tmp_path_factory.mktemp("tls") / "hub", args=["--tls-self-signed"], tls=True).start()
    yield hub
    hub.stop()


def owner_api(hub: ServedHub) -> httpx.Client:
    token = hub.token()
    return httpx.Client(base_url=hub.base, verify=False, timeout=30, headers={"Authorization": f"Bearer {token}"})


def test_the_fingerprint_shown_is_the_certificate_served(tls_hub: ServedHub) -> None:
    shown = tls_hub.wait_banner(FINGERPRINT).group(1)
    assert shown == served_fingerprint(tls_hub.port) == file_fingerprint(tls_hub.data_dir / "tls" / "cert.pem")
    assert f"open https://127.0.0.1:{tls_hub.port}/" in tls_hub.banner()
    assert httpx.get(tls_hub.base + "/.well-known/lineup", verify=False).json()["tlsFingerprint"] == shown
    assert (tls_hub.data_dir / "tls" / "key.pem").stat().st_mode & 0o777 == 0o600
    with owner_api(tls_hub) as api:
        answer = api.post("/api/pairing-codes", json={}).json()
    assert answer["command"].endswith(f"--code {answer['code']} --fingerprint {shown}")
    assert f" demo-agent --hub https://127.0.0.1:{tls_hub.port} " in answer["command"]  # after the hub's program


def test_plain_http_is_not_served_on_the_tls_port(tls_hub: ServedHub) -> None:
    for url in (f"http://127.0.0.1:{tls_hub.port}/-/health", f"http://127.0.0.1:{tls_hub.port}/api/setup"):
        with pytest.raises(httpx.HTTPError):
            httpx.get(url, timeout=5)

    async def plain_socket() -> None:
        async with websockets.connect(f"ws://127.0.0.1:{tls_hub.port}/ws/agent", open_timeout=5):
            pass

    with pytest.raises((websockets.InvalidHandshake, OSError, asyncio.TimeoutError)):
        asyncio.run(plain_socket())


async def test_the_sdk_pairs_and_connects_with_the_pin_and_refuses_another(tls_hub: ServedHub) -> None:
    shown = tls_hub.wait_banner(FINGERPRINT).group(1)
    with owner_api(tls_hub) as api:
        code = api.post("/api/pairing-codes", json={}).json()["code"]
        # No pin: a self-signed certificate is not trusted, and the code is not spent.
        with pytest.raises(SdkError, match="fingerprint"):
            await pair(tls_hub.base, code, name="unpinned")
        # A wrong pin: refused before the code is sent (it still works below).
        with pytest.raises(PinMismatch):
            await pair(tls_hub.base, code, name="wrong-pin", tls_fingerprint=other_fingerprint(shown))
        credential = await pair(tls_hub.base, code, name="pinned", tls_fingerprint=shown.lower().replace(":", ""))
        assert credential.tls_fingerprint == shown and credential.hub_url.startswith("https://")
        assert credential.credential not in repr(credential)

        agent = AgentClient(credential, runtime="test")
        await agent.start(timeout_s=15)
        try:
            agents = {a["id"]: a for a in api.get("/api/agents").json()["agents"]}
            assert agents[credential.agent_id]["status"] == "online"
        finally:
            await agent.close()

        # The same credential with a wrong pin: PinMismatch at once, no retry loop, the hub never saw a hello.
        await eventually(  # (the closed agent's `offline` first, so it is not counted below)
            lambda: {a["id"]: a for a in api.get("/api/agents").json()["agents"]}[credential.agent_id]["status"]
            == "offline", timeout=30, what="the closed agent offline")
        head = api.get("/api/state").json()["headSequence"]
        impostor = AgentClient(dataclasses.replace(credential, tls_fingerprint=other_fingerprint(shown)),
                               runtime="test", backoff_initial_s=0.05, backoff_max_s=0.1)
        with pytest.raises(PinMismatch):
            await impostor.start(timeout_s=10)
        assert impostor._runner is not None and impostor._runner.done() and impostor.connections == 0
        await impostor.close()
        # The agent with the right pin connects after it: its `online` is stored after anything the impostor's
        # attempt could have caused, so once it is there, a status change from the impostor would be there too.
        again = AgentClient(credential, runtime="test")
        await again.start(timeout_s=15)
        try:
            statuses = await eventually(lambda: [e for e in api.get("/api/events", params={"after": head}).json()
                                                 ["events"] if e["type"] == "agent.status_changed"],
                                        timeout=30, what="the pinned agent's status change")
            assert [(e["payload"]["agentId"], e["payload"]["status"]) for e in statuses] == \
                [(credential.agent_id, "online")]
        finally:
            await again.close()


def test_the_demo_agent_takes_the_fingerprint(tls_hub: ServedHub, tmp_path: Path) -> None:
    shown = tls_hub.wait_banner(FINGERPRINT).group(1)
    with owner_api(tls_hub) as api:
        code = api.post("/api/pairing-codes", json={}).json()["code"]
        base = [sys.executable, "-m", "hub", "demo-agent", "--hub", tls_hub.base, "--code", code,
                "--credential-file", str(tmp_path / "demo.json"), "--name", "demo-over-tls"]
        refused = subprocess.run([*base, "--fingerprint", other_fingerprint(shown)], capture_output=True,
                                 text=True, timeout=60, cwd=ROOT)
        assert refused.returncode != 0 and "fingerprint" in refused.stderr and not (tmp_path / "demo.json").exists()
        demo = subprocess.Popen([*base, "--fingerprint", shown], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, cwd=ROOT)
        try:
            for _ in range(300):
                online = [a for a in api.get("/api/agents").json()["agents"]
                          if a["name"] == "demo-over-tls" and a["status"] == "online"]
                if online:
                    break
                assert demo.poll() is None, demo.stderr.read() if demo.stderr else ""
                time.sleep(0.1)
            assert online, "the demo agent did not come online over TLS"
            saved = json.loads((tmp_path / "demo.json").read_text())
            assert saved["tls_fingerprint"] == shown and (tmp_path / "demo.json").stat().st_mode & 0o777 == 0o600
        finally:
            demo.send_signal(signal.SIGINT)
            try:
                demo.wait(15)
            except subprocess.TimeoutExpired:
                demo.kill()
                demo.wait()
            if demo.stderr:
                demo.stderr.close()


async def test_a_certificate_the_person_gives_is_served_and_verified(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ca_cert, _, ca_key, ca_name = make_certificate(tmp_path, "test-ca", ca=True)
    cert, key, _, _ = make_certificate(tmp_path, "hub", issuer=(ca_key, ca_name))
    hub = ServedHub(tmp_path / "hub", args=["--tls-cert", str(cert), "--tls-key", str(key)], tls=True).start()
    try:
        shown = hub.wait_banner(FINGERPRINT).group(1)
        assert shown == served_fingerprint(hub.port) == file_fingerprint(cert)
        assert not (hub.data_dir / "tls").exists()  # nothing self-signed was made
        with owner_api(hub) as api:
            codes = [api.post("/api/pairing-codes", json={}).json()["code"] for _ in range(2)]
            # Not trusted by this machine: refused without a pin ...
            with pytest.raises(SdkError):
                await pair(hub.base, codes[0])
            # ... pinned: accepted.
            assert (await pair(hub.base, codes[0], tls_fingerprint=shown)).tls_fingerprint == shown
            # Trusted through its authority (as a certificate from a real CA would be): no pin needed.
            monkeypatch.setenv("SSL_CERT_FILE", str(ca_cert))
            credential = await pair(hub.base, codes[1], name="ca-verified")
            assert credential.tls_fingerprint is None
            agent = AgentClient(credential, runtime="test")
            await agent.start(timeout_s=15)
            await agent.close()
    finally:
        hub.stop()


def test_half_a_certificate_is_refused_at_start(tmp_path: Path) -> None:
    cert, _, _, _ = make_certificate(tmp_path, "lonely")
    result = subprocess.run([sys.executable, "-m", "hub", "serve", "--host", "127.0.0.1", "--port", str(free_port()),
                             "--data-dir", str(tmp_path / "data"), "--no-mdns", "--tls-cert", str(cert)],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode != 0 and "--tls-key" in result.stderr


# ---- the pin guards the connection that carries the secret --------------------------------------------------

class PinStripper:
    """A man in the middle: the first connection goes through to the hub untouched (so a separate pin check on
    it succeeds); every later one is answered with the attacker's own certificate, recording what it is sent."""

    def __init__(self, hub_port: int, cert: Path, key: Path) -> None:
        self.hub_port = hub_port
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.connections = 0
        self.captured: list[bytes] = []
        self.port = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> PinStripper:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        number, self.connections = self.connections, self.connections + 1
        try:
            if number == 0:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.hub_port)

                async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
                    with contextlib.suppress(ConnectionError):
                        while data := await src.read(65536):
                            dst.write(data)
                            await dst.drain()
                    dst.close()

                await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
                return
            await writer.start_tls(self.context)
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            length = int(next((line.split(b":")[1] for line in request.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), b"0"))
            request += await reader.readexactly(length)
            self.captured.append(request)
            body = json.dumps({"agentId": "agt_fake", "workspaceId": "ws_fake", "credential": "lu_agt_fake"}).encode()
            writer.write(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
            await writer.drain()
        except (TimeoutError, ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def test_the_pin_is_checked_on_the_connection_that_carries_the_code(tls_hub: ServedHub,
                                                                          tmp_path: Path) -> None:
    shown = tls_hub.wait_banner(FINGERPRINT).group(1)
    cert, key, _, _ = make_certificate(tmp_path, "attacker")
    with owner_api(tls_hub) as api:
        code = api.post("/api/pairing-codes", json={}).json()["code"]
    mitm = await PinStripper(tls_hub.port, cert, key).start()
    try:
        try:
            credential = await pair(f"https://127.0.0.1:{mitm.port}", code, name="through-mitm",
                                    tls_fingerprint=shown)
        except PinMismatch:
            credential = None
        assert mitm.captured == [], "the pairing code went to a server with another certificate"
        assert credential is None or credential.credential != "lu_agt_fake"
    finally:
        await mitm.close()


async def test_pairing_again_with_a_fresh_code_keeps_the_pin(tls_hub: ServedHub, tmp_path: Path) -> None:
    """A revoked agent told to run `… --code NEW-CODE` pairs again without typing the fingerprint again: the stored
    credential's pin is reused for the same hub (walked through by hand, the suggested command failed here)."""
    shown = tls_hub.wait_banner(FINGERPRINT).group(1)
    path = tmp_path / "agent.json"
    with owner_api(tls_hub) as api:
        first = await pair_or_load(tls_hub.base, api.post("/api/pairing-codes", json={}).json()["code"], path,
                                   name="again", tls_fingerprint=shown)
        assert api.post(f"/api/agents/{first.agent_id}/revoke", json={}).status_code in (200, 204)
        again = await pair_or_load(None, api.post("/api/pairing-codes", json={}).json()["code"], path, name="again")
    assert again.agent_id != first.agent_id and again.tls_fingerprint == first.tls_fingerprint
    assert load_credential(path.with_name("agent.json.bak")).agent_id == first.agent_id
