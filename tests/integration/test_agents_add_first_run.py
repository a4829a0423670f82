"""An agent added with `lineup agents add` comes online after one restart, also on a new hub before its first-run
setup (it waited for a second restart: "no workspace yet"); and adding Hermes or OpenClaw both ways
(`lineup agents add` and `lineup connect`) never makes two agents of the same name. A real `lineup serve`, the real
CLI, the scripted ACP agent standing in for codex-acp and hermes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.test_agents_add import AGENT_SCRIPT, only_path, program
from tests.support.fixtures import HubFactory
from tests.support.hubproc import run_cli
from tests.support.live import Api, eventually

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

SETUP = {"username": "ada", "displayName": "Ada", "password": "correct horse battery", "workspaceName": "Home",
         "deviceName": "test"}


def scripted(bin_dir: Path, name: str, log: Path) -> None:
    program(bin_dir, name, f"ACP_TEST_LOG={json.dumps(str(log))} exec {json.dumps(sys.executable)} "
                           f"{json.dumps(str(AGENT_SCRIPT))}")


async def agents_named(api: Api) -> list[dict[str, Any]]:
    return [a for a in (await api.get("/api/agents"))["agents"] if not a.get("revokedAt")]


@pytest.mark.hub_process
async def test_an_added_agent_comes_online_once_the_new_hub_is_set_up(hub_factory: HubFactory, lap: Any,
                                                                      tmp_path: Path) -> None:
    hub = hub_factory(start=False)
    project, bin_dir = tmp_path / "project", tmp_path / "bin"
    project.mkdir()
    scripted(bin_dir, "codex-acp", tmp_path / "acp.jsonl")
    run_cli(hub.data_dir, "agents", "add", "codex", "--dir", str(project), env=only_path(bin_dir))
    hub.start()  # the one start after adding it: nobody has set the hub up yet
    answer = httpx.post(hub.base + "/api/setup", json=SETUP, timeout=10)
    assert answer.status_code == 201, answer.text
    api = Api(hub, answer.json()["token"])

    async def online() -> str | None:
        return next((a["id"] for a in await agents_named(api) if a["name"] == "Codex" and a["status"] == "online"),
                    None)

    agent_id = await eventually(online, timeout=30)  # no second restart
    app = await lap(hub, "app", answer.json()["token"])
    await app.ok("conversation.create", {"title": "c1", "agentIds": [agent_id]}, conversationId="c1")
    await app.ok("task.create", {"title": "hello codex"}, taskId="t1", conversationId="c1")
    await app.event("task.status_changed", 15, taskId="t1", status="succeeded")


@pytest.mark.hub_process
@pytest.mark.parametrize("connect_first", [True, False], ids=["connect-then-add", "add-then-connect"])
async def test_hermes_both_ways_makes_two_agents_with_two_names(hub_factory: HubFactory, tmp_path: Path,
                                                                connect_first: bool) -> None:
    hub = hub_factory(start=False)
    token = hub.token()
    bin_dir = tmp_path / "bin"
    scripted(bin_dir, "hermes", tmp_path / "acp.jsonl")

    def connect() -> dict[str, Any]:
        """What `lineup connect hermes` does with its code: pair an agent named Hermes, runtime hermes."""
        code = hub.pairing_code()
        paired = httpx.post(hub.base + "/api/pair", json={"code": code, "name": "Hermes", "runtime": "hermes"},
                            timeout=10)
        assert paired.status_code in (200, 201), paired.text
        return dict(paired.json())

    if connect_first:
        hub.start()
        connect()
        hub.stop()
    run_cli(hub.data_dir, "agents", "add", "hermes", "--dir", str(tmp_path), env=only_path(bin_dir))
    hub.start()
    api = Api(hub, token)

    async def both() -> list[dict[str, Any]] | None:
        found = [a for a in await agents_named(api) if a["name"].startswith("Hermes")]
        return found if len(found) == 2 else None

    if not connect_first:
        await eventually(lambda: _one_hermes(api), timeout=30)
        connect()
    agents = await eventually(both, timeout=30)
    names = sorted(a["name"] for a in agents)
    assert len(set(names)) == 2, names
    by_runtime = {a["runtime"]: a["name"] for a in agents}
    # The one that came first keeps the plain name; the other says which way it is.
    first, second = ("hermes", "acp") if connect_first else ("acp", "hermes")
    assert by_runtime[first] == "Hermes", by_runtime
    assert by_runtime[second] != "Hermes" and by_runtime[second].startswith("Hermes ("), by_runtime


async def _one_hermes(api: Api) -> bool | None:
    return any(a["name"] == "Hermes" and a["runtime"] == "acp" for a in await agents_named(api)) or None
