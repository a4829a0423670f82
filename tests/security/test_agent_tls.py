"""docs/security.md#agents-transport: a hub listening beyond loopback offers agents TLS by default.

The hub and an agent's machine sit in two network namespaces joined by one veth pair (tests/security/
test_lan_bind.py's `lan`), so the agent is really on another machine. The pairing command the app shows names the
hub's TLS listener for agents (https, the hub's port + 1) with the certificate's fingerprint; the demo agent run
with it on the other machine pairs and comes online over TLS, and keeps the pin. Plain ws:// only by an explicit
`agent_tls = "off"`.
"""

from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.security.test_lan_bind import HUB_ADDRESS, PORT, ROOT, Lan, lan

__all__ = ["lan"]  # the fixture

OWNER = {"username": "ada", "displayName": "Ada", "password": "correct horse", "workspaceName": "Alpha"}
FINGERPRINT = re.compile(r"(?:[0-9A-F]{2}:){31}[0-9A-F]{2}")


def start_hub(lan: Lan, data: Path, env: dict[str, str] | None = None) -> str:
    """`lineup serve --host 0.0.0.0` in the hub's namespace; its console banner once it listens."""
    out = data.parent / "hub-stdout.txt"
    with open(out, "w") as stdout:
        hub = subprocess.Popen(["ip", "netns", "exec", lan.hub_ns, sys.executable, "-m", "hub", "serve",
                                "--host", "0.0.0.0", "--port", str(PORT), "--data-dir", str(data), "--no-mdns"],
                               stdout=stdout, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                               env={**os.environ, "LINEUP_LOG_LEVEL": "warning", **(env or {})})
    lan.processes.append(hub)
    deadline = time.monotonic() + 20
    while "Press Ctrl+C" not in out.read_text():
        assert hub.poll() is None and time.monotonic() < deadline, out.read_text()
        time.sleep(0.05)
    return out.read_text()


def pairing_at_hub(lan: Lan) -> tuple[str, dict[str, object]]:
    """The owner sets up at the hub's machine and asks for a pairing code, as "Connect my agent" does."""
    token = lan.at_hub([("POST", "/api/setup", OWNER, None)])[0][1]["token"]
    answer = lan.at_hub([("POST", "/api/pairing-codes", {"name": "Builder"}, token)])[0]
    assert answer[0] == 201, answer
    return str(token), answer[1]


def test_the_pairing_command_carries_tls_and_the_agent_connects_over_it(lan: Lan, tmp_path: Path) -> None:
    banner = start_hub(lan, tmp_path / "data")
    assert f"agents: TLS on port {PORT + 1}" in banner, banner
    token, pairing = pairing_at_hub(lan)
    command = str(pairing["command"])
    match = re.fullmatch(r"(?:lineup|\S+ -m hub) demo-agent --hub (\S+) --code (\S+) --fingerprint (\S+)", command)
    assert match is not None, command
    assert match.group(1) == f"https://{HUB_ADDRESS}:{PORT + 1}" == pairing["hubUrl"], command
    assert FINGERPRINT.fullmatch(match.group(3)) and pairing["fingerprint"] == match.group(3)
    # the fingerprint is the certificate's the agent's machine really gets on that port
    served = lan.run(lan.phone_ns, sys.executable, "-c",
                     f"import ssl; print(ssl.get_server_certificate(({HUB_ADDRESS!r}, {PORT + 1})))")
    assert served.returncode == 0, served.stderr
    from hub.tls import fingerprint_der
    assert fingerprint_der(ssl.PEM_cert_to_DER_cert(served.stdout.strip())) == match.group(3)

    credential = tmp_path / "agent.json"
    with open(tmp_path / "agent.log", "w") as log:
        lan.processes.append(subprocess.Popen(
            ["ip", "netns", "exec", lan.phone_ns, sys.executable, "-m", "hub", "demo-agent", "--hub", match.group(1),
             "--code", match.group(2), "--fingerprint", match.group(3), "--credential-file", str(credential)],
            stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT))
    deadline = time.monotonic() + 30
    while True:
        agents = lan.at_hub([("GET", "/api/agents", None, token)])[0][1]["agents"]
        if any(a["status"] == "online" for a in agents):
            break
        assert time.monotonic() < deadline, (agents, (tmp_path / "agent.log").read_text())
        time.sleep(0.2)
    stored = json.loads(credential.read_text())  # the agent comes back over TLS, with the pin
    assert stored["hub_url"] == match.group(1) and stored["tls_fingerprint"]


