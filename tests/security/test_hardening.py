"""Browser-facing hardening (docs/security.md): Origin checks against cross-site request forgery and cross-site
WebSocket hijacking, DNS rebinding, security headers and a web app without inline script, path traversal on the static
routes, and guess limits whose lock-out cannot be used to lock the owner out.

The guess-limit policy tested here (hub/web/accounts.py, hub/web/notifications.py, hub/web/auth.py::client_key):

- failures are counted per client address over a sliding window: sign-in, setup code, sign-in links and action
  links 10 per 5 minutes, pairing codes 20 per minute; a success does not count;
- "an address" is one IPv4 address, one IPv6 /64 (an IPv6 host can take any address of its /64), or the
  hub's own machine (every loopback address is one: 127.0.0.2 is not a fresh address);
- the peer address is the TCP peer: X-Forwarded-For is not believed, and a request that carries forwarding
  headers is never taken for a loopback one;
- setup codes and pairing codes are also limited hub-wide (many addresses guessing together); the hub-wide
  limit never blocks the hub's own machine, where setup needs no code and `lineup pair` runs;
- so wrong passwords from one address never stop the owner signing in from another address, and nobody can stop
  the owner setting up or pairing from the hub's machine.
"""

from __future__ import annotations

import json
import re
import socket
import statistics
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import websockets
from starlette.routing import Route
from websockets.typing import Origin

from tests.security.conftest import PASSWORD
from tests.security.support import AsgiHub, ServedHub, asgi_hub
from tests.support.lap import envelope

ROOT = Path(__file__).resolve().parents[2]
SETUP = {"username": "ada", "displayName": "Ada", "password": PASSWORD, "workspaceName": "Alpha"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedHub]:
    """One hub set up by its owner (from loopback), shared by the tests that do not need a fresh one."""
    hub = ServedHub(tmp_path_factory.mktemp("hardening") / "hub").start()
    httpx.post(hub.base + "/api/setup", json=SETUP).raise_for_status()
    yield hub
    hub.stop()


def owner_token(hub: ServedHub) -> str:
    response = httpx.post(hub.base + "/api/login", json={"username": "ada", "password": PASSWORD})
    response.raise_for_status()
    return str(response.json()["token"])


# ---- Origin: CSRF and cross-site WebSocket hijacking --------------------------------------------------------

async def post_routes(tmp_path: Path) -> list[str]:
    async with asgi_hub(tmp_path / "walk") as hub:
        return sorted(r.path for r in hub.app.routes if isinstance(r, Route) and "POST" in (r.methods or ()))


