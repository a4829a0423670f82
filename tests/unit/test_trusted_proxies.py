"""`trusted_proxies` and which requests "came through public_url" (hub/gateway/admission.py; the real hubs,
proxy and agents are in tests/security/test_public_url_tls.py): the rule's edges, one by one."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hub.gateway.admission import plain_agent_refusal
from hub.settings import SettingsError, load_settings


def test_trusted_proxies_are_addresses_or_networks(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": str(tmp_path)}, {"LINEUP_TRUSTED_PROXIES": "10.0.0.2, 10.1.0.0/16,fd00::1"})
    assert [str(n) for n in settings.trusted_proxy_networks] == ["10.0.0.2/32", "10.1.0.0/16", "fd00::1/128"]
    with pytest.raises(SettingsError, match="'proxy.lan' is not an IP address or network"):
        load_settings({"data_dir": str(tmp_path)}, {"LINEUP_TRUSTED_PROXIES": "10.0.0.2,proxy.lan"})


def hub(public_url: str | None, trusted: str = "10.0.0.2") -> Any:
    settings = load_settings({"trusted_proxies": trusted, "data_dir": "/nonexistent/lineup-test"}, {})
    return SimpleNamespace(agent_tls_port=9528, tls_fingerprint="AA", settings=settings,
                           notifier=SimpleNamespace(config=SimpleNamespace(public_url=public_url)))


def scope(peer: str, *hosts: str) -> dict[str, Any]:
    return {"scheme": "http", "client": (peer, 50000), "server": ("10.0.0.1", 9527),
            "headers": [(b"host", host.encode()) for host in hosts]}


@pytest.mark.parametrize(("public_url", "peer", "hosts", "taken"), [
    ("https://hub.example.test", "10.0.0.2", ["hub.example.test"], True),
    ("https://hub.example.test", "10.0.0.2", ["HUB.example.test.:443"], True),
    ("https://hub.example.test", "::ffff:10.0.0.2", ["hub.example.test"], True),   # dual-stack socket
    ("https://hub.example.test:8443", "10.0.0.2", ["hub.example.test:8443"], True),
    ("https://hub.example.test:8443", "10.0.0.2", ["hub.example.test:9527"], False),  # straight at the plain port
    ("https://hub.example.test", "10.0.0.2", ["10.0.0.1:9527"], False),              # not through public_url
    ("https://hub.example.test", "10.0.0.3", ["hub.example.test"], False),           # not the trusted proxy
    ("https://hub.example.test", "10.0.0.2", ["hub.example.test", "hub.example.test"], False),  # two Hosts
    ("https://hub.example.test", "10.0.0.2", [], False),
    ("http://hub.example.test", "10.0.0.2", ["hub.example.test"], False),            # http exempts nothing
    (None, "10.0.0.2", ["hub.example.test"], False),
    ("http://hub.example.test", "127.0.0.1", ["hub.example.test"], True),            # this machine
])
def test_which_requests_the_plain_port_takes(public_url: str | None, peer: str, hosts: list[str], taken: bool) -> None:
    refusal = plain_agent_refusal(hub(public_url), scope(peer, *hosts))
    assert (refusal is None) == taken, refusal
    if refusal is not None:
        assert refusal.code == "forbidden" and "--hub https://10.0.0.1:9528 --fingerprint AA" in (refusal.hint or "")


def test_a_trusted_proxy_that_drops_the_host_is_told_so() -> None:
    """nginx's default Host is the upstream's (the hub's address): the refusal names the setting to change."""
    refusal = plain_agent_refusal(hub("https://hub.example.test"), scope("10.0.0.2", "10.0.0.1:9527"))
    assert refusal is not None and "does not name public_url https://hub.example.test" in refusal.message
    assert "proxy_set_header Host $http_host" in (refusal.hint or "")
