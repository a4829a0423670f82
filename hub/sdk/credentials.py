"""Pairing an agent with a code and keeping its credential in a file only the owner can read."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import logging
import ssl
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hub.sdk.errors import AuthError, HubError, SdkError
from hub.sdk.privatefile import write_private_json
from hub.sdk.tlspin import check_peer, client_context, normalise, served_fingerprint

log = logging.getLogger("lineup.sdk")


@dataclass(frozen=True)
class Credential:
    hub_url: str       # e.g. http://192.168.1.20:9527
    agent_id: str
    workspace_id: str
    credential: str    # the secret: keep it out of logs and URLs
    tls_fingerprint: str | None = None  # pinned SHA-256 of a self-signed hub certificate (https hubs)
    code_sha256: str | None = None      # the pairing code it came from (hashed): the same --code again loads it

    def __repr__(self) -> str:  # never print the secret by accident
        return f"Credential(hub_url={self.hub_url!r}, agent_id={self.agent_id!r}, workspace_id={self.workspace_id!r})"

    @property
    def ws_url(self) -> str:
        base = self.hub_url.rstrip("/")
        scheme = "wss" if base.startswith("https://") else "ws"
        return f"{scheme}://{base.split('://', 1)[1]}/ws/agent"


def _post_json(url: str, body: dict[str, str], timeout_s: float, fingerprint: str | None = None) -> dict[str, str]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",  # noqa: S310 - the hub's URL
                                     headers={"Content-Type": "application/json"})
    context = client_context(fingerprint) if url.startswith("https://") else None
    try:
        if fingerprint is not None and url.startswith("https://"):
            # The pin is checked on the connection that carries the request, before anything is sent on it (a
            # separate check could be passed through to the hub while this connection goes elsewhere).
            opened = urllib.request.build_opener(_PinnedHTTPS(fingerprint)).open(request, timeout=timeout_s)
        else:
            opened = urllib.request.urlopen(request, timeout=timeout_s, context=context)  # noqa: S310
        with opened as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read())["error"]
        except Exception:  # noqa: BLE001 - whatever the body is (not JSON, no error), the status says enough
            raise HubError("internal", f"The hub answered HTTP {exc.code}.") from None
        kind = AuthError if error["code"] in ("unauthorized", "expired", "forbidden") else HubError
        raise kind.from_payload(error) from None
    except SdkError:
        raise
    except (urllib.error.URLError, OSError) as exc:
        if isinstance(getattr(exc, "reason", exc), ssl.SSLCertVerificationError):
            raise SdkError(f"The hub at {url} has a certificate no authority vouches for (a self-signed one). "
                           "Pass its fingerprint (the hub prints it; the app's pairing command includes it).") from None
        raise SdkError(f"Cannot reach the hub at {url}: {exc}. Is it running, and is the address right?") from None


class _PinnedHTTPS(urllib.request.HTTPSHandler):
    """HTTPS whose connections refuse, right after the TLS handshake, a certificate other than the pinned one."""

    def __init__(self, fingerprint: str) -> None:
        super().__init__(context=client_context(fingerprint))
        self.fingerprint = fingerprint

    def https_open(self, req: urllib.request.Request) -> Any:
        fingerprint = self.fingerprint

        class Pinned(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                check_peer(self.sock, fingerprint)

        # typeshed declares neither do_open (AbstractHTTPHandler's) nor _context on HTTPSHandler.
        return self.do_open(Pinned, req, context=self._context)  # type: ignore[attr-defined]


async def pair(hub_url: str, code: str, *, name: str = "agent", runtime: str = "python-sdk",
               agent_version: str = "", timeout_s: float = 10.0, tls_fingerprint: str | None = None) -> Credential:
    """Redeem a one-time pairing code (from the app or `lineup pair`) for this agent's credential.

    For a hub with a self-signed certificate pass its fingerprint (printed by the hub, shown in the pairing
    command): the SDK then trusts exactly that certificate, now and on every later connection.
    """
    base = hub_url.rstrip("/")
    pin = normalise(tls_fingerprint) if tls_fingerprint else None
    answer = await asyncio.to_thread(_post_json, base + "/api/pair",
                                     {"code": code, "name": name, "runtime": runtime, "agentVersion": agent_version},
                                     timeout_s, pin)
    return Credential(base, answer["agentId"], answer["workspaceId"], answer["credential"], pin, _code_hash(code))


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.strip().upper().encode()).hexdigest()


def save_credential(credential: Credential, path: Path | str) -> None:
    """Write the credential readable by the owner only (0600), atomically."""
    write_private_json(Path(path), asdict(credential))


def load_credential(path: Path | str) -> Credential:
    data = json.loads(Path(path).read_text())
    return Credential(data["hub_url"], data["agent_id"], data["workspace_id"], data["credential"],
                      data.get("tls_fingerprint"), data.get("code_sha256"))


async def find_hub(timeout_s: float = 3.0, interfaces: list[str] | None = None) -> str:
    """The address of the one hub on the LAN (mDNS); an error naming them when there are several or none."""
    from hub.discovery.browse import discover

    hubs = await discover(timeout_s, interfaces)
    if len(hubs) == 1:
        return hubs[0].agent_url
    if not hubs:
        raise SdkError("No LineUp hub answered on the local network; pass its address (--hub http://HOST:9527).")
    listing = "; ".join(f"{h.name} at {h.url}" for h in hubs)
    raise SdkError(f"Several hubs answered ({listing}); pass the one you mean with --hub.")


async def pair_or_load(hub_url: str | None, code: str | None, path: Path | str, **pair_options: Any) -> Credential:
    """The credential to connect with: a fresh `code` pairs, otherwise the one stored at `path` is loaded.

    A code given that this credential was not paired with is used: the new credential replaces the file and
    the old one is kept beside it (`<file>.bak`), so a stale credential (revoked, or a hub whose data was
    reset) never beats a fresh code. The code the stored credential came from (an MCP client's config repeats
    it at every start) loads the stored one instead of spending the code again.
    """
    path = Path(path)
    stored = load_credential(path) if path.exists() else None
    if code and stored is not None and stored.code_sha256 == _code_hash(code):
        return stored
    if not code:
        if stored is not None:
            return stored
        raise SdkError(f"No credential at {path}: give a pairing code (from the app or `lineup pair`) with --code.")
    if not hub_url:
        hub_url = stored.hub_url if stored is not None else await find_hub()
        if hub_url.startswith("https://") and not pair_options.get("tls_fingerprint") and stored is None:
            # Found on the LAN at its TLS listener for agents, with no fingerprint given: trust the certificate
            # it shows now and pin it from here on (trust on first use: the code then travels encrypted, and a
            # later impostor is refused; the first contact is as trusted as the LAN, as plain http was).
            pair_options = {**pair_options, "tls_fingerprint": await asyncio.to_thread(served_fingerprint, hub_url)}
    if stored is not None and stored.tls_fingerprint and not pair_options.get("tls_fingerprint") \
            and stored.hub_url.rstrip("/") == hub_url.rstrip("/"):
        # The same TLS hub as before: its certificate was pinned when first paired, so pairing again (a revoked
        # credential, a fresh code) needs no --fingerprint typed again.
        pair_options = {**pair_options, "tls_fingerprint": stored.tls_fingerprint}
    credential = await pair(hub_url, code, **pair_options)
    if stored is not None:
        backup = path.with_name(path.name + ".bak")
        # Copied, not moved: the file is replaced atomically below, so it never goes missing in between (another
        # process starting on it, or a crash, would otherwise find no credential at all).
        write_private_json(backup, asdict(stored))
        log.info("paired again with a new code: the previous credential (agent %s) is kept in %s",
                 stored.agent_id, backup)
    save_credential(credential, path)
    log.info("paired with %s as agent %s; credential saved in %s", credential.hub_url, credential.agent_id, path)
    return credential
