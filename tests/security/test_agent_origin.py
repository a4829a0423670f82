"""`/ws/agent` refuses a browser page of another origin (security issue, item 11a), as `/ws/app` does.

Agents (the Python SDK, `lineup mcp`, the hooks, Node programs) send no Origin header, or the hub's own; a browser
always sends the page's. Before, /ws/agent accepted any Origin, so a page the person visits could open the agent
socket of a hub on their machine and try credentials there (or keep sockets open) from the person's browser. Now
a handshake with a foreign Origin is refused before it is accepted: the browser sees HTTP 403. A real
`lineup serve` on loopback; the real SDK agent still pairs and comes online (tests/e2e/test_agent_origin.py has a
real page of another origin try it in Chromium).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.security.support import ROOT, ServedHub


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedHub]:
    hub = ServedHub(tmp_path_factory.mktemp("origin") / "hub").start()
    yield hub
    hub.stop()


def handshake(hub: ServedHub, origin: str | None, path: str = "/ws/agent") -> str:
    """The status code the hub answers a WebSocket upgrade of `path` with, Origin exactly as given (or none)."""
    with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as sock:
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{hub.port}\r\n"
                      + (f"Origin: {origin}\r\n" if origin is not None else "")
                      + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        return sock.recv(4096).split(b"\r\n", 1)[0].decode().split(" ")[1]


def test_a_page_of_another_origin_cannot_open_the_agent_socket(served: ServedHub) -> None:
    port = served.port
    foreign = ["http://evil.example", "https://evil.example", "null", f"http://127.0.0.1:{port + 1}",
               f"http://localhost:{port}", f"http://127.0.0.1:{port}.evil.example"]
    assert {origin: handshake(served, origin) for origin in foreign} == {origin: "403" for origin in foreign}
    # The app socket answers the same (the check it already had, now shared).
    assert handshake(served, "http://evil.example", "/ws/app") == "403"


def test_agents_without_an_origin_or_with_the_hubs_own_still_connect(served: ServedHub) -> None:
    assert handshake(served, None) == "101"
    assert handshake(served, f"http://127.0.0.1:{served.port}") == "101"
    # The real SDK agent (websockets, no Origin): pairs and comes online.
    token = served.token()
    auth = {"Authorization": f"Bearer {token}"}
    code = httpx.post(served.base + "/api/pairing-codes", json={"name": "Builder"}, headers=auth).json()["code"]
    folder = served.data_dir.parent
    with open(folder / "agent.log", "w") as log:
        agent = subprocess.Popen([sys.executable, "-m", "hub", "demo-agent", "--hub", served.base, "--code", code,
                                  "--credential-file", str(folder / "agent.json")],
                                 stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while not any(a["status"] == "online" for a in
                      httpx.get(served.base + "/api/agents", headers=auth).json()["agents"]):
            assert agent.poll() is None and time.monotonic() < deadline, (folder / "agent.log").read_text()
            time.sleep(0.1)
    finally:
        agent.terminate()
        agent.wait(10)

