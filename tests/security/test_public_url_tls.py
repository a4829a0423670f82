"""`public_url` never turns agents' TLS off (security issue, item 8).

A hub listening beyond loopback serves agents a TLS listener and its plain port refuses agents from other machines
(tests/security/test_agent_tls.py). Before, any `[notify] public_url` switched that off: with
`public_url = "http://…"` the pairing command named the plain address and the plain port took the agent's code and
credential in clear from the LAN, while the banner still said "agents: TLS". Now:

- an `http://` public_url weakens nothing: agents keep the TLS listener, the plain port still refuses them, and the
  banner warns that the public_url is plain;
- an `https://` public_url (a TLS proxy) is what agents are sent to, without the hub's own fingerprint (the proxy
  shows its own certificate), and the plain port takes them only when the request came through that proxy: it
  names public_url's host and port, and its peer is the proxy (an address in `trusted_proxies`);
- `agent_tls = "off"` says in the banner and in the pairing answer that agents talk in clear.

The hub and the agent's machine are two network namespaces (tests/security/test_lan_bind.py's `lan`); in the
proxy tests the agent's machine also runs a TLS proxy (asyncio, below) that forwards public_url to the hub's plain
port, and resolves public_url's name to itself through its namespace's own /etc/hosts (`ip netns exec` mounts
/etc/netns/<namespace>/hosts over /etc/hosts).
"""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.security.test_agent_tls import FINGERPRINT, pairing_at_hub, start_hub
from tests.security.test_lan_bind import HUB_ADDRESS, PHONE_ADDRESS, PORT, ROOT, Lan, lan

__all__ = ["lan"]  # the fixture

PUBLIC_NAME, PROXY_PORT = "hub.example.test", 8443
PUBLIC_URL = f"https://{PUBLIC_NAME}:{PROXY_PORT}"
PROGRAM = r"(?:lineup|\S+ -m hub)"

# A TLS proxy as a person would put in front of the hub (Caddy, nginx, a tunnel), run on the agent's machine:
# TLS with its own certificate on 127.0.0.1:LISTEN, each connection's bytes forwarded to the hub's plain port, so
# the hub sees the Host the client sent (public_url's) from the proxy's address.
PROXY = textwrap.dedent("""
    import asyncio, ssl, sys
    cert, key, listen, target, target_port = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])

    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def client(reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_connection(target, target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def main():
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        server = await asyncio.start_server(client, "127.0.0.1", listen, ssl=context)
        print("proxy listening", flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(main())
""")


def configure(data: Path, text: str) -> None:
    data.mkdir(parents=True, mode=0o700)
    (data / "lineup.toml").write_text(text)


def proxy_certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A test CA and the proxy's certificate for PUBLIC_NAME signed by it: (CA, certificate, key). The agent trusts
    the CA (SSL_CERT_FILE) as it would trust a public authority: no fingerprint needed."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "LineUp test proxy CA")])
    usage = dict(content_commitment=False, key_encipherment=False, data_encipherment=False, key_agreement=False,
                 encipher_only=False, decipher_only=False)
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, **usage),
                         critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, PUBLIC_NAME)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(PUBLIC_NAME)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False, **usage),
                           critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = folder / "ca.pem", folder / "proxy.pem", folder / "proxy-key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


