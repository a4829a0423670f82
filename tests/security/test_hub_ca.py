"""docs/security.md, "The hub's own certificate authority": a CA limited by name constraints to the hub's names.

The CA and its leaf are checked the way a phone's browser checks them, with OpenSSL through Python's ssl: a TLS
server on loopback presents the leaf, a client that trusts only the CA connects under each name. OpenSSL enforces
name constraints, so a certificate the same CA key signs for a name outside them (example.com, a public address)
is refused: what a stolen key could not be used for.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from hub.ca.authority import HubCA, Names, leaf_names, sign_leaf

LOCAL = "studio-lineup-0123abcd.local"
LAN = ipaddress.ip_network("192.168.77.0/24")


def make_ca(folder: Path) -> HubCA:
    store = HubCA(folder)
    store.ensure_ca("studio", [LOCAL], [LAN])
    return store


def names(*ips: str) -> Names:
    return Names(("localhost", LOCAL), ("127.0.0.1", "::1", *ips))


@contextlib.contextmanager
def tls_server(cert_chain: Path, key: Path) -> Iterator[int]:
    """A TLS server on 127.0.0.1 presenting `cert_chain`: it completes handshakes and closes."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_chain, key)
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
                tls.recv(1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def connect(port: int, ca: Path, server_name: str) -> None:
    """A TLS handshake to 127.0.0.1:port as a client that trusts only `ca` and asks for `server_name`."""
    context = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            context.wrap_socket(raw, server_hostname=server_name):
        pass


def test_the_ca_is_limited_by_critical_name_constraints_to_the_hubs_names(tmp_path: Path) -> None:
    store = make_ca(tmp_path / "ca")
    ca = store.ca()
    assert ca is not None
    basic = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and basic.value.ca and basic.value.path_length == 0
    usage = ca.extensions.get_extension_for_class(x509.KeyUsage)
    assert usage.critical and usage.value.key_cert_sign and not usage.value.digital_signature
    constraints = ca.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraints.critical
    permitted = set(constraints.value.permitted_subtrees or [])
    assert permitted == {x509.DNSName("localhost"), x509.DNSName(LOCAL), x509.IPAddress(LAN),
                         x509.IPAddress(ipaddress.ip_network("127.0.0.0/8")),
                         x509.IPAddress(ipaddress.ip_network("::1/128"))}
    assert constraints.value.excluded_subtrees is None


def test_the_leaf_verifies_for_the_hubs_names_and_a_leaf_outside_the_constraints_does_not(tmp_path: Path) -> None:
    store = make_ca(tmp_path / "ca")
    assert store.ensure_leaf(names("192.168.77.10"))
    leaf = store.leaf()
    assert leaf is not None
    assert leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == x509.ExtendedKeyUsage(
        [x509.oid.ExtendedKeyUsageOID.SERVER_AUTH])
    assert (leaf.not_valid_after_utc - leaf.not_valid_before_utc).days <= 398  # Apple: at most 825 days
    with tls_server(store.leaf_path, store.leaf_key_path) as port:
        for name in ("localhost", LOCAL, "127.0.0.1", "192.168.77.10"):
            connect(port, store.ca_path, name)
        with pytest.raises(ssl.SSLCertVerificationError, match="mismatch|match"):
            connect(port, store.ca_path, "192.168.77.11")  # in the CA's network, not in this leaf

    # The same CA key signs for names outside its constraints: OpenSSL refuses the result.
    ca = store.ca()
    ca_key = serialization.load_pem_private_key(store.ca_key_path.read_bytes(), password=None)
    assert ca is not None and isinstance(ca_key, ec.EllipticCurvePrivateKey)
    for outside, asked in ((Names(("example.com",), ()), "example.com"),
                           (Names(("bank.example.com", "localhost"), ()), "bank.example.com"),
                           (Names((), ("93.184.216.34",)), "93.184.216.34"),
                           (Names((), ("192.168.1.1",)), "192.168.1.1")):  # the router, on another /24
        key = ec.generate_private_key(ec.SECP256R1())
        rogue = sign_leaf(ca, ca_key, key, outside)
        chain, key_path = tmp_path / "rogue.pem", tmp_path / "rogue-key.pem"
        chain.write_bytes(rogue.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        with tls_server(chain, key_path) as port, \
                pytest.raises(ssl.SSLCertVerificationError, match="permitted subtree violation"):
            connect(port, store.ca_path, asked)


def test_a_new_address_gets_a_new_leaf_from_the_same_ca(tmp_path: Path) -> None:
    store = make_ca(tmp_path / "ca")
    ca_before = store.ca_path.read_bytes()
    assert store.ensure_leaf(names("192.168.77.10"))
    first = store.leaf()
    assert not store.ensure_leaf(names("192.168.77.10"))  # nothing changed: the same leaf
    assert not store.ensure_leaf(Names((LOCAL, "localhost"), ("::1", "192.168.77.10", "127.0.0.1")))  # any order
    assert store.ensure_leaf(names("192.168.77.23"))  # DHCP gave the hub a new address
    second = store.leaf()
    assert first is not None and second is not None and second.serial_number != first.serial_number
    assert "192.168.77.23" in leaf_names(second).ips and "192.168.77.10" not in leaf_names(second).ips
    assert store.ca_path.read_bytes() == ca_before  # the phones' trust still holds
    store.ensure_ca("studio", [LOCAL], [LAN])  # the next start keeps the CA as it is
    assert store.ca_path.read_bytes() == ca_before
    # An address outside the CA's networks (another Wi-Fi) is left out of the leaf: its .local name still works.
    assert store.ensure_leaf(names("10.9.9.9"))
    third = store.leaf()
    assert third is not None and "10.9.9.9" not in leaf_names(third).ips and LOCAL in leaf_names(third).dns
    assert store.ca_path.read_bytes() == ca_before
    with tls_server(store.leaf_path, store.leaf_key_path) as port:
        connect(port, store.ca_path, LOCAL)


def test_the_keys_are_the_owners_alone(tmp_path: Path) -> None:
    store = make_ca(tmp_path / "data" / "tls" / "hub-ca")
    store.ensure_leaf(names())
    assert (store.folder.stat().st_mode & 0o777) == 0o700
    assert (store.ca_key_path.stat().st_mode & 0o777) == 0o600
    assert (store.leaf_key_path.stat().st_mode & 0o777) == 0o600
    # A key file left wider (copied in, restored from a backup) is narrowed when it is written again.
    store.leaf_key_path.chmod(0o644)
    store.ensure_leaf(names("192.168.77.5"))
    assert (store.leaf_key_path.stat().st_mode & 0o777) == 0o600
    # The certificates hold no key.
    assert b"PRIVATE KEY" not in store.ca_path.read_bytes() + store.leaf_path.read_bytes()
