"""A normal install (a wheel, as `pip install .` or `pipx install .` makes it) serves the app.

The wheel is built from the checkout, installed without `-e` into a fresh virtual environment (its dependencies
come from the test environment's site-packages through a path entry, so nothing is downloaded but the build
backend), and run from a folder outside the checkout, so nothing of the source tree can stand in for what the
wheel lacks: it must serve the app and its versioned modules, list the built-in plugins, install no top-level
name but `hub`, and take a task from a demo agent it runs itself.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from tests.support.hubproc import free_port
from tests.support.polling import eventually_sync

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fresh environment's python, with the wheel installed."""
    folder = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(folder / "dist"),
                            str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (folder / "dist").glob("lineup_agents-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names if not name.startswith("lineup_agents-")} == {"hub"}, \
        sorted({name.split("/")[0] for name in names})
    assert "hub/ui/index.html" in names and "hub/ui/sw.js" in names and "hub/ui/icons/icon-512.png" in names
    # The checkout's plugins/ as files (loaded by path, as any plugins folder), never a package of its own.
    assert "hub/plugins/canvas/static/lineup-canvas.js" in names and "hub/plugins/README.md" in names
    assert "hub/plugins/calculator.py" in names and "hub/plugins/notifiers/mail.py" in names
    assert "hub/plugins/__init__.py" not in names and not [name for name in names if "__pycache__" in name]
    # What `lineup connect hermes` and `lineup connect openclaw` install into those programs; not the channel's sources.
    assert {"hub/integrations/hermes_plugin/lineproto.py", "hub/integrations/hermes_plugin/plugin.yaml",
            "hub/integrations/openclaw-channel/package/dist/index.js",
            "hub/integrations/openclaw-channel/package/package.json"} <= set(names)
    assert not [name for name in names if "/src/" in name or "node_modules" in name]
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The dependencies, not the project: a plain path entry does not run the editable install's finder.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-3000:]
    where = subprocess.run([str(python), "-c", "import hub; print(hub.__file__)"], capture_output=True, text=True,
                           cwd=folder, check=True).stdout.strip()
    assert where.startswith(str(site)), where
    assert not (site / "plugins").exists()
    return python


def test_the_installed_wheel_serves_the_app_and_runs_a_task(installed: Path, tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "data"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    lineup = installed.parent / "lineup"
    (data / "plugins").mkdir(parents=True)  # an author's plugin, in the installed hub's plugins folder
    (data / "plugins" / "dice.py").write_text("from hub import hookimpl\n\n\ndef dice() -> int:\n    \"\"\"Roll.\"\"\"\n"
                                             "    return 4\n\n\n@hookimpl\ndef register_tools():\n    return [dice]\n")
    listed = subprocess.run([str(lineup), "plugins", "--data-dir", str(data)], capture_output=True, text=True,
                            cwd=outside, timeout=60)
    assert listed.returncode == 0, listed.stderr
    for name in ("calculator", "canvas", "choice", "confirm", "input", "review", "runtimes", "notifiers", "dice"):
        assert name in listed.stdout, listed.stdout
    site_hub = Path(subprocess.run([str(installed), "-c", "import hub; print(hub.__file__)"], capture_output=True,
                                   text=True, cwd=outside, check=True).stdout.strip()).parent
    assert f"built-in       {site_hub / 'plugins'}" in listed.stdout, listed.stdout
    carried = subprocess.run([str(installed), "-c", "from hub.connect import integrations as i\n"
                              "print(i.folder(i.OPENCLAW_CHANNEL))\nprint(i.hermes_lineproto().__file__)"],
                             capture_output=True, text=True, cwd=outside, check=True).stdout.split()
    assert carried == [str(site_hub / "integrations" / "openclaw-channel" / "package"),
                       str(site_hub / "integrations" / "hermes_plugin" / "lineproto.py")]
    log = open(tmp_path / "hub.log", "w")  # noqa: SIM115 - closed in finally, after the hub stopped
    hub = subprocess.Popen([str(lineup), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data),
                            "--no-mdns"], cwd=outside, stdout=log, stderr=subprocess.STDOUT)
    demo = None
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(base + "/-/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and hub.poll() is None, (tmp_path / "hub.log").read_text()
            time.sleep(0.2)
        page = httpx.get(base + "/")
        assert page.status_code == 200 and "<lineup-app>" in page.text
        module = re.search(r'"(/v/[0-9a-f]{12}/app\.js)"', page.text)
        assert module and httpx.get(base + module.group(1)).status_code == 200
        assert httpx.get(base + "/manifest.webmanifest").status_code == 200
        canvas = [m["url"] for m in httpx.get(base + "/-/ui-modules.json").json()["modules"] if m["plugin"] == "canvas"]
        assert canvas and httpx.get(base + canvas[0]).status_code == 200

        token = subprocess.run([str(lineup), "token", "--data-dir", str(data)], capture_output=True, text=True,
                               cwd=outside, check=True).stdout.strip()
        auth = {"Authorization": f"Bearer {token}"}
        code = httpx.post(base + "/api/pairing-codes", json={"name": "Demo agent"}, headers=auth).json()["code"]
        demo = subprocess.Popen([str(lineup), "demo-agent", "--hub", base, "--code", code, "--step-seconds", "0.05",
                                 "--credential-file", str(tmp_path / "demo.json")], cwd=outside,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        agent_id = eventually_sync(lambda: [a["id"] for a in httpx.get(base + "/api/agents", headers=auth).json()
                                            ["agents"] if a["status"] == "online"],
                                   what="the demo agent online", timeout=30)[0]
        task_id = create_task_over_socket(base, token, agent_id)
        question = eventually_sync(lambda: httpx.get(base + "/api/inbox", headers=auth).json()["waitingForMe"],
                                   what="the approval card", timeout=30)[0]
        answered = answer_over_socket(base, token, question["id"])
        assert answered
        eventually_sync(lambda: httpx.get(f"{base}/api/tasks/{task_id}", headers=auth).json()["task"]["status"]
                        == "succeeded", what="the task succeeded", timeout=30)
    finally:
        for proc in (demo, hub):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(15)
        log.close()


def _app_call(base: str, token: str, type_: str, payload: dict[str, Any], **fields: str) -> dict[str, Any]:
    """One envelope over /ws/app, as the app sends it; returns the answer (ack or error)."""
    import asyncio

    from tests.support.lap import LapClient

    async def go() -> dict[str, Any]:
        client = await LapClient.connect(base.replace("http", "ws", 1), "app", token)
        try:
            return await client.request(type_, payload, **fields)
        finally:
            await client.close()

    return asyncio.run(go())


def create_task_over_socket(base: str, token: str, agent_id: str) -> str:
    answer = _app_call(base, token, "task.create", {"title": "Migrate", "targetAgentId": agent_id}, taskId="t-wheel")
    assert answer["type"] == "system.ack", answer
    return "t-wheel"


def answer_over_socket(base: str, token: str, interaction_id: str) -> bool:
    answer = _app_call(base, token, "interaction.respond", {"interactionId": interaction_id,
                                                            "response": {"approved": True, "optionId": "approve"}})
    return cast(bool, answer["type"] == "system.ack")
