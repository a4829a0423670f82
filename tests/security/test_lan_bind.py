"""A hub bound beyond loopback with no owner yet cannot be taken over from the network without the setup code
(docs/design.md#security-baseline): the hub and a "phone" sit in two network namespaces of their own, joined
by one veth pair, so the phone is a really different machine as far as the hub can tell, and nothing leaves the test's
own namespaces. Also tested over that real network: the guess limits lock the phone's address, never the owner at
the hub's machine, and the live figures need a token from the LAN.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support import netns

ROOT = Path(__file__).resolve().parents[2]
HUB_ADDRESS, PHONE_ADDRESS = "10.231.0.1", "10.231.0.2"
PORT = 9527

# Run on the phone's side: each step is one HTTP request; prints [status, error code or body] for each.
PHONE = textwrap.dedent("""
    import json, sys, urllib.error, urllib.request
    base, steps = sys.argv[1], json.loads(sys.argv[2])
    answers = []
    for method, path, body, token in steps:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                         method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                answers.append([response.status, json.loads(response.read())])
        except urllib.error.HTTPError as exc:
            answers.append([exc.code, json.loads(exc.read())["error"]["code"]])
    print(json.dumps(answers))
""")


@dataclass
class Lan:
    hub_ns: str
    phone_ns: str
    processes: list[subprocess.Popen[str]] = field(default_factory=list)

    def run(self, ns: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ip", "netns", "exec", ns, *args], capture_output=True, text=True, timeout=60,
                              cwd=ROOT)

    def phone(self, steps: list[tuple[str, str, object, str | None]]) -> list[list[Any]]:
        result = self.run(self.phone_ns, sys.executable, "-c", PHONE, f"http://{HUB_ADDRESS}:{PORT}",
                          json.dumps(steps))
        assert result.returncode == 0, result.stderr
        return list(json.loads(result.stdout))

    def at_hub(self, steps: list[tuple[str, str, object, str | None]]) -> list[list[Any]]:
        """The same, from the hub's own machine (its namespace's loopback)."""
        result = self.run(self.hub_ns, sys.executable, "-c", PHONE, f"http://127.0.0.1:{PORT}", json.dumps(steps))
        assert result.returncode == 0, result.stderr
        return list(json.loads(result.stdout))


@pytest.fixture
def lan() -> Iterator[Lan]:
    netns.require_namespaces()
    suffix = f"{os.getpid() % 100000}"
    net = Lan(f"lusec-hub-{suffix}", f"lusec-phone-{suffix}")
    netns.join_two(((net.hub_ns, f"lsh{suffix}", HUB_ADDRESS), (net.phone_ns, f"lsp{suffix}", PHONE_ADDRESS)))
    try:
        yield net
    finally:
        netns.stop(net.processes)
        netns.remove(net.hub_ns, net.phone_ns)


def test_a_hub_on_the_lan_without_an_owner_needs_the_setup_code(lan: Lan, tmp_path: Path) -> None:
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        hub = subprocess.Popen(["ip", "netns", "exec", lan.hub_ns, sys.executable, "-m", "hub", "serve",
                                "--host", "0.0.0.0", "--port", str(PORT), "--data-dir", str(tmp_path / "data"),
                                "--no-mdns"], stdout=stdout, stderr=stderr, text=True, cwd=ROOT,
                               env={**os.environ, "LINEUP_LOG_LEVEL": "warning"})
    lan.processes.append(hub)
    deadline = time.monotonic() + 20
    while not (match := re.search(r"setup code (\d{8})", out.read_text())):
        assert hub.poll() is None and time.monotonic() < deadline, out.read_text() + err.read_text()
        time.sleep(0.05)
    setup_code = match.group(1)
    owner = {"username": "ada", "displayName": "Ada", "password": "correct horse", "workspaceName": "Alpha"}

    first = lan.phone([
        ("GET", "/api/setup", None, None),
        ("POST", "/api/setup", owner, None),
        ("POST", "/api/setup", {**owner, "setupCode": ""}, None),
        ("POST", "/api/setup", {**owner, "setupCode": "null"}, None),
        ("POST", "/api/setup", {**owner, "setupCode": "00000000" if setup_code != "00000000" else "11111111"}, None),
        ("GET", "/-/metrics", None, None),
        ("GET", "/-/plugins.json", None, None),
        ("POST", "/api/setup", {**owner, "setupCode": f" {setup_code} "}, None),
        ("POST", "/api/setup", {**owner, "username": "mallory", "setupCode": setup_code}, None),
    ])
    assert first[0] == [200, {"needsSetup": True, "setupCodeRequired": True}]
    assert [a[:2] for a in first[1:5]] == [[401, "unauthorized"]] * 4
    assert first[5:7] == [[401, "unauthorized"]] * 2
    assert first[7][0] == 201, first[7]
    token = first[7][1]["token"]
    assert first[8] == [403, "forbidden"]
    # The setup code is shown where the owner looks (the console) and not served to anybody.
    assert setup_code not in json.dumps(first[0]) and setup_code not in err.read_text()

    # Over the real network: the phone's wrong passwords lock the phone's address, not the owner at the hub.
    wrong = [("POST", "/api/login", {"username": "ada", "password": f"guess-{i}"}, None) for i in range(11)]
    answers = lan.phone([*wrong, ("POST", "/api/login", {"username": "ada", "password": "correct horse"}, None),
                         ("GET", "/-/metrics", None, token)])
    assert [a[1] for a in answers[:12]] == ["unauthorized"] * 10 + ["rate_limited"] * 2
    assert answers[12][0] == 200
    at_hub = lan.at_hub([("POST", "/api/login", {"username": "ada", "password": "correct horse"}, None),
                         ("GET", "/-/metrics", None, None)])
    assert at_hub[0][0] == 201 and at_hub[1][0] == 200