async def test_no_state_changing_route_obeys_another_site(served: ServedHub, tmp_path: Path) -> None:
    """Every POST route (read from the app, so a new one is included) refuses a cross-site or opaque Origin with
    403, even with a valid token or secret; nothing happens; the same request from the hub's own page works."""
    token = owner_token(served)
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=served.base, timeout=30) as http:
        agent = (await http.post("/api/pair", json={"code": (await http.post("/api/pairing-codes", json={},
                                                                              headers=auth)).json()["code"]})).json()
        code = (await http.post("/api/pairing-codes", json={}, headers=auth)).json()["code"]
        link = (await http.post("/api/sign-in-links", json={}, headers=auth)).json()["url"].split("#signin=")[1]
        me = (await http.get("/api/me", headers=auth)).json()
        bodies: dict[str, dict[str, Any]] = {
            "/api/setup": {**SETUP, "username": "mallory"},
            "/api/login": {"username": "ada", "password": PASSWORD},
            "/api/pair": {"code": code, "name": "planted"},
            "/api/sign-in-links/redeem": {"code": link},
            "/api/actions": {"token": "lu_act_whatever"},
            "/api/hub/rename": {"name": "Owned"},
            "/api/agents/{agent_id}/rename": {"name": "owned"},
        }
        paths = await post_routes(tmp_path)
        head = (await http.get("/api/state", headers=auth)).json()["headSequence"]
        for origin in ("https://evil.example", f"http://evil.example:{served.port}", "null",
                       f"http://127.0.0.1:{served.port + 1}", f"https://localhost:{served.port}"):
            for template in paths:
                path = template.replace("{agent_id}", agent["agentId"]).replace("{device_id}", me["deviceId"])
                response = await http.post(path, json=bodies.get(template, {}), headers={**auth, "Origin": origin})
                assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden"), \
                    (origin, path, response.text)
        assert (await http.get("/api/state", headers=auth)).json()["headSequence"] == head  # nothing stored
        # The hub's own page may: the code and the link were not spent by the refused attempts.
        same = {"Origin": served.base}
        assert (await http.post("/api/pair", json={"code": code, "name": "wanted"}, headers=same)).status_code == 201
        assert (await http.post("/api/sign-in-links/redeem", json={"code": link}, headers=same)).status_code == 201
        # Reading is not opened to other sites either: no CORS grant, on answers or preflights.
        read = await http.get("/api/me", headers={**auth, "Origin": "https://evil.example"})
        preflight = await http.options("/api/pairing-codes", headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization"})
        for response in (read, preflight):
            assert not any(h.lower().startswith("access-control-allow") for h in response.headers), response.headers


async def test_app_socket_refuses_other_sites_before_the_hello(served: ServedHub) -> None:
    """Cross-site WebSocket hijacking: a page of another site cannot even open /ws/app (HTTP 403 at the
    handshake), so it never gets to send a token it stole or the browser's ambient credentials."""
    token = owner_token(served)
    for origin in ("https://evil.example", f"http://evil.example:{served.port}", "null"):
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with websockets.connect(served.ws_base + "/ws/app", origin=cast(Origin, origin)):
                pass
        assert refused.value.response.status_code == 403, origin
    async with websockets.connect(served.ws_base + "/ws/app", origin=cast(Origin, served.base)) as ws:
        await ws.send(json.dumps(envelope("app.hello", {"token": token})))
        assert '"system.welcome"' in str(await ws.recv())


async def test_dns_rebinding_does_not_make_a_web_page_the_hubs_own_machine(tmp_path: Path) -> None:
    """A page of evil.example whose name is re-pointed at 127.0.0.1 talks to the hub from loopback, with its own
    name as Host and Origin (so the Origin check passes). It must not get what only the hub's own machine gets:
    setup without the setup code, the live figures and plugin list without a token. Neither must a client that
    says, in forwarding headers, that it speaks for someone else."""
    hub = ServedHub(tmp_path / "fresh").start()
    try:
        rebound = f"evil.example:{hub.port}"
        disguises = [
            {"Host": rebound, "Origin": f"http://{rebound}"},
            {"Host": rebound},
            {"X-Forwarded-For": "203.0.113.9"},
            {"Forwarded": "for=203.0.113.9"},
            {"X-Real-IP": "203.0.113.9"},
        ]
        async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
            for headers in disguises:
                if "Host" in headers:  # a foreign name is not answered at all (test_host_check.py)
                    assert (await http.get("/api/setup", headers=headers)).status_code == 421
                    continue
                status = (await http.get("/api/setup", headers=headers)).json()
                assert status == {"needsSetup": True, "setupCodeRequired": True}, headers
                refused = await http.post("/api/setup", json=SETUP, headers=headers)
                assert (refused.status_code, refused.json()["error"]["code"]) == (401, "unauthorized"), headers
                for path in ("/-/metrics", "/-/plugins.json"):
                    assert (await http.get(path, headers=headers)).status_code == 401, (path, headers)
            # The person at the hub's own machine, by address or by name, still sets up without a code.
            for host in (f"localhost:{hub.port}", f"127.0.0.1:{hub.port}"):
                assert (await http.get("/api/setup", headers={"Host": host})).json()["setupCodeRequired"] is False
            assert (await http.post("/api/setup", json=SETUP, headers={"Host": f"localhost:{hub.port}"})).status_code \
                == 201
    finally:
        hub.stop()


# ---- headers and the web app --------------------------------------------------------------------------------

def directives(csp: str) -> dict[str, list[str]]:
    parsed = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            parsed[words[0].lower()] = words[1:]
    return parsed


async def test_every_kind_of_answer_carries_the_security_headers(served: ServedHub) -> None:
    token = owner_token(served)
    async with httpx.AsyncClient(base_url=served.base, timeout=30) as http:
        modules = (await http.get("/-/ui-modules.json")).json()["modules"]
        answers = {
            "the app": await http.get("/"),
            "a script": await http.get("/app.js"),
            # Unversioned: a versioned script carries only nosniff (tests/security/test_app_files.py).
            "a plugin's static file": await http.get(re.sub(r"/v/[0-9a-f]+/", "/", modules[0]["url"]) if modules
                                                     else "/plugins/canvas/static/x"),
            "JSON": await http.get("/api/me", headers={"Authorization": f"Bearer {token}"}),
            "an error": await http.get("/api/me"),
            "a missing file": await http.get("/no-such-file.js"),
            "a wrong method": await http.delete("/api/me"),
            "health": await http.get("/-/health"),
        }
    for label, response in answers.items():
        headers = response.headers
        csp = directives(headers.get("content-security-policy", ""))
        assert csp.get("frame-ancestors") == ["'none'"], (label, headers)
        for name in ("script-src", "default-src"):
            assert csp.get(name) == ["'self'"], (label, name, csp)  # no 'unsafe-inline', 'unsafe-eval', hosts, data:
        assert csp.get("object-src", csp["default-src"]) == ["'self'"] and csp.get("base-uri") == ["'none'"], label
        assert headers.get("referrer-policy") == "no-referrer", label
        assert headers.get("x-content-type-options") == "nosniff", label
        assert headers.get("x-frame-options") == "DENY", label
        # Answers of the hub are never stored; the app's own files are revalidated (immutable when versioned:
        # tests/security/test_app_files.py), so they are not secrets either way.
        static = label in ("the app", "a script", "a plugin's static file")
        assert headers.get("cache-control", "") == ("no-cache" if static else "no-store"), label


class InlineScriptFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False
        self._data_block = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {k.lower(): v or "" for k, v in attrs}
        if tag == "script":
            # A data block (type application/json: the vocabularies the hub writes into the page) is never run.
            self._data_block = names.get("type", "").lower() == "application/json"
            self._in_script = "src" not in names and not self._data_block
        for name, value in names.items():
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> (inline event handler)")
            if value.strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}=javascript:...>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = self._data_block = False

    def handle_data(self, data: str) -> None:
        if self._data_block and data.strip():
            json.loads(data)  # only data: a block that is not JSON fails the test
        if self._in_script and data.strip():
            self.problems.append(f"inline <script>: {data.strip()[:60]!r}")


