"""DNS rebinding (docs/security.md#names-dns-rebinding): the hub answers only to its own names and to IP addresses. A
page whose name was re-pointed at the hub's address sends that name as Host: plain HTTP gets 421 and the app's WebSocket
handshake is refused, while every way the owner really reaches the hub keeps working. A real `lineup serve` on
loopback."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from tests.security.support import ServedHub

PUBLIC = "hub.example.test"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedHub]:
    data_dir = tmp_path_factory.mktemp("hostcheck") / "hub"
    data_dir.mkdir()
    (data_dir / "lineup.toml").write_text(f'[notify]\npublic_url = "https://{PUBLIC}:8443/"\n')
    hub = ServedHub(data_dir).start()
    yield hub
    hub.stop()


def status(hub: ServedHub, host: str, path: str = "/-/health") -> int:
    return httpx.get(hub.base + path, headers={"Host": host}, timeout=10).status_code


@pytest.mark.parametrize("name", ["evil.example", "EVIL.example.", "127.0.0.1.evil.example", "localhost.evil",
                                  "hub.example.test.evil.example"])
def test_a_foreign_name_gets_421(served: ServedHub, name: str) -> None:
    for path in ("/-/health", "/", "/api/setup"):
        response = httpx.get(served.base + path, headers={"Host": f"{name}:{served.port}"}, timeout=10)
        assert response.status_code == 421, (name, path)
        assert response.json()["error"]["code"] == "forbidden"


def handshake(hub: ServedHub, host: str, origin: str, path: str = "/ws/app") -> str:
    """The status line the hub answers a WebSocket upgrade of `path` with, headers exactly as given."""
    with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as sock:
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        return sock.recv(4096).split(b"\r\n", 1)[0].decode()


def test_the_app_socket_refuses_a_foreign_host(served: ServedHub) -> None:
    """A rebound page sends its own name as Host and a matching Origin, so the Origin check passes; before, the
    handshake got 101 Switching Protocols."""
    rebound = f"evil.example:{served.port}"
    assert handshake(served, rebound, f"http://{rebound}").split(" ")[1] == "403"
    own = f"127.0.0.1:{served.port}"
    assert handshake(served, own, f"http://{own}").split(" ")[1] == "101"  # the hub's own address still opens


def test_the_agent_socket_refuses_a_foreign_host(served: ServedHub) -> None:
    """The same for /ws/agent: a rebound page cannot reach the agent socket under a name that is not the hub's."""
    rebound = f"evil.example:{served.port}"
    assert handshake(served, rebound, f"http://{rebound}", "/ws/agent").split(" ")[1] == "403"
    own = f"127.0.0.1:{served.port}"
    assert handshake(served, own, f"http://{own}", "/ws/agent").split(" ")[1] == "101"


def test_the_hubs_own_names_and_any_address_are_answered(served: ServedHub) -> None:
    machine = socket.gethostname().split(".")[0]
    hosts = [f"127.0.0.1:{served.port}", f"localhost:{served.port}", "localhost", f"[::1]:{served.port}",
             f"127.0.0.2:{served.port}", f"10.233.0.1:{served.port}", f"{machine}.local:{served.port}",
             f"{machine.upper()}:{served.port}", f"{PUBLIC}:8443", PUBLIC]
    assert {host: status(served, host) for host in hosts} == {host: 200 for host in hosts}


def test_two_host_headers_are_refused(served: ServedHub) -> None:
    """Walking through by hand: `Host: 127.0.0.1` then `Host: evil.example` was answered (the first one read)."""
    import socket as sockets

    with sockets.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
        sock.sendall(b"GET /-/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        answer = sock.recv(4096)
    assert answer.split(b" ", 2)[1] in (b"400", b"421"), answer[:200]