@pytest.fixture
def proxied(lan: Lan, tmp_path: Path) -> Iterator[Path]:
    """The agent's machine runs the TLS proxy for PUBLIC_URL and resolves PUBLIC_NAME to it; yields the CA file."""
    hosts = Path("/etc/netns") / lan.phone_ns
    hosts.mkdir(parents=True)
    try:
        (hosts / "hosts").write_text(f"127.0.0.1 localhost\n127.0.0.1 {PUBLIC_NAME}\n")
        ca, cert, key = proxy_certificate(tmp_path)
        out = tmp_path / "proxy.txt"
        with open(out, "w") as log:
            proxy = subprocess.Popen(["ip", "netns", "exec", lan.phone_ns, sys.executable, "-c", PROXY, str(cert),
                                      str(key), str(PROXY_PORT), HUB_ADDRESS, str(PORT)],
                                     stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        lan.processes.append(proxy)
        deadline = time.monotonic() + 20
        while "proxy listening" not in out.read_text():
            assert proxy.poll() is None and time.monotonic() < deadline, out.read_text()
            time.sleep(0.05)
        yield ca
    finally:
        shutil.rmtree(hosts, ignore_errors=True)


def run_agent(lan: Lan, folder: Path, hub_url: str, code: str, *extra: str,
              env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The demo agent on the agent's machine, as the pairing command runs it; its output in folder/agent.log."""
    with open(folder / "agent.log", "w") as log:
        agent = subprocess.Popen(
            ["ip", "netns", "exec", lan.phone_ns, "env", *[f"{k}={v}" for k, v in (env or {}).items()],
             sys.executable, "-m", "hub", "demo-agent", "--hub", hub_url, "--code", code, *extra,
             "--credential-file", str(folder / "agent.json")],
            stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    lan.processes.append(agent)
    return agent


def wait_online(lan: Lan, token: str, folder: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        agents = lan.at_hub([("GET", "/api/agents", None, token)])[0][1]["agents"]
        if any(a["status"] == "online" for a in agents):
            return
        assert time.monotonic() < deadline, (agents, (folder / "agent.log").read_text())
        time.sleep(0.2)


def refused_for_plain(lan: Lan, folder: Path, hub_url: str, code: str, env: dict[str, str] | None = None) -> str:
    """Run the demo agent, which must give up: what it said. The code must not have been spent. (The SDK sends no
    code to a plain http:// address on another machine unless told to, hub/sdk/cleartext.py: told to here, so that
    it is the hub's own refusal that is tested.)"""
    agent = run_agent(lan, folder, hub_url, code, env={"LINEUP_ALLOW_INSECURE_HUB": "1", **(env or {})})
    assert agent.wait(30) != 0
    said = (folder / "agent.log").read_text()
    assert "over TLS only" in said, said
    assert not (folder / "agent.json").exists()  # not paired: nothing was redeemed in clear
    return said


def test_an_http_public_url_leaves_agents_on_tls(lan: Lan, tmp_path: Path) -> None:
    plain = f"http://{HUB_ADDRESS}:{PORT}"
    data = tmp_path / "data"
    configure(data, f'[notify]\npublic_url = "{plain}"\n')
    banner = start_hub(lan, data)
    # The banner says agents are on TLS, and that the plain public_url is not used for them.
    assert f"agents: TLS on port {PORT + 1}" in banner, banner
    warning = next((line for line in banner.splitlines() if f"public_url {plain}" in line), "")
    assert "warning" in warning and "plain http" in warning and "https://" in warning, banner

    token, pairing = pairing_at_hub(lan)
    match = re.fullmatch(PROGRAM + r" demo-agent --hub (\S+) --code (\S+) --fingerprint (\S+)",
                         str(pairing["command"]))
    assert match is not None and match.group(1) == f"https://{HUB_ADDRESS}:{PORT + 1}", pairing["command"]
    assert FINGERPRINT.fullmatch(match.group(3)) and pairing["agentTransport"] == "tls", pairing

    # An agent given the public_url as it stands (plain) is refused at the plain port, told the TLS address.
    said = refused_for_plain(lan, tmp_path, plain, match.group(2))
    assert f"https://{HUB_ADDRESS}:{PORT + 1}" in said, said
    # With the command the app shows it pairs and comes online over TLS.
    run_agent(lan, tmp_path, match.group(1), match.group(2), "--fingerprint", match.group(3))
    wait_online(lan, token, tmp_path)


def test_an_https_public_url_takes_agents_through_its_proxy_only(lan: Lan, tmp_path: Path, proxied: Path) -> None:
    data = tmp_path / "data"
    configure(data, f'trusted_proxies = "{PHONE_ADDRESS}"\n[notify]\npublic_url = "{PUBLIC_URL}"\n')
    banner = start_hub(lan, data)
    assert f"agents: TLS on port {PORT + 1}" in banner, banner
    assert f"agents through public_url {PUBLIC_URL}" in banner, banner

    token, pairing = pairing_at_hub(lan)
    # The proxy's address, and no --fingerprint: the proxy shows its own certificate, not the hub's.
    match = re.fullmatch(PROGRAM + r" demo-agent --hub (\S+) --code (\S+)", str(pairing["command"]))
    assert match is not None and match.group(1) == PUBLIC_URL, pairing["command"]
    assert pairing["fingerprint"] is None and pairing["agentTransport"] == "tls", pairing

    # The same machine straight at the plain port (not through public_url) is refused, the code not spent.
    refused_for_plain(lan, tmp_path, f"http://{HUB_ADDRESS}:{PORT}", match.group(2))
    # Through the proxy, as the command says, the agent pairs and comes online.
    run_agent(lan, tmp_path, match.group(1), match.group(2), env={"SSL_CERT_FILE": str(proxied)})
    wait_online(lan, token, tmp_path)


def test_a_proxy_not_listed_in_trusted_proxies_is_refused(lan: Lan, tmp_path: Path, proxied: Path) -> None:
    """Requests naming public_url from another machine could be anything there: the proxy's machine must be named."""
    data = tmp_path / "data"
    configure(data, f'[notify]\npublic_url = "{PUBLIC_URL}"\n')
    start_hub(lan, data)
    _, pairing = pairing_at_hub(lan)
    said = refused_for_plain(lan, tmp_path, PUBLIC_URL, str(pairing["code"]), env={"SSL_CERT_FILE": str(proxied)})
    assert "trusted_proxies" in said and PHONE_ADDRESS in said, said


def test_plain_agents_are_said_to_be_plain(lan: Lan, tmp_path: Path) -> None:
    banner = start_hub(lan, tmp_path / "data", {"LINEUP_AGENT_TLS": "off"})
    warning = next((line for line in banner.splitlines() if line.strip().startswith("warning: agents")), "")
    assert "plain ws://" in warning and "in clear" in warning, banner
    _, pairing = pairing_at_hub(lan)
    assert pairing["agentTransport"] == "plain" and pairing["fingerprint"] is None, pairing

