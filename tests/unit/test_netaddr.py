"""Which of the hub's addresses another device can use: never loopback, the default route's first."""

from __future__ import annotations

from hub.netaddr import device_urls, is_loopback_host, lan_addresses, urls_for


def test_loopback_names_and_addresses() -> None:
    host: str | None
    for host in ("127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST.", "app.localhost"):
        assert is_loopback_host(host), host
    for host in ("192.168.1.20", "10.0.0.1", "fd00::2", "hub.example", "mypc.local", "", None):
        assert not is_loopback_host(host), host


def test_a_hub_on_loopback_only_has_no_address_for_other_devices() -> None:
    assert device_urls("127.0.0.1", 9527) == []
    assert device_urls("::1", 9527) == []
    assert device_urls("localhost", 9527) == []
    assert urls_for("127.0.0.1", 9527) == ["http://127.0.0.1:9527/"]  # still printed, for this machine


def test_a_hub_bound_to_an_address_or_everywhere() -> None:
    assert device_urls("192.168.1.20", 9527, "https") == ["https://192.168.1.20:9527"]
    assert device_urls("fd00::2", 9527) == ["http://[fd00::2]:9527"]
    everywhere = device_urls("0.0.0.0", 9527)
    assert everywhere == [f"http://{ip}:9527" for ip in lan_addresses()]  # this machine's interfaces, no loopback
    assert not any("127.0.0.1" in url for url in everywhere)
    assert all(not address.startswith(("127.", "169.254.")) for address in lan_addresses())
