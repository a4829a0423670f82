"""Issue "A newcomer gets there from the app", item 8: sessions are turned on from the app. The owner sets the folders sessions may use (`[sessions]
roots`) in Settings, from the hub's own machine or after typing their password again; the hub writes them into its
lineup.toml (every other line and comment kept) and takes them at once, without a restart; a session whose folder is
taken out ends, saying why. A real hub, the scripted ACP agent as the session's agent, a real git repository."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Connect
from tests.integration.test_sessions import AGENT_SCRIPT, make_repo
from tests.support.fixtures import HubFactory
from tests.support.live import Api, eventually

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

PASSWORD = "correct horse battery"
# A proxy or another machine: the hub does not take this request as the person at its own machine (hub/web/auth.py).
AWAY = {"X-Forwarded-For": "192.0.2.7"}
BEFORE = """# written by hand: keep me
port = 9527   # and me

[notify]
quiet_hours = "22:00-07:00"

[sessions]
max_running = 3   # a comment in the table

[sessions.agents.scripted]
name = "Scripted"
command = [{python}, {script}]
env = {{ ACP_TEST_LOG = {log} }}
init_timeout_s = 20
"""


async def owner_hub(hub_factory: HubFactory, tmp_path: Path) -> tuple[Any, Api]:
    hub = hub_factory(start=False)
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    (hub.data_dir / "lineup.toml").write_text(BEFORE.format(
        python=json.dumps(sys.executable), script=json.dumps(str(AGENT_SCRIPT)),
        log=json.dumps(str(tmp_path / "acp.jsonl"))))
    hub.start()
    answer = httpx.post(hub.base + "/api/setup", json={"username": "ada", "displayName": "Ada", "password": PASSWORD,
                                                       "workspaceName": "Home"}, timeout=10)
    assert answer.status_code == 201, answer.text
    return hub, Api(hub, answer.json()["token"])


async def put_roots(api: Api, roots: list[str], headers: dict[str, str] | None = None,
                    password: str | None = None) -> httpx.Response:
    body: dict[str, Any] = {"roots": roots}
    if password is not None:
        body["password"] = password
    return await api.call("POST", "/api/settings/sessions", json=body, headers=headers)


async def test_roots_set_from_the_app_turn_sessions_on_without_a_restart(hub_factory: HubFactory, lap: Connect,
                                                                        tmp_path: Path) -> None:
    hub, api = await owner_hub(hub_factory, tmp_path)
    root = tmp_path / "code"
    repo = make_repo(root / "proj")
    off = await api.get("/api/sessions/projects")
    assert off["enabled"] is False and "Settings" in off["hint"] and "restart" not in off["hint"].replace(
        "no restart", "")
    shown = await api.get("/api/settings/sessions")
    assert shown["roots"] == [] and shown["enabled"] is False and shown["passwordNeeded"] is False

    answer = await put_roots(api, [str(root) + "/"])
    assert answer.status_code == 200, answer.text
    assert answer.json()["roots"] == [str(root)] and answer.json()["enabled"] is True

    # Written into lineup.toml: the roots there, and every line that was there kept as it was.
    text = (hub.data_dir / "lineup.toml").read_text()
    for line in ("# written by hand: keep me", "port = 9527   # and me", 'quiet_hours = "22:00-07:00"',
                 "max_running = 3   # a comment in the table", 'name = "Scripted"'):
        assert line in text, text
    assert tomllib.loads(text)["sessions"]["roots"] == [str(root)]

    # Taken at once: the projects are listed and a session starts, with no restart.
    projects = await api.get("/api/sessions/projects")
    assert projects["enabled"] is True and [p["name"] for p in projects["projects"]] == ["proj"]
    app = await lap(hub, "app", api.token)
    started = await api.post("/api/sessions", {"agent": "scripted", "project": str(repo), "message": "hello"},
                             status=201)
    session_id = started.json()["sessionId"]

    # Taken out again: off at once, and the session there ends, saying why.
    answer = await put_roots(api, [])
    assert answer.status_code == 200 and answer.json()["enabled"] is False and answer.json()["sessionsEnded"] == 1

    async def ended() -> dict[str, Any] | None:
        session = await api.get(f"/api/sessions/{session_id}")
        return session if session["status"] == "ended" else None

    session = await eventually(ended, timeout=20)
    assert session["endReason"] == "sessions_off"
    await app.wait_for(lambda f: f["type"] == "message.created" and "no longer one of the folders" in str(
        f["payload"].get("content")), 20)
    refused = await api.post("/api/sessions", {"agent": "scripted", "project": str(repo), "message": "again"})
    assert refused.status_code == 403 and refused.json()["error"]["details"]["reason"] == "sessions_off"
    # And after a restart the file says the same.
    hub.stop()
    hub.start()
    assert (await api.get("/api/settings/sessions"))["roots"] == []


async def test_away_from_the_hub_the_password_is_asked_again(hub_factory: HubFactory, tmp_path: Path) -> None:
    hub, api = await owner_hub(hub_factory, tmp_path)
    root = tmp_path / "code"
    root.mkdir()
    before = (hub.data_dir / "lineup.toml").read_text()
    shown = (await api.call("GET", "/api/settings/sessions", headers=AWAY)).json()
    assert shown["passwordNeeded"] is True

    missing = await put_roots(api, [str(root)], headers=AWAY)
    assert missing.status_code == 403 and missing.json()["error"]["details"]["reason"] == "password_needed"
    wrong = await put_roots(api, [str(root)], headers=AWAY, password="not my password")
    assert wrong.status_code == 403 and wrong.json()["error"]["details"]["reason"] == "wrong_password"
    assert (hub.data_dir / "lineup.toml").read_text() == before  # nothing written

    right = await put_roots(api, [str(root)], headers=AWAY, password=PASSWORD)
    assert right.status_code == 200, right.text
    assert right.json()["roots"] == [str(root)]

    # Guesses are counted like sign-ins: after enough wrong ones, even the right password waits.
    statuses = [(await put_roots(api, [], headers=AWAY, password=f"guess {n}")).status_code for n in range(25)]
    assert 429 in statuses, statuses


async def test_only_the_owner_and_only_folders_that_can_be_roots(hub_factory: HubFactory, tmp_path: Path) -> None:
    hub, api = await owner_hub(hub_factory, tmp_path)
    before = (hub.data_dir / "lineup.toml").read_text()
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    (hub.data_dir / "inside").mkdir()
    refused = {
        "code": ("invalid_payload", 422),  # relative
        "/": ("forbidden", 403),
        str(Path.home()): ("forbidden", 403),
        "~": ("forbidden", 403),
        str(Path.home().parent): ("forbidden", 403),
        str(hub.data_dir): ("forbidden", 403),
        str(hub.data_dir / "inside"): ("forbidden", 403),
        str(tmp_path / "missing"): ("not_found", 404),
        str(a_file): ("invalid_payload", 422),
        str(tmp_path / "a" / ".." / "b"): ("invalid_payload", 422),
        "/tmp/x\u0007y": ("invalid_payload", 422),
    }
    for root, (code, _) in refused.items():
        answer = await put_roots(api, [root])
        assert answer.status_code in (400, 403, 404, 422) and answer.json()["error"]["code"] == code, (root, answer.text)
        assert answer.json()["error"]["message"], root
    assert (hub.data_dir / "lineup.toml").read_text() == before
    unknown = await api.call("POST", "/api/settings/sessions", json={"roots": [], "extra": 1})
    assert unknown.status_code in (400, 422)

    # Not the hub's owner: the owner of another workspace (`lineup token --workspace`), and nobody signed in.
    other = Api(hub, hub.token("Other team"))
    assert (await other.call("GET", "/api/settings/sessions")).status_code == 403
    assert (await put_roots(other, [str(tmp_path)])).status_code == 403
    assert (await put_roots(Api(hub, None), [str(tmp_path)])).status_code == 401
    assert (hub.data_dir / "lineup.toml").read_text() == before
