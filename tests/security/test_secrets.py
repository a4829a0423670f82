"""No secret in any log line or URL (docs/design.md#minimal-logs).

One full run at debug level: setup (with the setup code), a wrong and a right sign-in, pairing (a code from the
app and one from `lineup pair`, typed the way a person types it), agents over raw LAP and over the SDK, tasks, an
approval answered from a notification's action link, another answered in the app, a sign-in link, revocations.
Every secret issued or typed is collected: the setup code, passwords, device tokens, agent credentials, pairing
codes, sign-in link codes, action tokens. Then none may appear

- in the hub's log (stderr), whole or as any 12-character piece of its random part (a debug line that shows only
  the end of a token still leaks 72 bits of it);
- in the console banner, except the setup code, which is printed there for the owner to read;
- in any URL a client requested: every request goes through a recording proxy (the sign-in link's code rides in
  the URL's fragment, which browsers never send);
- in the database files, where only hashes of secrets are kept;
- in the log lines of the SDK (and of its websockets connection) at debug level.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

from hub.sdk import AgentClient, Credential, pair
from tests.security.support import RecordingProxy, ServedHub
from tests.support.hubproc import run_cli
from tests.support.lap import LapClient, envelope
from tests.support.receivers import HttpReceiver

PASSWORD, WRONG_PASSWORD = "Tr0ub4dor&3-horse-staple", "Tr0ub4dor&3-horse-stapel"


def pieces(secret: str, size: int = 12) -> set[str]:
    """The secret, and for a long one every `size`-character window of its random part (after `lu_xxx_`)."""
    body = re.sub(r"^lu_[a-z]+_", "", secret)
    found = {secret}
    if len(body) > size:
        found |= {body[i:i + size] for i in range(len(body) - size + 1)}
    return found


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [f"{label}: …{piece}…" for label, secret in secrets.items() for piece in pieces(secret) if piece in text]


async def full_run(hub: ServedHub, proxy: RecordingProxy, receiver: HttpReceiver, setup_code: str
                   ) -> dict[str, str]:
    secrets: dict[str, str] = {"setup code": setup_code, "password": PASSWORD, "wrong password": WRONG_PASSWORD}
    async with httpx.AsyncClient(base_url=proxy.base, timeout=30) as http:
        assert (await http.get("/api/setup")).json()["needsSetup"] is True
        owner = (await http.post("/api/setup", json={"username": "ada", "displayName": "Ada", "password": PASSWORD,
                                                     "workspaceName": "Alpha", "setupCode": setup_code})).json()
        secrets["setup token"] = owner["token"]
        assert (await http.post("/api/login", json={"username": "ada", "password": WRONG_PASSWORD})).status_code == 401
        phone = (await http.post("/api/login", json={"username": "ada", "password": PASSWORD,
                                                     "deviceName": "phone"})).json()
        secrets["login token"] = phone["token"]
        auth = {"Authorization": f"Bearer {phone['token']}"}

        # Pairing: a code from the app for the SDK, one from the CLI typed in lower case without its dash.
        app_code = (await http.post("/api/pairing-codes", json={"name": "sdk"}, headers=auth)).json()["code"]
        cli_code = hub.cli("pair").stdout.strip()
        secrets.update({"app pairing code": app_code, "cli pairing code": cli_code,
                        "typed pairing code": cli_code.lower().replace("-", ""),
                        "app pairing code, compact": app_code.replace("-", "")})
        assert (await http.post("/api/pair", json={"code": "ZZZZ-ZZZZ"})).status_code == 401
        sdk_credential = await pair(proxy.base, app_code, name="sdk-agent", runtime="test")
        raw = (await http.post("/api/pair", json={"code": secrets["typed pairing code"], "name": "raw-agent"})).json()
        secrets.update({"sdk credential": sdk_credential.credential, "raw credential": raw["credential"]})
        secrets["cli token"] = hub.token()
        secrets["other workspace token"] = hub.token("Other")

        app = await LapClient.connect(proxy.base.replace("http", "ws"), "app", phone["token"])
        agent = await LapClient.connect(proxy.base.replace("http", "ws"), "agent", raw["credential"])
        sdk = AgentClient(sdk_credential, runtime="test")
        await sdk.start(timeout_s=15)
        try:
            await app.ok("conversation.create", {"title": "Work", "agentIds": [raw["agentId"]]}, conversationId="c1")
            for task_id in ("t1", "t2"):
                await app.ok("task.create", {"title": f"Task {task_id}"}, conversationId="c1", taskId=task_id)
                await agent.ok("task.accepted", {}, taskId=task_id)
                await agent.ok("interaction.requested", {"interaction": {"id": f"ask-{task_id}", "type": "approval",
                                                                         "title": "Go ahead?"}}, taskId=task_id)
            # The first approval is answered from the notification's button (an action link) ...
            for _ in range(200):
                if receiver.received:
                    break
                await asyncio.sleep(0.05)
            buttons = [a for r in receiver.received for a in r.body.get("actions", []) if a["action"] == "http"]
            assert buttons, receiver.received
            for number, button in enumerate(buttons):
                secrets[f"action token {number}"] = httpx.Response(200, content=button["body"]).json()["token"]
                assert "token" not in button["url"] and not any(s in button["url"] for s in secrets.values())
            approve = next(b for b in buttons if b["label"] == "Approve")
            path = urlsplit(approve["url"]).path
            assert (await http.post(path, content=approve["body"], headers=approve["headers"])).status_code == 200
            # ... the second in the app.
            await app.ok("interaction.respond", {"interactionId": "ask-t2", "response": {"optionId": "approve"}})
            await agent.event("interaction.resolved", interactionId="ask-t1")
            await agent.event("interaction.resolved", interactionId="ask-t2")
            # A sign-in link for another phone: the code only in the fragment.
            link = (await http.post("/api/sign-in-links", json={}, headers=auth)).json()["url"]
            assert urlsplit(link).path in ("", "/") and not urlsplit(link).query
            secrets["sign-in link code"] = urlsplit(link).fragment.removeprefix("signin=")
            second = (await http.post("/api/sign-in-links/redeem", json={"code": secrets["sign-in link code"]})).json()
            secrets["sign-in link token"] = second["token"]
            # A client that puts a token where it does not belong (the URL, a header, a cookie) is not signed in
            # by it, and the hub does not log it. (Straight to the hub: the URL check below is about our clients.)
            misplaced = hub.token()
            secrets["misplaced token"] = misplaced
            async with websockets.connect(f"{hub.ws_base}/ws/app?token={misplaced}", additional_headers={
                    "Authorization": f"Bearer {misplaced}", "Cookie": f"lineup.token={misplaced}"}) as ws:
                await ws.send(json.dumps(envelope("app.hello", {})))
                assert json.loads(await ws.recv())["payload"]["code"] == "invalid_payload"
            # The raw agent pairs again with a fresh code, its credential as proof (in the body): same agent, new
            # credential, its socket closed (4401).
            again_code = (await http.post("/api/pairing-codes", json={}, headers=auth)).json()["code"]
            secrets["pairing code, pairing again"] = again_code
            held = Credential(proxy.base, raw["agentId"], raw["workspaceId"], raw["credential"])
            rotated = await pair(proxy.base, again_code, name="raw-agent", runtime="test", replaces=held)
            assert rotated.agent_id == raw["agentId"] and rotated.replaced is not None and rotated.replaced.kept
            secrets["rotated credential"] = rotated.credential
            await asyncio.wait_for(agent.closed.wait(), 5)
            # Revocations.
            await http.post(f"/api/devices/{second['deviceId']}/revoke", json={}, headers=auth)
            await http.post(f"/api/agents/{raw['agentId']}/revoke", json={}, headers=auth)
        finally:
            await sdk.close()
            await app.close()
            await agent.close()
    return secrets


async def test_no_secret_in_logs_urls_or_the_database(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    receiver = HttpReceiver()
    hub = ServedHub(tmp_path / "hub", env={"LINEUP_LOG_LEVEL": "debug"},
                    process=True)  # all the process writes, by any means, is searched
    hub.data_dir.mkdir(parents=True)
    (hub.data_dir / "lineup.toml").write_text(f'[notify.webhook]\nurl = "{receiver.url}/topic"\nformat = "ntfy"\n')
    hub.start()
    proxy = await RecordingProxy(hub.port).start()
    caplog.set_level(logging.DEBUG)
    try:
        setup_code = hub.wait_banner(r"setup code (\d{8})").group(1)
        secrets = await full_run(hub, proxy, receiver, setup_code)
    finally:
        await proxy.close()
        hub.stop()
        receiver.close()
    assert len(secrets) >= 20, secrets.keys()

    log = hub.log()
    assert "DEBUG" in log and "/ws/agent" in log  # the run really logged at debug level
    assert leaks(log, secrets) == [], "secrets in the hub's log"
    banner = hub.banner()
    assert setup_code in banner
    assert leaks(banner, {k: v for k, v in secrets.items() if k != "setup code"}) == []

    targets = proxy.targets
    for expected in ("/api/setup", "/api/login", "/api/pair", "/ws/app", "/ws/agent", "/api/actions",
                     "/api/sign-in-links/redeem"):
        assert expected in targets, (expected, targets)
    assert leaks("\n".join(targets), secrets) == [], "secrets in URLs"

    stored = b"".join(p.read_bytes() for p in hub.data_dir.glob("lineup.db*"))
    at_rest = leaks(stored.decode("latin1"), {k: v for k, v in secrets.items()})
    assert at_rest == [], "secrets stored in clear"

    # The agent side: the SDK's own log and its websockets connection's debug lines (the test's raw LapClient
    # sockets are test tooling: websockets logs the end of each frame they send, an app hello's token included).
    client_log = "\n".join(f"{r.name}: {r.getMessage()}" for r in caplog.records)
    assert "lineup.sdk" in client_log or "websockets.client" in client_log
    sdk_secrets = {k: secrets[k] for k in ("sdk credential", "app pairing code", "app pairing code, compact",
                                           "rotated credential", "pairing code, pairing again")}
    assert leaks(client_log, sdk_secrets) == [], "secrets in the SDK's debug log"


def test_what_a_full_run_looks_for_is_what_leaks_look_like() -> None:
    """The matcher finds a token whose log line kept only its end (what websockets' frame logging does)."""
    token = "lu_dev_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v"
    line = "< TEXT '{\"id\": \"5616b725\", ...6Q7r8S9t0U1v\"}}' [206 bytes]"
    assert leaks(line, {"token": token}) and not leaks("nothing here 5616b725", {"token": token})



def test_the_data_folder_and_the_export_are_the_owners_alone(tmp_path: Path) -> None:
    """The database holds password hashes, conversations and decisions; the export holds the same: on a machine
    with several accounts, only the owner's may read them (whoever makes the data folder first: hub or CLI)."""
    (tmp_path / "by-hub").mkdir()
    hub = ServedHub(tmp_path / "by-hub" / "data").start()  # the data folder does not exist yet
    hub.token()
    hub.stop()
    cli_first = tmp_path / "by-cli" / "data"
    run_cli(cli_first, "token")
    for data in (hub.data_dir, cli_first):
        assert data.stat().st_mode & 0o777 == 0o700, data
        out = data.parent / "export.jsonl"
        run_cli(data, "export", "-o", str(out))
        assert out.stat().st_mode & 0o777 == 0o600 and out.read_text().count("\n") >= 3
