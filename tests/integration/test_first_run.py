"""First run in either order: `lineup pair` / `lineup token` before anybody set the hub up
never lock the person out of the browser; the setup stays open and claims what the CLI made, agents included.

Real processes: a `lineup serve` on a loopback port, the `lineup` CLI on the same data folder, HTTP as the app
and an agent use it.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess, run_cli

SETUP = {"username": "grace", "displayName": "Grace Hopper", "password": "cobol-forever", "workspaceName": "Navy"}


def me(hub: HubProcess, token: str) -> dict[str, Any]:
    answer = httpx.get(hub.base + "/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def agents(hub: HubProcess, token: str) -> list[dict[str, object]]:
    answer = httpx.get(hub.base + "/api/agents", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["agents"])


def pair_with(hub: HubProcess, code: str, name: str) -> dict[str, str]:
    answer = httpx.post(hub.base + "/api/pair", json={"code": code, "name": name, "runtime": "test"}, timeout=10)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def test_cli_pairing_before_setup_leaves_the_browser_setup_open(hub: HubProcess) -> None:
    """README's demo command first (`lineup pair` on a fresh hub), the browser second: the person can still set
    up, their account is the one the CLI made (the agent paired meanwhile is theirs), and they can sign in."""
    paired_by_cli = run_cli(hub.data_dir, "pair", "--name", "early agent")
    code = paired_by_cli.stdout.strip()
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code), paired_by_cli.stdout  # stdout: the code alone
    assert "no account yet" in paired_by_cli.stderr and "setup code" in paired_by_cli.stderr, paired_by_cli.stderr
    # Where to set up: the running hub's own address, also when it runs on a port lineup.toml does not name.
    assert f"{hub.base}/ " in paired_by_cli.stderr, paired_by_cli.stderr
    early = pair_with(hub, code, "early agent")
    token_by_cli = run_cli(hub.data_dir, "token").stdout.strip()  # the direct-mode token works meanwhile
    assert me(hub, token_by_cli)["role"] == "owner"

    # The browser's first question: setup, not a sign-in nobody can pass.
    assert httpx.get(hub.base + "/api/setup").json() == {"needsSetup": True, "setupCodeRequired": False}
    assert httpx.get(hub.base + "/.well-known/lineup").json()["needsSetup"] is True
    # Nobody can sign in to the CLI's owner with a password (it has none), so setup is the way in.
    refused = httpx.post(hub.base + "/api/login", json={"username": "owner", "password": "!"})
    assert refused.status_code == 401

    created = httpx.post(hub.base + "/api/setup", json=SETUP, timeout=30)
    assert created.status_code == 201, created.text
    owner = created.json()
    account = me(hub, owner["token"])
    assert (account["username"], account["displayName"], account["role"]) == ("grace", "Grace Hopper", "owner")
    assert account["workspace"] == {"id": early["workspaceId"], "name": "Navy"}  # the CLI's workspace, renamed
    assert [a["id"] for a in agents(hub, owner["token"])] == [early["agentId"]]
    assert me(hub, token_by_cli)["username"] == "grace"  # the same person: the CLI's token is now grace's

    # Set up once: closed now, for everyone; the password signs in.
    assert httpx.get(hub.base + "/api/setup").json() == {"needsSetup": False, "setupCodeRequired": False}
    again = httpx.post(hub.base + "/api/setup", json={**SETUP, "username": "mallory"}, timeout=30)
    assert (again.status_code, again.json()["error"]["code"]) == (403, "forbidden")
    login = httpx.post(hub.base + "/api/login", json={"username": "grace", "password": SETUP["password"]}, timeout=30)
    assert login.status_code == 201 and login.json()["userId"] == owner["userId"]

    # The CLI keeps working for the person, without the setup note.
    later = run_cli(hub.data_dir, "pair")
    assert "no account yet" not in later.stderr
    second = pair_with(hub, later.stdout.strip(), "second agent")
    assert second["workspaceId"] == early["workspaceId"]
    assert me(hub, run_cli(hub.data_dir, "token").stdout.strip())["userId"] == owner["userId"]


def test_cli_before_the_hub_ever_ran_then_setup(hub_factory: HubFactory) -> None:
    """`lineup pair` on a data folder no hub has used yet: the hub then starts with its setup open (and prints
    the setup code), and the setup from this machine works."""
    hub = hub_factory("cold", start=False)
    first = run_cli(hub.data_dir, "pair")
    assert "no account yet" in first.stderr, first.stderr
    hub.start()
    assert re.search(r"setup code \d{8}", hub.log()), hub.log()
    assert httpx.get(hub.base + "/api/setup").json()["needsSetup"] is True
    created = httpx.post(hub.base + "/api/setup", json=SETUP, timeout=30)
    assert created.status_code == 201, created.text
    assert me(hub, created.json()["token"])["username"] == "grace"


def test_browser_setup_first_then_the_cli(hub: HubProcess) -> None:
    """The other order: set up in the browser, then `lineup pair` and `lineup token` act as that owner."""
    created = httpx.post(hub.base + "/api/setup", json=SETUP, timeout=30)
    assert created.status_code == 201, created.text
    owner = created.json()
    result = run_cli(hub.data_dir, "pair", "--name", "builder")
    assert "no account yet" not in result.stderr
    paired = pair_with(hub, result.stdout.strip(), "builder")
    assert paired["workspaceId"] == owner["workspaceId"]
    assert [a["name"] for a in agents(hub, owner["token"])] == ["builder"]
    token = run_cli(hub.data_dir, "token").stdout.strip()
    assert me(hub, token)["userId"] == owner["userId"]
    assert httpx.get(hub.base + "/api/setup").json()["needsSetup"] is False


def test_setup_cannot_take_a_username_another_account_has(hub: HubProcess) -> None:
    """Setup claims the hub's first owner; a second workspace's CLI-made owner keeps its username."""
    run_cli(hub.data_dir, "token")
    team_b = me(hub, run_cli(hub.data_dir, "token", "--workspace", "Team B").stdout.strip())
    taken = httpx.post(hub.base + "/api/setup", json={**SETUP, "username": team_b["username"]}, timeout=30)
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "conflict"), taken.text
    assert httpx.get(hub.base + "/api/setup").json()["needsSetup"] is True  # nothing changed
    own_name = httpx.post(hub.base + "/api/setup", json={**SETUP, "username": "owner"}, timeout=30)
    assert own_name.status_code == 201, own_name.text  # the claimed owner's own name: the same account
    account = me(hub, own_name.json()["token"])
    assert (account["username"], account["workspace"]["name"]) == ("owner", "Navy")
    assert account["userId"] != team_b["userId"]
