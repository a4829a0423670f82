"""Plugins in real hub processes: every hook called, static folders, broken plugins reported, blocking,
entry points, tracing. The hubs load copies of tests/plugins/good and tests/plugins/broken."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.plugins.conftest import Connect
from tests.plugins.folders import ALL_HOOKS, BROKEN, GOOD, copy_folder, fake_distribution
from tests.support.hubproc import HubProcess, pair_agent, run_cli
from tests.support.live import eventually

HubFactory = Callable[..., HubProcess]


def plugins_json(hub: HubProcess) -> dict[str, Any]:
    response = httpx.get(hub.base + "/-/plugins.json", timeout=10)
    assert response.status_code == 200, response.text
    return dict(response.json())


def loaded(info: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in info["plugins"]}


def failures(info: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = {}
    for failure in info["failures"]:
        found.setdefault(failure["name"], []).append(failure)
    return found


async def raw_get(hub: HubProcess, target: str) -> tuple[int, bytes]:
    """GET with the request target sent exactly as written (an HTTP client would normalise `..` away)."""
    async def go() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", hub.port)
        writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{hub.port}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        data = await reader.read()
        writer.close()
        await writer.wait_closed()
        return data
    data = await asyncio.wait_for(go(), 10)
    return int(data.split(b" ", 2)[1]), data


async def status_of_everyhook(hub: HubProcess, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=hub.base, timeout=10) as client:
        response = await client.get("/plugins/everyhook/status", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return dict(response.json())


# ---- a plugin implementing every hook -------------------------------------------------------------------------


async def test_every_hook_of_a_folder_plugin_is_called(hub_factory: HubFactory, tmp_path: Path,
                                                       lap: Connect) -> None:
    folder = copy_folder(GOOD, tmp_path / "extra-plugins")
    hub = hub_factory("hub", env={"LINEUP_PLUGINS_DIR": str(folder)}, start=False)
    token = hub.token()  # the workspace exists before start: the supervisor can pair the configured agent
    (hub.data_dir / "lineup.toml").write_text('[[agents]]\nname = "echoer"\nruntime = "everyhook"\n')
    hub.start()

    info = plugins_json(hub)
    plugins = loaded(info)
    assert plugins["everyhook"] == {"name": "everyhook", "origin": f"folder:{folder}", "version": "1.2.3",
                                    "hooks": ALL_HOOKS}
    assert plugins["greeter"]["hooks"] == ["register_tools"]  # a single-file plugin
    assert "_skipped" not in plugins and "_skipped" not in failures(info)
    # The two bad tool definitions are reported under the plugin's name; its other parts all work.
    assert failures(info).keys() == {"everyhook"}
    bad = sorted(f["reason"] for f in failures(info)["everyhook"])
    assert len(bad) == 2 and all(f["origin"] == "tool" for f in failures(info)["everyhook"])
    assert bad[0].startswith("tool 'badtype'.type must be one of")
    assert bad[1] == "tool 'nohandler' needs a `handler` or an `interaction`"
    assert {"echo", "later", "explode", "refuse", "tally", "greeter", "calculator", "canvas"} <= set(info["tools"])
    assert not {"badtype", "nohandler"} & set(info["tools"])
    assert "everyhook" in info["runtimes"] and "subprocess" in info["runtimes"]
    # The module is named under its folder's version (hub/web/static_app.py), so browsers keep it for good.
    assert any(m["plugin"] == "everyhook" and re.fullmatch(r"/plugins/everyhook/static/v/[0-9a-f]{12}/everyhook\.js",
                                                           m["url"]) for m in info["uiModules"]), info["uiModules"]

    # register_routes: the plugin's route is mounted and checks who is asking.
    async with httpx.AsyncClient(base_url=hub.base, timeout=10) as client:
        assert (await client.get("/plugins/everyhook/status")).status_code == 401
        modules = (await client.get("/-/ui-modules.json")).json()["modules"]
    plain = [{**m, "url": re.sub(r"/v/[0-9a-f]{12}/", "/", m["url"])} for m in modules]  # without the version
    assert {"plugin": "everyhook", "url": "/plugins/everyhook/static/everyhook.js"} in plain
    assert {"plugin": "canvas", "url": "/plugins/canvas/static/lineup-canvas.js"} in plain
    status = await status_of_everyhook(hub, token)
    calls = status["calls"]
    for hook in ("register_tools", "register_runtimes", "register_notifiers", "register_routes", "startup"):
        assert calls.get(hook) == 1, (hook, calls)
    assert calls.get("register_ui_modules", 0) >= 2 and calls.get("shutdown", 0) == 0
    # startup ran with the store open, before the hub served.
    assert status["startup"]["storeOpen"] is True and status["startup"]["serving"] is False
    assert status["startup"]["dataDir"] == str(hub.data_dir) and status["notifiers"] == 1

    # register_runtimes: the configured agent runs on the plugin's runtime and answers a task.
    echoer = await eventually(lambda: _agent(hub, "echoer"), timeout=15)
    app = await lap(hub, "app", token)
    await app.ok("task.create", {"title": "ping the plugin", "targetAgentId": echoer["agentId"]}, taskId="t-echo")
    done = await app.event("task.status_changed", taskId="t-echo", status="succeeded", timeout=15)
    assert done["payload"]["summary"] == "everyhook echoed: ping the plugin"

    # after_commit: every event committed since start-up, in sequence order, with no gap and nothing twice;
    # an exception in after_commit is logged and the hub carries on.
    await app.ok("conversation.create", {"title": "everyhook: raise in after_commit", "agentIds": []},
                 conversationId="c-raise")
    after = await app.ok("conversation.create", {"title": "after the raise", "agentIds": []}, conversationId="c-ok")
    status = await eventually(lambda: _committed_upto(hub, token, after["sequence"]))
    sequences = [row["sequence"] for row in status["committed"] if row["sequence"] <= after["sequence"]]
    assert sequences == list(range(status["startup"]["head"] + 1, after["sequence"] + 1))
    async with httpx.AsyncClient(base_url=hub.base, timeout=10) as client:
        log_events = (await client.get("/api/events", params={"after": sequences[0] - 1, "limit": 1000},
                                       headers={"Authorization": f"Bearer {token}"})).json()["events"]
    seen = {row["sequence"]: row["type"] for row in status["committed"]}
    assert all(seen[e["sequence"]] == e["type"] for e in log_events if e["sequence"] <= after["sequence"])
    assert {"task.created", "task.accepted", "conversation.created"} <= set(seen.values())
    assert "after_commit raised on purpose" in hub.log()
    assert "[lineup plugins]" not in hub.log()  # no hook tracing unless LINEUP_TRACE_PLUGINS=1

    # shutdown: called when the hub stops, before the store closes.
    hub.stop()
    marker = hub.data_dir / "everyhook-shutdown.json"
    assert marker.exists(), hub.log()
    assert '"shutdown": 1' in marker.read_text() and '"runtime.stop": 1' in marker.read_text()


async def _agent(hub: HubProcess, name: str) -> dict[str, Any] | None:
    rows = plugins_json(hub)["agents"]
    return next((row for row in rows if row["name"] == name and row.get("connected")), None)


async def _committed_upto(hub: HubProcess, token: str, sequence: int) -> dict[str, Any] | None:
    status = await status_of_everyhook(hub, token)
    return status if status["committed"] and status["committed"][-1]["sequence"] >= sequence else None


async def test_a_package_plugin_serves_its_static_folder_and_nothing_else(hub_factory: HubFactory,
                                                                          tmp_path: Path) -> None:
    folder = copy_folder(GOOD, tmp_path / "plugins")
    outside = tmp_path / "outside.txt"
    outside.write_text("SECRET-NOT-STATIC outside every plugin")
    (folder / "everyhook" / "static" / "escape.txt").symlink_to(outside)
    hub = hub_factory("hub", env={"LINEUP_PLUGINS_DIR": str(folder)})

    status, body = await raw_get(hub, "/plugins/everyhook/static/everyhook.js")
    assert status == 200 and b"everyhook static module" in body and b"javascript" in body.lower()
    status, body = await raw_get(hub, "/plugins/everyhook/static/nested/note.txt")
    assert status == 200 and b"nested file of the everyhook plugin" in body
    for target in ("/plugins/everyhook/static/../private.txt",
                   "/plugins/everyhook/static/%2e%2e/private.txt",
                   "/plugins/everyhook/static/..%2fprivate.txt",
                   "/plugins/everyhook/static/nested/../../private.txt",
                   "/plugins/everyhook/static/%2e%2e/__init__.py",
                   "/plugins/everyhook/static/escape.txt",
                   "/plugins/everyhook/static/..%2f..%2f..%2foutside.txt",
                   "/plugins/everyhook/private.txt",
                   "/plugins/greeter/static/greeter.py"):
        status, body = await raw_get(hub, target)
        assert status in (400, 404), (target, status)
        assert b"SECRET-NOT-STATIC" not in body and b"def register_tools" not in body and b"import" not in body
    assert (await raw_get(hub, "/-/health"))[0] == 200  # still serving


# ---- broken plugins, blocking ---------------------------------------------------------------------------------


EXPECTED_FAILURES = {
    "import_error": ["ModuleNotFoundError", "lineup_test_no_such_module", "import_error.py:3"],
    "syntax_error": ["SyntaxError"],
    "broken_package": ["ZeroDivisionError", "inner.py:1"],
    "misspelled_hook": ["unknown hook", "register_tool"],
    "calculator": ["already loaded from builtin"],
    "startup_fails": ["startup raised RuntimeError: startup_fails cannot find its configuration"],
    "register_raises": ["register_tools raised ValueError: register_raises has no tools today"],
}


async def test_broken_plugins_are_reported_by_name_and_the_hub_still_serves(hub_factory: HubFactory,
                                                                             tmp_path: Path, lap: Connect) -> None:
    folder = copy_folder(BROKEN, tmp_path / "broken")
    (folder / "syntax_error.py").write_text("def register_tools(:\n")
    env = {"LINEUP_PLUGINS_DIR": str(folder), "LINEUP_BLOCKED_PLUGINS": "blocked_me, review"}
    hub = hub_factory("hub", env=env)

    info = plugins_json(hub)
    found = failures(info)
    assert set(found) == set(EXPECTED_FAILURES), found
    for name, parts in EXPECTED_FAILURES.items():
        (failure,) = found[name]
        assert all(part in failure["reason"] for part in parts), (name, failure)
        assert failure["origin"] == f"folder:{folder}", failure
        assert name in hub.log()  # and logged with its name
    plugins = loaded(info)
    assert not set(EXPECTED_FAILURES) - {"calculator"} & set(plugins)
    assert plugins["calculator"]["origin"] == "builtin"  # the built-in one stays, the impostor is refused
    # Blocked by name: not loaded, not imported (blocked_me raises at import), not reported as a failure.
    assert "blocked_me" not in plugins and "review" not in plugins
    assert "review" not in info["tools"] and {"choice", "confirm", "input", "calculator"} <= set(info["tools"])
    assert not {"misspelled_tool", "startup_fails_tool"} & set(info["tools"])

    # The hub serves: an agent lists the tools and the built-in calculator answers.
    token = hub.token()
    agent = await lap(hub, "agent", pair_agent(hub, token)["credential"])
    listed = await agent.request("tool.list", {})
    tools = (await agent.wait_for(lambda f: f["type"] == "tool.list" and f.get("correlationId") == listed["payload"]["id"]))
    assert "review" not in {t["name"] for t in tools["payload"]["tools"]}
    await agent.ok("tool.call", {"call_id": "c1", "name": "calculator", "action": "add", "arguments": {"a": 2, "b": 3}})
    result = await agent.event("tool.result", call_id="c1")
    assert result["payload"]["result"]["value"] == 5

    # `lineup plugins --plugins-dir DIR` tells the same before any hub starts (it does not run startup hooks).
    listing = run_cli(hub.data_dir, "plugins", "--plugins-dir", str(folder), env={"LINEUP_BLOCKED_PLUGINS": "blocked_me"})
    assert listing.returncode == 0
    listed_names = {line.split()[0] for line in listing.stdout.splitlines() if line.strip()}
    assert {"calculator", "canvas", "review", "startup_fails", "register_raises"} <= listed_names
    assert not {"import_error", "misspelled_hook", "blocked_me", "syntax_error", "broken_package"} & listed_names
    failed_lines = {line.split()[0]: line for line in listing.stderr.splitlines() if "FAILED" in line}
    assert set(failed_lines) == {"import_error", "syntax_error", "broken_package", "misspelled_hook", "calculator"}
    assert "lineup_test_no_such_module" in failed_lines["import_error"]
    assert "register_tool" in failed_lines["misspelled_hook"]


# ---- entry points and tracing ---------------------------------------------------------------------------------


EP_PLUGIN = '''
from hub import hookimpl

__version__ = "0.4.0"


@hookimpl
def register_tools(hub):
    return [{"name": "ep_tool", "type": "action", "description": "From an installed distribution",
             "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
             "handler": lambda action, arguments, context: {"message": str(arguments["n"] * 2)}}]


@hookimpl
async def startup(hub):
    pass


@hookimpl
def after_commit(events):
    pass
'''


async def test_entry_point_plugins_load_and_tracing_prints_hook_calls(hub_factory: HubFactory, tmp_path: Path,
                                                                       lap: Connect) -> None:
    site = fake_distribution(tmp_path / "site", "lineup-fake-ep", "0.4.0",
                             {"fake_ep": "fake_ep_plugin", "fake_broken_ep": "fake_ep_missing_module",
                              "canvas": "fake_ep_plugin"},
                             {"fake_ep_plugin": EP_PLUGIN})
    python_path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    # A process of its own: the entry points are found on its PYTHONPATH, and tracing is read from its environment.
    hub = hub_factory("hub", env={"PYTHONPATH": python_path, "LINEUP_TRACE_PLUGINS": "1"}, process=True)

    info = plugins_json(hub)
    plugins = loaded(info)
    assert plugins["fake_ep"]["origin"] == "entrypoint:lineup-fake-ep" and plugins["fake_ep"]["version"] == "0.4.0"
    assert plugins["fake_ep"]["hooks"] == ["after_commit", "register_tools", "startup"]
    assert plugins["canvas"]["origin"] == "builtin"  # an entry point cannot take a built-in's name
    (broken,) = failures(info)["fake_broken_ep"]
    assert broken["origin"] == "entrypoint:lineup-fake-ep" and "ModuleNotFoundError" in broken["reason"]

    token = hub.token()
    agent = await lap(hub, "agent", pair_agent(hub, token)["credential"])
    await agent.ok("tool.call", {"call_id": "ep1", "name": "ep_tool", "arguments": {"n": 21}})
    assert (await agent.event("tool.result", call_id="ep1"))["payload"]["result"]["message"] == "42"

    # LINEUP_TRACE_PLUGINS=1: the hub's log shows the hook calls, each with the plugin it went to.
    log = hub.log()
    traced = set()
    for line in log.splitlines():  # "[lineup plugins] register_tools -> fake_ep [hook]"
        if line.startswith("[lineup plugins] ") and " -> " in line:
            hook, _, plugin = line.removeprefix("[lineup plugins] ").removesuffix(" [hook]").partition(" -> ")
            traced.add((hook.strip(), plugin))
    assert {("startup", "fake_ep"), ("register_tools", "fake_ep"), ("register_tools", "calculator"),
            ("after_commit", "fake_ep"), ("register_runtimes", "runtimes"),
            ("register_ui_modules", "canvas")} <= traced, traced

    # `lineup plugins` finds the same entry points.
    listing = run_cli(hub.data_dir, "plugins", env={"PYTHONPATH": python_path})
    assert any(line.split()[:2] == ["fake_ep", "entrypoint:lineup-fake-ep"] for line in listing.stdout.splitlines())
    assert "fake_broken_ep" in listing.stderr
