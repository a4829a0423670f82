"""Guess limits count per source and never let one guesser refuse another's right code (docs/security.md#guessing);
password guesses also meet a per-account and a hub-wide ceiling that many addresses cannot multiply, while the person at
the hub's own machine keeps a budget of their own (docs/security.md#guessing). The real app and Hub, reached in-process
with the client address and Host each request would have on a LAN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.security.conftest import PASSWORD
from tests.security.support import AsgiHub, asgi_hub

SETUP = {"username": "ada", "displayName": "Ada", "password": PASSWORD, "workspaceName": "Alpha"}
LOCAL_HOST = "127.0.0.1:9527"


@pytest.fixture
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dozens of wrong sign-ins: the tests are about counting, not about scrypt's cost."""
    from hub.auth import secrets

    monkeypatch.setattr(secrets, "_SCRYPT_N", 2**8)


async def post(hub: AsgiHub, address: str, path: str, body: dict[str, Any], host: str | None = None,
               token: str | None = None) -> tuple[str, dict[str, str]]:
    """(error code or "ok", response headers) of one POST from `address`, asking for the hub by `host`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if host and not host.startswith(("127.", "localhost")):
        headers["Origin"] = f"http://{host}"  # what a browser page at that name sends along
    async with hub.client(address, host=host or LOCAL_HOST if address.startswith("127.") else host) as client:
        response = await client.post(path, json=body, headers=headers)
    return response.json().get("error", {}).get("code", "ok") if response.status_code >= 400 else "ok", \
        dict(response.headers)


async def codes(hub: AsgiHub, address: str, path: str, bodies: list[dict[str, Any]],
                host: str | None = None) -> list[str]:
    return [(await post(hub, address, path, body, host))[0] for body in bodies]


async def owner(hub: AsgiHub) -> str:
    code, _ = await post(hub, "127.0.0.1", "/api/setup", SETUP)
    assert code == "ok"
    async with hub.client("127.0.0.1", host=LOCAL_HOST) as local:
        answer = await local.post("/api/login", json={"username": "ada", "password": PASSWORD})
    return str(answer.json()["token"])


async def pairing_code(hub: AsgiHub, token: str) -> str:
    async with hub.client("127.0.0.1", host=LOCAL_HOST) as local:
        answer = await local.post("/api/pairing-codes", json={}, headers={"Authorization": f"Bearer {token}"})
    return str(answer.json()["code"])


# ---- codes -------------------------------------------------------------------------------------------------------

async def test_wrong_pairing_codes_from_one_host_do_not_refuse_another_hosts_right_code(
        tmp_path: Path, cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        token = await owner(hub)
        good = await pairing_code(hub, token)
        wrong = [{"code": f"ZZZZ-{i:04d}"} for i in range(21)]
        assert await codes(hub, "10.0.0.66", "/api/pair", wrong) == ["unauthorized"] * 20 + ["rate_limited"]
        # The guesser stays blocked, even with a right code ...
        assert await codes(hub, "10.0.0.66", "/api/pair", [{"code": good}]) == ["rate_limited"]
        # ... another host's right code works (before the change: rate_limited, a hub-wide count).
        assert await codes(hub, "10.0.0.20", "/api/pair", [{"code": good}]) == ["ok"]


async def test_wrong_setup_codes_do_not_refuse_the_real_owners_code(tmp_path: Path, cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        setup_code = hub.hub.setup_code
        wrong = [{**SETUP, "setupCode": f"{i:08d}"} for i in range(11) if f"{i:08d}" != setup_code]
        for address in ("192.168.1.51", "192.168.1.52"):
            assert await codes(hub, address, "/api/setup", wrong[:6]) == ["unauthorized"] * 6
        assert await codes(hub, "192.168.1.51", "/api/setup", wrong[:5]) == ["unauthorized"] * 4 + ["rate_limited"]
        assert await codes(hub, "192.168.1.51", "/api/setup", [{**SETUP, "setupCode": setup_code}]) == \
            ["rate_limited"]
        # The owner, on their laptop on the LAN, with the code the hub printed (before: rate_limited).
        assert await codes(hub, "192.168.1.10", "/api/setup", [{**SETUP, "setupCode": setup_code}]) == ["ok"]


async def test_a_rebound_page_on_the_hubs_machine_does_not_spend_the_owners_pairing_budget(
        tmp_path: Path, cheap_scrypt: None) -> None:
    """A page of evil.example re-pointed at 127.0.0.1: loopback peer, its own name as Host, a matching Origin.
    (Item 7 refuses such a Host outright; here the limits must hold by themselves, so the page is given a Host
    the hub accepts but that is not a loopback name: an IP literal of another machine.)"""
    async with asgi_hub(tmp_path / "hub") as hub:
        token = await owner(hub)
        good = await pairing_code(hub, token)
        wrong = [{"code": f"ZZZZ-{i:04d}"} for i in range(21)]
        rebound = "203.0.113.7:9527"
        assert await codes(hub, "127.0.0.1", "/api/pair", wrong, host=rebound) == \
            ["unauthorized"] * 20 + ["rate_limited"]
        # The owner at the machine still pairs (before: rate_limited, the same "loopback" key).
        assert await codes(hub, "127.0.0.1", "/api/pair", [{"code": good}]) == ["ok"]


# ---- passwords ----------------------------------------------------------------------------------------------------

async def test_password_guesses_from_many_addresses_meet_an_account_ceiling(tmp_path: Path,
                                                                           cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        await owner(hub)
        wrong = {"username": "ada", "password": "guess"}
        # 5 wrong passwords from each of 4 addresses: none reaches its own limit of 10 ...
        for i in range(4):
            assert await codes(hub, f"10.0.1.{i + 1}", "/api/login", [wrong] * 5) == ["unauthorized"] * 5
        # ... but the account has had 20: a fifth address is held, with how long to wait.
        code, headers = await post(hub, "10.0.1.99", "/api/login", wrong)
        assert code == "rate_limited"
        assert 1 <= int(headers["retry-after"]) <= 300
        right = {"username": "ada", "password": PASSWORD}
        assert (await post(hub, "10.0.1.99", "/api/login", right))[0] == "rate_limited"
        # Another account is not held; the owner at the hub's own machine signs in.
        assert (await post(hub, "10.0.1.99", "/api/login", {"username": "bob", "password": "x"}))[0] == \
            "unauthorized"
        assert (await post(hub, "127.0.0.1", "/api/login", right))[0] == "ok"


async def test_password_guesses_meet_a_hub_wide_ceiling_but_not_the_owners_machine(tmp_path: Path,
                                                                                  cheap_scrypt: None) -> None:
    async with asgi_hub(tmp_path / "hub") as hub:
        await owner(hub)
        # 100 wrong passwords for 50 made-up accounts from 50 addresses: no address, no account near its limit.
        for i in range(50):
            body = {"username": f"user{i}", "password": "guess"}
            assert await codes(hub, f"10.0.2.{i + 1}", "/api/login", [body] * 2) == ["unauthorized"] * 2
        code, headers = await post(hub, "10.0.3.1", "/api/login", {"username": "ada", "password": PASSWORD})
        assert code == "rate_limited" and int(headers["retry-after"]) >= 1
        # The owner's machine keeps its own budget, and its wrong passwords do not feed the ceilings.
        assert await codes(hub, "127.0.0.1", "/api/login", [{"username": "ada", "password": "typo"}] * 3) == \
            ["unauthorized"] * 3
        assert (await post(hub, "127.0.0.1", "/api/login", {"username": "ada", "password": PASSWORD}))[0] == "ok"


def test_the_owners_machine_is_slowed_down_not_locked_out() -> None:
    """Walking through by hand: 10 typos on the hub's own machine held the owner for 5 minutes, and the hint told
    them to sign in on the hub's own machine, where they were. There the wait is seconds; elsewhere minutes."""
    import time as clock

    from hub.auth.limits import SignInLimits

    limits = SignInLimits(per_source=3, local_window_s=0.3)
    for _ in range(3):
        limits.fail("local", "ada", True)
        limits.fail("10.0.0.9", "ada", False)
    assert 0 < limits.wait_s("local", "ada", True) <= 1
    assert limits.wait_s("10.0.0.9", "ada", False) > 60
    deadline = clock.monotonic() + 5
    while limits.wait_s("local", "ada", True) and clock.monotonic() < deadline:
        clock.sleep(0.05)
    assert limits.wait_s("local", "ada", True) == 0 and limits.wait_s("10.0.0.9", "ada", False) > 60
