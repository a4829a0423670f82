"""The hub's own certificate authority, limited by name constraints to the hub's names, and the leaf it signs."""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

CA_DAYS = 3650
# Apple refuses a TLS leaf valid for more than 825 days even under a root the person added; 397 is what public
# CAs may issue, well inside every platform's limit.
LEAF_DAYS = 397
RENEW_BEFORE = datetime.timedelta(days=30)
# Networks the hub always answers on: its own machine.
LOOPBACK: tuple[IpNetwork, ...] = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


@dataclass(frozen=True)
class Names:
    """What the hub is called: DNS names (localhost, its `.local` names) and IP addresses."""

    dns: tuple[str, ...]
    ips: tuple[str, ...]


def _write_private(path: Path, data: bytes) -> None:
    """Owner-only from the first byte (never a wider file later narrowed)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(path, 0o600)  # a file that existed wider is narrowed too


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class HubCA:
    """The CA and leaf files in one owner-only folder: `ca.pem` (public), `ca-key.pem` (0600, never served),
    `leaf.pem` (leaf then CA) and `leaf-key.pem` (0600)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ca_path = folder / "ca.pem"
        self.ca_key_path = folder / "ca-key.pem"
        self.leaf_path = folder / "leaf.pem"
        self.leaf_key_path = folder / "leaf-key.pem"

    def ensure_ca(self, label: str, dns: list[str], networks: list[IpNetwork]) -> x509.Certificate:
        """The CA, made on first use with these permitted subtrees (loopback always added); kept as it is after
        that, so a phone that trusted it keeps trusting the hub. Remade only when missing or expired."""
        existing = self.ca()
        if existing is not None and existing.not_valid_after_utc - _now() > RENEW_BEFORE \
                and self.ca_key_path.exists():
            return existing
        self.folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.folder.mkdir(exist_ok=True, mode=0o700)
        os.chmod(self.folder, 0o700)
        key = ec.generate_private_key(ec.SECP256R1())
        permitted: list[x509.GeneralName] = [x509.DNSName(name) for name in dict.fromkeys(["localhost", *dns])]
        permitted += [x509.IPAddress(network) for network in dict.fromkeys([*LOOPBACK, *networks])]
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "LineUp Agents"),
                             x509.NameAttribute(NameOID.COMMON_NAME, f"LineUp hub CA ({label})"[:64])])
        now = _now()
        ca = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
              .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
              .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
              .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
              .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                           data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                           crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
              # RFC 5280 4.2.1.10: conforming CAs mark name constraints critical; a client that cannot apply them
              # must then refuse the certificate rather than trust it for every name.
              .add_extension(x509.NameConstraints(permitted_subtrees=permitted, excluded_subtrees=None),
                             critical=True)
              .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
              .sign(key, hashes.SHA256()))
        _write_private(self.ca_key_path, _key_pem(key))
        self.ca_path.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
        self.leaf_path.unlink(missing_ok=True)  # signed by the old CA: made again
        return ca

    def ca(self) -> x509.Certificate | None:
        try:
            return x509.load_pem_x509_certificate(self.ca_path.read_bytes())
        except (OSError, ValueError):
            return None

    def ca_der(self) -> bytes:
        ca = self.ca()
        if ca is None:
            raise FileNotFoundError(self.ca_path)
        return ca.public_bytes(serialization.Encoding.DER)

    def leaf(self) -> x509.Certificate | None:
        try:
            return x509.load_pem_x509_certificates(self.leaf_path.read_bytes())[0]
        except (OSError, ValueError, IndexError):
            return None

    def ensure_leaf(self, names: Names) -> bool:
        """A leaf for the names the CA may sign (others are left out: they would fail every check); made again
        when the names changed, it nears its end, or the CA is new. True when a new leaf was written."""
        ca = self.ca()
        if ca is None:
            raise FileNotFoundError(self.ca_path)
        wanted = covered(ca, names)
        leaf = self.leaf()
        if leaf is not None and self.leaf_key_path.exists() and same(leaf_names(leaf), wanted) \
                and leaf.issuer == ca.subject and leaf.not_valid_after_utc - _now() > RENEW_BEFORE:
            return False
        ca_key = serialization.load_pem_private_key(self.ca_key_path.read_bytes(), password=None)
        assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
        key = ec.generate_private_key(ec.SECP256R1())
        write_leaf(self, sign_leaf(ca, ca_key, key, wanted), key)
        return True


def write_leaf(store: HubCA, leaf: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
    """The key first, then the chain the server sends (leaf, then the CA, for clients that want the whole chain)."""
    ca = store.ca()
    assert ca is not None
    _write_private(store.leaf_key_path, _key_pem(key))
    chain = leaf.public_bytes(serialization.Encoding.PEM) + ca.public_bytes(serialization.Encoding.PEM)
    store.leaf_path.write_bytes(chain)


def sign_leaf(ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey, key: ec.EllipticCurvePrivateKey,
              names: Names) -> x509.Certificate:
    """A server certificate for `names`, signed by the CA (it does not check the names: the constraints do)."""
    sans: list[x509.GeneralName] = [x509.DNSName(name) for name in names.dns]
    sans += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in names.ips]
    now = _now()
    return (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "LineUp hub")]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=LEAF_DAYS))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key()), critical=False)  # type: ignore[arg-type]
            .sign(ca_key, hashes.SHA256()))


def permitted(ca: x509.Certificate) -> tuple[set[str], list[IpNetwork]]:
    """The DNS names and IP networks the CA may sign for (its name constraints)."""
    constraints = ca.extensions.get_extension_for_class(x509.NameConstraints).value
    subtrees = constraints.permitted_subtrees or []
    dns = {str(entry.value).lower() for entry in subtrees if isinstance(entry, x509.DNSName)}
    networks = [entry.value for entry in subtrees
                if isinstance(entry, x509.IPAddress) and isinstance(entry.value, IpNetwork)]
    return dns, networks


def covered(ca: x509.Certificate, names: Names) -> Names:
    """`names` less those outside the CA's constraints (a DNS constraint also permits names below it)."""
    dns, networks = permitted(ca)
    kept_dns = [name.lower() for name in names.dns
                if any(name.lower() == root or name.lower().endswith("." + root) for root in dns)]
    kept_ips = [ip for ip in names.ips if any(ipaddress.ip_address(ip) in network for network in networks)]
    return Names(tuple(dict.fromkeys(kept_dns)), tuple(dict.fromkeys(kept_ips)))


def same(one: Names, other: Names) -> bool:
    return set(one.dns) == set(other.dns) and {ipaddress.ip_address(ip) for ip in one.ips} == \
        {ipaddress.ip_address(ip) for ip in other.ips}


def leaf_names(leaf: x509.Certificate) -> Names:
    sans = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return Names(tuple(str(name).lower() for name in sans.get_values_for_type(x509.DNSName)),
                 tuple(str(ip) for ip in sans.get_values_for_type(x509.IPAddress)))