async def test_the_app_needs_no_inline_script(served: ServedHub) -> None:
    """The CSP forbids inline script, so the app must not use any: the page served and every HTML file of ui/."""
    pages = {"/ (served)": httpx.get(served.base + "/").text}
    pages.update({str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "ui").rglob("*.html")})
    for name, html in pages.items():
        finder = InlineScriptFinder()
        finder.feed(html)
        assert finder.problems == [], (name, finder.problems)


# ---- path traversal --------------------------------------------------------------------------------------------

def raw_get(port: int, target: str) -> tuple[int, bytes]:
    """A request with the target exactly as written (clients normalise ../ away)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, data


TRAVERSALS = [
    "/../pyproject.toml", "/..%2fpyproject.toml", "/%2e%2e/pyproject.toml", "/%2e%2e%2fpyproject.toml",
    "/..%5cpyproject.toml", "/lib/../../pyproject.toml", "/lib/..%2f..%2fpyproject.toml", "/..;/pyproject.toml",
    "/lib/%2e%2e/%2e%2e/pyproject.toml", "/%252e%252e/pyproject.toml", "//etc/passwd", "/%2fetc%2fpasswd",
    "/....//....//pyproject.toml", "/..%c0%afpyproject.toml", "/app.js%00.html", "/../hub/app.py",
    "/plugins/canvas/static/../__init__.py", "/plugins/canvas/static/..%2f__init__.py",
    "/plugins/canvas/static/%2e%2e/__init__.py", "/plugins/canvas/static/%2e%2e%2f__init__.py",
    "/plugins/canvas/static/..%2f..%2f..%2fhub%2fapp.py", "/plugins/canvas/static/../../../pyproject.toml",
    "/plugins/canvas/static//etc/passwd", "/plugins/canvas/static/%2fetc%2fpasswd",
    "/plugins/canvas/static/..\\__init__.py", "/plugins/canvas/../../hub/app.py", "/plugins/calculator/static/x",
    "/plugins/../hub/app.py", "/plugins/canvas/static/.", "/plugins/canvas/static/..",
]
MARKERS = [b"[build-system]", b"root:x:0:0", b"def create_app", b"import ", b"register_tools", b"hookimpl"]


def test_static_and_plugin_asset_routes_serve_nothing_outside_their_folder(served: ServedHub) -> None:
    assert raw_get(served.port, "/app.js")[0] == 200
    assert raw_get(served.port, "/plugins/canvas/static/lineup-canvas.js")[0] == 200
    for target in TRAVERSALS:
        status, data = raw_get(served.port, target)
        body = data.split(b"\r\n\r\n", 1)[-1]
        leaked = [m for m in MARKERS if m in body and not (m == b"import " and target.endswith(".js"))]
        assert not leaked, (target, status, body[:200])
        assert status != 200 or target.endswith(("/.", "/..")), (target, status, body[:200])
        if status == 200:  # a folder name resolved inside the folder: never a listing of it
            assert b"lineup-canvas.js" not in body and b"__init__" not in body, (target, body[:200])


# ---- guess limits and lock-out ----------------------------------------------------------------------------------

@pytest.fixture
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passwords hashed from now on (in this process) cost little to check: the limit tests make dozens of wrong
    sign-ins and are about counting, not about scrypt. The timing test below keeps the real cost."""
    from hub.auth import secrets

    monkeypatch.setattr(secrets, "_SCRYPT_N", 2**8)


