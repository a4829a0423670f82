"""The hub's CA as an iPhone configuration profile (`.mobileconfig`): one com.apple.security.root payload."""

from __future__ import annotations

import hashlib
import plistlib
import uuid

NAMESPACE = uuid.UUID("6f1c2d0e-3b52-4a8e-9a57-1d2c4b1e7a90")  # LineUp's own: fixed, so the UUIDs are stable


def mobileconfig(ca_der: bytes, hub_label: str) -> bytes:
    """An unsigned profile holding the CA's DER. Its identifiers derive from the certificate, so downloading it
    again gives the same profile (iOS replaces rather than adds), and a new CA is a new profile."""
    digest = hashlib.sha256(ca_der).hexdigest()
    identifier = f"agents.lineup.hub.{digest[:16]}"
    payload = {
        "PayloadType": "com.apple.security.root",
        "PayloadVersion": 1,
        "PayloadIdentifier": f"{identifier}.ca",
        "PayloadUUID": str(uuid.uuid5(NAMESPACE, f"{digest}:ca")).upper(),
        "PayloadDisplayName": f"LineUp hub CA ({hub_label})",
        "PayloadDescription": "Lets this device check the LineUp hub's https certificate.",
        "PayloadCertificateFileName": "lineup-hub-ca.cer",
        "PayloadContent": ca_der,
    }
    profile = {
        "PayloadType": "Configuration",
        "PayloadVersion": 1,
        "PayloadIdentifier": identifier,
        "PayloadUUID": str(uuid.uuid5(NAMESPACE, digest)).upper(),
        "PayloadDisplayName": f"LineUp hub ({hub_label})",
        "PayloadDescription": ("Trusts the certificate authority of your LineUp hub, limited to the hub's own "
                               "names and home-network addresses, so the app opens over https."),
        "PayloadOrganization": "LineUp Agents",
        "PayloadRemovalDisallowed": False,
        "PayloadContent": [payload],
    }
    return plistlib.dumps(profile, fmt=plistlib.FMT_XML)
