"""Pairing an agent with a code and keeping its credential in a file only the owner can read."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from hub.sdk.errors import AuthError, HubError, SdkError


@dataclass(frozen=True)
class Credential:
    hub_url: str       # e.g. http://192.168.1.20:9527
    agent_id: str
    workspace_id: str
    credential: str    # the secret: keep it out of logs and URLs

    def __repr__(self) -> str:  # never print the secret by accident
        return f"Credential(hub_url={self.hub_url!r}, agent_id={self.agent_id!r}, workspace_id={self.workspace_id!r})"

    @property
    def ws_url(self) -> str:
        base = self.hub_url.rstrip("/")
        scheme = "wss" if base.startswith("https://") else "ws"
        return f"{scheme}://{base.split('://', 1)[1]}/ws/agent"


def _post_json(url: str, body: dict[str, str], timeout_s: float) -> dict[str, str]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - the hub's own URL
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read())["error"]
        except Exception:
            raise HubError("internal", f"The hub answered HTTP {exc.code}.") from None
        kind = AuthError if error["code"] in ("unauthorized", "expired") else HubError
        raise kind(error["code"], error["message"], error.get("hint", "")) from None
    except (urllib.error.URLError, OSError) as exc:
        raise SdkError(f"Cannot reach the hub at {url}: {exc}. Is it running, and is the address right?") from None


async def pair(hub_url: str, code: str, *, name: str = "agent", runtime: str = "python-sdk",
               agent_version: str = "", timeout_s: float = 10.0) -> Credential:
    """Redeem a one-time pairing code (from the app or `lineup pair`) for this agent's credential."""
    base = hub_url.rstrip("/")
    answer = await asyncio.to_thread(_post_json, base + "/api/pair",
                                     {"code": code, "name": name, "runtime": runtime, "agentVersion": agent_version},
                                     timeout_s)
    return Credential(base, answer["agentId"], answer["workspaceId"], answer["credential"])


def save_credential(credential: Credential, path: Path | str) -> None:
    """Write the credential readable by the owner only (0600), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(asdict(credential), handle)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def load_credential(path: Path | str) -> Credential:
    data = json.loads(Path(path).read_text())
    return Credential(data["hub_url"], data["agent_id"], data["workspace_id"], data["credential"])


async def find_hub(timeout_s: float = 3.0, interfaces: list[str] | None = None) -> str:
    """The address of the one hub on the LAN (mDNS); an error naming them when there are several or none."""
    from hub.discovery.browse import discover

    hubs = await discover(timeout_s, interfaces)
    if len(hubs) == 1:
        return hubs[0].url
    if not hubs:
        raise SdkError("No LineUp hub answered on the local network; pass its address (--hub http://HOST:9527).")
    listing = "; ".join(f"{h.name} at {h.url}" for h in hubs)
    raise SdkError(f"Several hubs answered ({listing}); pass the one you mean with --hub.")


async def pair_or_load(hub_url: str | None, code: str | None, path: Path | str, **pair_options: str) -> Credential:
    """The stored credential if there is one; otherwise pair with `code` and store the result."""
    path = Path(path)
    if path.exists():
        return load_credential(path)
    if not code:
        raise SdkError(f"No credential at {path}: give a pairing code (from the app or `lineup pair`).")
    if not hub_url:
        hub_url = await find_hub()
    credential = await pair(hub_url, code, **pair_options)
    save_credential(credential, path)
    return credential
