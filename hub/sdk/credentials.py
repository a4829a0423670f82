"""Pairing an agent with a code and keeping its credential in a file only the owner can read."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import http.client
import json
import logging
import os
import ssl
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hub.netaddr import is_loopback_host
from hub.sdk.cleartext import allowed_by_environment, refuse_cleartext
from hub.sdk.errors import AuthError, HubError, SdkError
from hub.sdk.privatefile import write_private_json
from hub.sdk.tlspin import check_peer, client_context, normalise, served_fingerprint

log = logging.getLogger("lineup.sdk")


@dataclass(frozen=True)
class Replacement:
    """What a fresh pairing code did to the agent this credential file held before.

    `kept` True: the same agent paired again (its id, conversations, tasks and questions kept; the earlier
    credential refused from now on). False: a new agent was paired, and `reason` says why the earlier one was not
    taken over (NOT_REPLACED's keys).
    """

    previous_agent_id: str | None
    kept: bool
    reason: str | None = None

    @property
    def explanation(self) -> str:
        return NOT_REPLACED.get(self.reason or "", self.reason or "")


# Why the agent a credential file held was not taken over by pairing again (the hub's `notReplaced`, plus the SDK's
# own `other_address`); docs/sdk.md.
NOT_REPLACED = {
    "unknown": "the hub does not know the stored credential (another hub, or its data was reset)",
    "revoked": "the stored credential's agent was revoked",
    "replaced": "the stored credential had already been replaced by a newer pairing",
    "other_workspace": "the stored credential belongs to another workspace",
    "other_address": "the stored credential is for another hub address, so it was not sent there",
}


@dataclass(frozen=True)
class Credential:
    hub_url: str       # e.g. http://192.168.1.20:9527
    agent_id: str
    workspace_id: str
    credential: str    # the secret: keep it out of logs and URLs
    tls_fingerprint: str | None = None  # pinned SHA-256 of a self-signed hub certificate (https hubs)
    code_sha256: str | None = None      # the pairing code it came from (hashed): the same --code again loads it
    # What pairing did to the agent it replaces (pair_or_load with a stored credential, or pair(replaces=)); never
    # saved in the credential file.
    replaced: Replacement | None = field(default=None, compare=False)
    # Paired over plain http beyond this machine by the person's explicit choice (hub/sdk/cleartext.py): the agent
    # started from this file later keeps that choice.
    insecure: bool = False

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
               agent_version: str = "", timeout_s: float = 10.0, tls_fingerprint: str | None = None,
               replaces: Credential | None = None, allow_insecure: bool | None = None) -> Credential:
    """Redeem a one-time pairing code (from the app or `lineup pair`) for this agent's credential.

    For a hub with a self-signed certificate pass its fingerprint (printed by the hub, shown in the pairing
    command): the SDK then trusts exactly that certificate, now and on every later connection.

    `replaces`: the credential this agent held until now. The hub then keeps the agent (same id, conversations and
    tasks) and rotates its credential; the old one is refused from then on. One it does not accept (revoked, unknown,
    of another workspace) pairs a new agent; `Credential.replaced` says which happened. The old secret travels in
    the request body, as the code does, and only where it was already sent at every connection (pair_or_load).

    The code is a credential too: a plain http:// hub beyond this machine is refused (InsecureHub) unless
    `allow_insecure` (or LINEUP_ALLOW_INSECURE_HUB=1); the credential then remembers that choice.
    """
    base = hub_url.rstrip("/")
    insecure = allowed_by_environment() if allow_insecure is None else allow_insecure
    refuse_cleartext(base, insecure, "the pairing code")
    pin = normalise(tls_fingerprint) if tls_fingerprint else None
    body = {"code": code, "name": name, "runtime": runtime, "agentVersion": agent_version}
    if replaces is not None:
        body["replaces"] = replaces.credential
    answer: dict[str, Any] = await asyncio.to_thread(_post_json, base + "/api/pair", body, timeout_s, pin)
    replaced = None
    if answer.get("replaced") is not None:
        replaced = Replacement(str(answer["replaced"]), kept=True)
    elif replaces is not None or answer.get("notReplaced"):
        replaced = Replacement(replaces.agent_id if replaces is not None else None, kept=False,
                               reason=answer.get("notReplaced"))
    plain = not base.startswith("https://") and not is_loopback_host(urlsplit(base).hostname)
    return Credential(base, answer["agentId"], answer["workspaceId"], answer["credential"], pin, _code_hash(code),
                      replaced, insecure=plain)


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.strip().upper().encode()).hexdigest()


def _stored_form(credential: Credential) -> dict[str, Any]:
    stored = asdict(credential)
    del stored["replaced"]  # what pairing did, not part of the credential
    if not stored["insecure"]:
        del stored["insecure"]  # the file as before: only the explicit choice is written
    return stored


def save_credential(credential: Credential, path: Path | str) -> None:
    """Write the credential readable by the owner only (0600), atomically."""
    write_private_json(Path(path), _stored_form(credential))


def load_credential(path: Path | str) -> Credential:
    data = json.loads(Path(path).read_text())
    return Credential(data["hub_url"], data["agent_id"], data["workspace_id"], data["credential"],
                      data.get("tls_fingerprint"), data.get("code_sha256"), insecure=data.get("insecure") is True)


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


# Names of the hub's own machine: a credential stored for one of them is for the same machine as another.
_LOOPBACK_NAMES = {"localhost", "::1"}


def _machine(host: str) -> str:
    host = host.lower()
    return "loopback" if host in _LOOPBACK_NAMES or host.startswith("127.") else host


def _may_send(stored: Credential, hub_url: str, pin: str | None) -> bool:
    """Whether the stored credential may go to `hub_url` as proof that this is the same agent pairing again.

    Only where it already goes at every connection: the same address (the hub's own machine under any of its
    loopback names), or the same host's TLS listener when it was stored for plain http (a hub that now offers agents
    TLS). Never from TLS to plain http, never to another pinned certificate: a credential must not be handed to a
    different hub, or to whoever sits between.
    """
    old, new = urlsplit(stored.hub_url), urlsplit(hub_url)
    if _machine(old.hostname or "") != _machine(new.hostname or ""):
        return False
    if stored.tls_fingerprint and (new.scheme != "https" or normalise(pin or "") != stored.tls_fingerprint):
        return False
    if old.scheme == new.scheme:
        return old.port == new.port
    return old.scheme == "http" and new.scheme == "https"


async def pair_or_load(hub_url: str | None, code: str | None, path: Path | str, **pair_options: Any) -> Credential:
    """The credential to connect with: a fresh `code` pairs, otherwise the one stored at `path` is loaded.

    A code given that this credential was not paired with is used: the new credential replaces the file and
    the old one is kept beside it (`<file>.bak`), so a stale credential (revoked, or a hub whose data was
    reset) never beats a fresh code. The stored credential goes along as proof that this is the same agent (only to
    the address it was stored for): the hub then keeps the agent, its conversations and tasks, and only rotates its
    credential; one the hub does not accept (revoked, unknown) makes a new agent, and the log says why
    (`Credential.replaced`). The code the stored credential came from (an MCP client's config repeats it at every
    start) loads the stored one instead of spending the code again.

    No `hub_url`, `code` or `tls_fingerprint` given: LINEUP_HUB, LINEUP_CODE and LINEUP_TLS_FINGERPRINT stand in
    (`lineup keep --hub … --code … -- python my_agent.py`, the connect dialog's one line, sets them).
    """
    path = Path(path)
    hub_url = hub_url or os.environ.get("LINEUP_HUB") or None
    code = code or os.environ.get("LINEUP_CODE") or None
    if not pair_options.get("tls_fingerprint") and os.environ.get("LINEUP_TLS_FINGERPRINT"):
        pair_options = {**pair_options, "tls_fingerprint": os.environ["LINEUP_TLS_FINGERPRINT"]}
    stored = load_credential(path) if path.exists() else None
    if code and stored is not None and stored.code_sha256 == _code_hash(code):
        return stored
    if not code:
        if stored is not None:
            return stored
        from hub.cli_invocation import program  # the program this machine runs LineUp as (not always `lineup`)

        raise SdkError(f"No credential at {path}: give a pairing code (from the app or `{program()} pair`) with "
                       "--code.")
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
    replaces = stored if stored is not None and _may_send(stored, hub_url, pair_options.get("tls_fingerprint")) \
        else None
    credential = await pair(hub_url, code, **{**pair_options, "replaces": replaces})
    if stored is not None and replaces is None:
        credential = dataclasses.replace(credential, replaced=Replacement(stored.agent_id, False, "other_address"))
    if stored is not None:
        backup = path.with_name(path.name + ".bak")
        # Copied, not moved: the file is replaced atomically below, so it never goes missing in between (another
        # process starting on it, or a crash, would otherwise find no credential at all).
        write_private_json(backup, _stored_form(stored))
        if credential.replaced is not None and credential.replaced.kept:
            log.info("paired again as the same agent %s: it keeps its conversations and tasks; the previous "
                     "credential no longer works (kept in %s)", credential.agent_id, backup)
        else:
            why = credential.replaced.explanation if credential.replaced is not None else ""
            log.info("paired as a new agent: the previous agent %s was not taken over (%s); it stays in the app "
                     "until you revoke it, and its credential is kept in %s", stored.agent_id, why, backup)
    save_credential(credential, path)
    log.info("paired with %s as agent %s; credential saved in %s", credential.hub_url, credential.agent_id, path)
    return credential
