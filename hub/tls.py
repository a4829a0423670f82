"""TLS for the hub: a certificate the person gives (--tls-cert/--tls-key), or a self-signed one made once.

A self-signed certificate cannot be checked against an authority, so clients pin it instead: the hub prints
its SHA-256 fingerprint, serves it in `/.well-known/lineup`, puts it in the pairing command, and the SDK refuses
a server whose certificate does not match (hub/sdk/credentials.py).
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
import socket
import ssl
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(folder: Path, addresses: list[str]) -> tuple[Path, Path]:
    """The certificate and key in `folder` (made on first use, key readable by the owner only)."""
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    if cert_path.exists() and key_path.exists():
        return cert_path, key_path
    # The data folder may not exist yet: it and the key's folder are the owner's alone, as in Hub.start.
    folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.mkdir(exist_ok=True, mode=0o700)
    key = ec.generate_private_key(ec.SECP256R1())
    hostname = socket.gethostname().split(".")[0] or "lineup"
    names: list[x509.GeneralName] = [x509.DNSName("localhost"), x509.DNSName(f"{hostname}.local"),
                                     x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    for address in addresses:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(address)))
        except ValueError:
            names.append(x509.DNSName(address))
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"LineUp hub on {hostname}")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=3650))
                   .add_extension(x509.SubjectAlternativeName(names), critical=False)
                   .sign(key, hashes.SHA256()))
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def fingerprint(cert_path: Path) -> str:
    """SHA-256 of the certificate (DER), as colon-separated hex, the way browsers show it."""
    der = ssl.PEM_cert_to_DER_cert(cert_path.read_text())
    return fingerprint_der(der)


def fingerprint_der(der: bytes) -> str:
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