async def setup_owner(hub: AsgiHub) -> dict[str, str]:
    async with hub.client("127.0.0.1", host="127.0.0.1:9527") as local:
        answer = await local.post("/api/setup", json=SETUP)
        assert answer.status_code == 201, answer.text
        return dict(answer.json())


async def codes(hub: AsgiHub, address: str, path: str, bodies: list[dict[str, Any]]) -> list[str]:
    """The error code (or "ok") of each POST, sent from `address` (asking for the hub by its loopback name when
    the address is a loopback one, as a browser on the hub's machine does)."""
    async with hub.client(address, host="127.0.0.1:9527" if address.startswith("127.") else None) as client:
        return [(await client.post(path, json=body)).json().get("error", {}).get("code", "ok") for body in bodies]


async def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out_elsewhere(tmp_path: Path,
                                                                                     cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        await setup_owner(hub)
        wrong = [{"username": "ada", "password": f"guess-{i}"} for i in range(11)]
        assert await codes(hub, "10.0.0.66", "/api/login", wrong) == ["unauthorized"] * 10 + ["rate_limited"]
        right = {"username": "ada", "password": PASSWORD}
        assert await codes(hub, "10.0.0.66", "/api/login", [right]) == ["rate_limited"]  # even the right one there
        for address in ("10.0.0.20", "127.0.0.1", "fd00:2::20"):
            assert await codes(hub, address, "/api/login", [right]) == ["ok"], address
        # An IPv6 host owns its whole /64: a new address in it is not a new guesser.
        for i in range(10):
            assert await codes(hub, f"fd00:1::{i + 1:x}", "/api/login", wrong[:1]) == ["unauthorized"]
        assert await codes(hub, "fd00:1::2:3", "/api/login", wrong[:1]) == ["rate_limited"]
        # Nor is another loopback address: the machine is one guesser.
        for i in range(10):
            assert await codes(hub, f"127.0.0.{i + 2}", "/api/login", wrong[:1]) == ["unauthorized"]
        assert await codes(hub, "127.0.1.1", "/api/login", wrong[:1]) == ["rate_limited"]
        # By now the account has had 20 wrong passwords from the network: its own ceiling holds every address
        # for a while (tests/security/test_guess_limits.py).
        assert await codes(hub, "10.0.0.21", "/api/login", [right]) == ["rate_limited"]


async def test_forwarding_headers_do_not_mint_new_addresses(tmp_path: Path) -> None:
    """A client (or a rebound web page) that invents X-Forwarded-For on every try is still one address (the
    real server: uvicorn would believe the header from a loopback peer unless told not to)."""
    hub = ServedHub(tmp_path / "hub").start()
    try:
        async with httpx.AsyncClient(base_url=hub.base, timeout=30) as http:
            answers = []
            for i in range(11):
                response = await http.post("/api/sign-in-links/redeem", json={"code": f"lu_link_guess{i}"},
                                           headers={"X-Forwarded-For": f"198.51.100.{i + 1}"})
                answers.append(response.json()["error"]["code"])
            assert answers == ["unauthorized"] * 10 + ["rate_limited"]
    finally:
        hub.stop()


async def test_setup_code_guesses_are_limited_per_address(
        tmp_path: Path, cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        wrong = [{**SETUP, "setupCode": f"{i:08d}"} for i in range(11)]
        placeholders = [{**SETUP, "setupCode": c} for c in ("", " ", "null", "00000000")]
        assert hub.hub.setup_code not in {b["setupCode"] for b in wrong + placeholders}
        # No code, or a placeholder, from another machine: refused like any wrong code.
        assert await codes(hub, "192.168.1.50", "/api/setup", [dict(SETUP)] + placeholders) == ["unauthorized"] * 5
        # Per address (10 wrong codes in 5 minutes); another address's right code still works
        # (docs/security.md#guessing) ...
        assert await codes(hub, "192.168.1.50", "/api/setup", wrong[:6]) == ["unauthorized"] * 5 + ["rate_limited"]
        assert await codes(hub, "192.168.1.50", "/api/setup", [{**SETUP, "setupCode": hub.hub.setup_code}]) == \
            ["rate_limited"]
        # ... but the owner at the hub's own machine needs no code and is never blocked.
        assert await codes(hub, "127.0.0.1", "/api/setup", [SETUP]) == ["ok"]


async def test_pairing_guesses_are_limited_but_the_owner_can_still_pair_and_sign_in(
        tmp_path: Path, cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        owner = await setup_owner(hub)
        auth = {"Authorization": f"Bearer {owner['token']}"}
        async with hub.client("127.0.0.1") as local:
            good = [(await local.post("/api/pairing-codes", json={}, headers=auth)).json()["code"] for _ in range(2)]
        wrong = [{"code": f"ZZZZ-{i:04d}"} for i in range(21)]
        assert await codes(hub, "10.0.0.66", "/api/pair", wrong) == ["unauthorized"] * 20 + ["rate_limited"]
        # Per address only: another LAN address pairs with a right code (docs/security.md#guessing) ...
        assert await codes(hub, "10.0.0.20", "/api/pair", [{"code": good[0]}]) == ["ok"]
        # ... so does the hub's own machine, and the owner signs in and works from anywhere meanwhile.
        assert await codes(hub, "127.0.0.1", "/api/pair", [{"code": good[1]}]) == ["ok"]
        assert await codes(hub, "10.0.0.20", "/api/login", [{"username": "ada", "password": PASSWORD}]) == ["ok"]


async def test_sign_in_link_and_action_link_guesses_are_limited_per_address(
        tmp_path: Path, cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        owner = await setup_owner(hub)
        async with hub.client("127.0.0.1") as local:
            auth = {"Authorization": f"Bearer {owner['token']}"}
            link = (await local.post("/api/sign-in-links", json={}, headers=auth)).json()["url"].split("#signin=")[1]
        wrong_links = [{"code": f"lu_link_wrong{i}"} for i in range(11)]
        assert await codes(hub, "10.0.0.66", "/api/sign-in-links/redeem", wrong_links) == \
            ["unauthorized"] * 10 + ["rate_limited"]
        assert await codes(hub, "10.0.0.20", "/api/sign-in-links/redeem", [{"code": link}]) == ["ok"]
        wrong_actions = [{"token": f"lu_act_wrong{i}"} for i in range(11)]
        assert await codes(hub, "10.0.0.67", "/api/actions", wrong_actions) == ["unauthorized"] * 10 + ["rate_limited"]
        assert await codes(hub, "10.0.0.20", "/api/actions", wrong_actions[:1]) == ["unauthorized"]


async def test_a_wrong_username_takes_as_long_as_a_wrong_password(tmp_path: Path) -> None:
    """Otherwise the time of the answer tells which usernames exist (the message is the same for both)."""
    async with asgi_hub(tmp_path / "hub") as hub:
        await setup_owner(hub)

        async def timed(address: str, username: str) -> float:
            async with hub.client(address) as client:
                started = time.perf_counter()
                response = await client.post("/api/login", json={"username": username, "password": "wrong-password"})
                assert response.json()["error"]["code"] == "unauthorized"
                return time.perf_counter() - started

        # Interleaved, so that a burst of load from the rest of a parallel run falls on both alike.
        known, unknown = [], []
        for i in range(5):
            known.append(await timed(f"10.0.1.{i}", "ada"))
            unknown.append(await timed(f"10.0.2.{i}", "nobody-by-this-name"))
        assert statistics.median(unknown) > 0.5 * statistics.median(known), (known, unknown)