def test_plain_agents_only_by_an_explicit_choice(lan: Lan, tmp_path: Path) -> None:
    banner = start_hub(lan, tmp_path / "data", {"LINEUP_AGENT_TLS": "off"})
    assert "agents: TLS" not in banner, banner
    _, pairing = pairing_at_hub(lan)
    # (the program is the one the hub was started by: `python -m hub` here)
    assert str(pairing["command"]).endswith(f" demo-agent --hub http://{HUB_ADDRESS}:{PORT} --code {pairing['code']}")
    assert pairing["fingerprint"] is None
    refused = lan.run(lan.phone_ns, sys.executable, "-c", "import socket; socket.create_connection("
                      f"({HUB_ADDRESS!r}, {PORT + 1}), timeout=5)")
    assert refused.returncode != 0 and "ConnectionRefusedError" in refused.stderr, refused.stderr


def test_an_agent_on_another_machine_at_the_plain_port_is_refused_with_the_tls_address(lan: Lan,
                                                                                         tmp_path: Path) -> None:
    """With the TLS listener on, the plain port takes no agent from another machine: pairing and the agent
    socket are refused, saying which https address (and fingerprint) to use; nothing crosses the LAN in clear. The
    SDK itself does not even send the code there (hub/sdk/cleartext.py) unless told to, which it is here to reach
    the hub's own refusal."""
    start_hub(lan, tmp_path / "data")
    _, pairing = pairing_at_hub(lan)
    plain = f"http://{HUB_ADDRESS}:{PORT}"

    def demo_agent(log_name: str, env: dict[str, str]) -> str:
        with open(tmp_path / log_name, "w") as log:
            agent = subprocess.Popen(
                ["ip", "netns", "exec", lan.phone_ns, "env", *[f"{k}={v}" for k, v in env.items()],
                 sys.executable, "-m", "hub", "demo-agent", "--hub", plain, "--code", str(pairing["code"]),
                 "--credential-file", str(tmp_path / "agent.json")],
                stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        lan.processes.append(agent)
        assert agent.wait(30) != 0
        return (tmp_path / log_name).read_text()

    said = demo_agent("sdk.log", {})
    assert "in clear" in said and f"https://{HUB_ADDRESS}:{PORT + 1}" in said, said
    said = demo_agent("agent.log", {"LINEUP_ALLOW_INSECURE_HUB": "1"})
    assert "over TLS only" in said and f"https://{HUB_ADDRESS}:{PORT + 1}" in said, said
    assert str(pairing["fingerprint"]) in said, said
    assert not (tmp_path / "agent.json").exists()  # not paired: the code was not spent over plain http
    # The agent socket too: the first frame says why, then the socket closes (policy).
    probe = lan.run(lan.phone_ns, sys.executable, "-c", textwrap.dedent(f"""
        import asyncio, json, websockets
        async def main():
            async with websockets.connect("ws://{HUB_ADDRESS}:{PORT}/ws/agent") as ws:
                print(json.loads(await ws.recv())["payload"]["code"])
                try:
                    await ws.recv()
                except websockets.ConnectionClosed as closed:
                    print(closed.rcvd.code)
        asyncio.run(main())
    """))
    assert probe.stdout.split() == ["forbidden", "1008"], (probe.stdout, probe.stderr)
