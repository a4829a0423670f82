"""The `subprocess` runtime: agents of `<data dir>/lineup.toml` that the hub supervises, one process per task.

The hub is started with `[[agents]]` entries whose command is a small Python script; the person talks to them
from an app socket like to any agent. The script does what the task's title says (see RUNNER).
"""

from __future__ import annotations

import asyncio
import json
import stat
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import httpx
import psutil
import pytest

from tests.integration.test_sdk import FAST_ENV, Api, eventually
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient

# argv[1] is the task's title: "count", "fail <code>", "hang [stubborn]", "big <bytes>", "die".
RUNNER = r"""
import os, signal, subprocess, sys, time
words = sys.argv[1].split()
kind = words[0]
if kind == "count":
    for i in range(3):
        print(f"line {i}", flush=True)
        time.sleep(0.4)
    print("all counted", flush=True)
elif kind == "fail":
    print("something broke", flush=True)
    sys.exit(int(words[1]))
elif kind == "hang":
    if "stubborn" in words:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.path.join(os.environ["PID_DIR"], "pids.tmp"), "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    os.replace(os.path.join(os.environ["PID_DIR"], "pids.tmp"), os.path.join(os.environ["PID_DIR"], "pids"))
    sys.stdout.write("working\n")  # one write: the test cancels as soon as it sees it
    sys.stdout.flush()
    time.sleep(120)
elif kind == "big":
    sys.stdout.write("x" * int(words[1]))
    sys.stdout.write("\nend\n")
    sys.stdout.flush()
elif kind == "die":
    print("going down", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""

MAX_OUTPUT = 1000  # Runner's max_output_bytes
PAGE = 4096        # Pager's: the size of one read of the output, so the limit falls on a chunk boundary


def lineup_toml(pid_dir: Path) -> str:
    runner = json.dumps([sys.executable, "-c", RUNNER, "{title}"])
    return f"""
[[agents]]
name = "Runner"
runtime = "subprocess"
command = {runner}
env = {{ PID_DIR = {json.dumps(str(pid_dir))} }}
max_output_bytes = {MAX_OUTPUT}
kill_grace_s = 0.5

[[agents]]
name = "Pager"
runtime = "subprocess"
command = {runner}
max_output_bytes = {PAGE}

[[agents]]
name = "Broken"
runtime = "subprocess"
command = ["/nonexistent/lineup-test-binary", "--flag"]

[[agents]]
name = "Ghost"
runtime = "no-such-runtime"
command = ["true"]
"""


class Site:
    def __init__(self, hub: HubProcess, token: str, app: LapClient, agents: dict[str, dict[str, Any]],
                 pid_dir: Path) -> None:
        self.hub = hub
        self.token = token
        self.api = Api(hub, token)
        self.app = app
        self.agents = agents
        self.pid_dir = pid_dir
        self._conversations: dict[str, str] = {}

    async def task(self, agent: str, task_id: str, title: str) -> None:
        """Create a task for a supervised agent in its own conversation, from the app socket."""
        if agent not in self._conversations:
            conversation_id = f"c-{agent.lower()}"
            await self.app.ok("conversation.create", {"title": agent, "agentIds": [self.agents[agent]["id"]]},
                              conversationId=conversation_id)
            self._conversations[agent] = conversation_id
        await self.app.ok("task.create", {"title": title}, conversationId=self._conversations[agent], taskId=task_id)

    async def ended(self, task_id: str, status: str, timeout: float = 15.0) -> dict[str, Any]:
        return await self.app.event("task.status_changed", taskId=task_id, status=status, timeout=timeout)

    async def output(self, task_id: str) -> dict[str, Any]:
        """The stored message holding the task's output."""
        return await self.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                       and f.get("taskId") == task_id)

    def deltas(self, message_id: str) -> list[dict[str, Any]]:
        return [f["payload"] for f in self.app.frames if f["type"] == "message.delta"
                and f["payload"]["messageId"] == message_id]


async def online_agents(api: Api) -> dict[str, dict[str, Any]]:
    agents = {a["name"]: a for a in (await api.get("/api/agents"))["agents"]}
    if all(agents.get(name, {}).get("status") == "online" for name in ("Runner", "Pager", "Broken")):
        return agents
    return {}


@pytest.fixture
async def site(hub_factory: HubFactory, tmp_path: Path) -> AsyncIterator[Site]:
    hub = hub_factory("hub", env=FAST_ENV, start=False)
    token = hub.token()  # creates the workspace the supervised agents join
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    (hub.data_dir / "lineup.toml").write_text(lineup_toml(pid_dir))
    hub.start()
    api = Api(hub, token)
    agents = await eventually(lambda: online_agents(api), timeout=15, what="the supervised agents online")
    app = await LapClient.connect(hub.ws_base, "app", token)
    site = Site(hub, token, app, agents, pid_dir)
    yield site
    await site.app.close()


def gone(pid: int) -> bool:
    try:
        return cast(bool, psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)  # dead, only not yet reaped by its parent
    except psutil.NoSuchProcess:
        return True


async def test_the_configured_agents_are_supervised(site: Site) -> None:
    runner, broken = site.agents["Runner"], site.agents["Broken"]
    assert (runner["runtime"], runner["agentVersion"]) == ("subprocess", "supervised")
    assert broken["runtime"] == "subprocess"
    assert "Ghost" not in site.agents  # its runtime does not exist: reported, and the others still run
    described = (await asyncio.to_thread(httpx.get, site.hub.base + "/-/plugins.json", timeout=10)).json()
    assert "subprocess" in described["runtimes"]
    rows = {row["name"]: row for row in described["agents"]}
    assert rows["Runner"]["connected"] is True and rows["Runner"]["agentId"] == runner["id"]
    assert "no-such-runtime" in rows["Ghost"]["problem"]
    credential = site.hub.data_dir / "agents" / "runner.credential.json"
    assert stat.S_IMODE(credential.stat().st_mode) == 0o600

    # A restarted hub keeps the same agents: the stored credentials are used, nothing is paired again.
    await site.app.close()
    site.hub.stop()
    site.hub.start()
    again = await eventually(lambda: online_agents(site.api), timeout=15, what="the agents back online")
    assert {name: a["id"] for name, a in again.items()} == {name: a["id"] for name, a in site.agents.items()}
    site.app = await LapClient.connect(site.hub.ws_base, "app", site.token)


async def test_a_task_runs_the_command_and_streams_its_output(site: Site) -> None:
    await site.task("Runner", "t-count", "count")
    first = await site.app.wait_for(lambda f: f["type"] == "message.delta", timeout=15)
    first_at = time.monotonic()
    assert first.get("sequence") is None and first["taskId"] == "t-count"
    message = await site.output("t-count")
    assert time.monotonic() - first_at > 0.5  # the first line was shown while the command was still running
    content = message["payload"]["content"]
    assert content == "line 0\nline 1\nline 2\nall counted\n"
    deltas = site.deltas(message["payload"]["messageId"])
    assert len(deltas) >= 2
    assert "".join(d["text"] for d in deltas) == content
    assert [d["offset"] for d in deltas] == [sum(len(d["text"]) for d in deltas[:i]) for i in range(len(deltas))]
    done = await site.ended("t-count", "succeeded")
    assert done["payload"]["summary"] == "all counted"
    assert done["sequence"] > message["sequence"]
    assert (await site.api.get("/api/tasks/t-count"))["task"]["status"] == "succeeded"


async def test_a_failing_command_fails_the_task_with_its_exit_code(site: Site) -> None:
    await site.task("Runner", "t-fail", "fail 3")
    failed = await site.ended("t-fail", "failed")
    error = failed["payload"]["error"]
    assert error["code"] == "exit_3"
    assert "exited with 3" in error["message"] and "something broke" in error["message"]
    assert (await site.output("t-fail"))["payload"]["content"] == "something broke\n"

    await site.task("Runner", "t-die", "die")
    died = await site.ended("t-die", "failed")
    assert died["payload"]["error"]["code"] == "signal_9"

    await site.task("Runner", "t-zero", "fail 0")
    await site.ended("t-zero", "succeeded")


async def test_a_command_that_cannot_start_fails_the_task(site: Site) -> None:
    await site.task("Broken", "t-broken", "anything")
    failed = await site.ended("t-broken", "failed")
    assert failed["payload"]["error"]["code"] == "spawn_failed"
    assert "/nonexistent/lineup-test-binary" in failed["payload"]["error"]["message"]


async def pids(site: Site) -> tuple[int, int]:
    path = site.pid_dir / "pids"
    await eventually(path.exists, what="the command writing its pids")
    parent, child = (int(p) for p in path.read_text().split())
    path.unlink()
    return parent, child


@pytest.mark.parametrize("title", ["hang", "hang stubborn"])
async def test_cancel_ends_the_task_and_the_whole_process_group(site: Site, title: str) -> None:
    await site.task("Runner", "t-hang", title)
    process, grandchild = await pids(site)
    await site.app.wait_for(lambda f: f["type"] == "message.delta" and "working" in f["payload"]["text"])
    assert not gone(process) and not gone(grandchild)

    began = time.monotonic()
    await site.app.ok("task.cancel_requested", {"reason": "stop"}, taskId="t-hang")
    cancelled = await site.ended("t-hang", "cancelled", timeout=10)
    # SIGTERM at once; the stubborn one gets SIGKILL after kill_grace_s (0.5 s). Never the 5 s cancel timeout.
    assert time.monotonic() - began < 3
    assert cancelled["payload"].get("cause") != "cancel_timeout"
    assert gone(process), "the command outlived its cancelled task"
    await eventually(lambda: gone(grandchild), timeout=5, what="the command's own child ending too")
    assert (await site.output("t-hang"))["payload"]["content"] == "working\n"


async def test_stopping_the_hub_ends_running_commands_promptly(site: Site) -> None:
    await site.task("Runner", "t-hang", "hang")
    process, grandchild = await pids(site)
    await site.app.close()
    began = time.monotonic()
    code = await asyncio.to_thread(site.hub.stop)
    # A graceful stop: not the SIGKILL HubProcess.stop sends after waiting 15 s.
    assert code == 0 and time.monotonic() - began < 5
    assert gone(process)
    await eventually(lambda: gone(grandchild), timeout=5, what="the command's own child ending too")


async def test_a_task_cut_short_by_a_hub_restart_does_not_stay_running(site: Site) -> None:
    await site.task("Runner", "t-hang", "hang")
    await pids(site)
    await site.app.close()
    await asyncio.to_thread(site.hub.stop)
    await asyncio.to_thread(site.hub.start)
    await eventually(lambda: online_agents(site.api), timeout=15, what="the agents back online")
    site.app = await LapClient.connect(site.hub.ws_base, "app", site.token)

    async def settled() -> bool:
        return bool((await site.api.get("/api/tasks/t-hang"))["task"]["status"] != "running")

    await eventually(settled, timeout=5, what="the interrupted task ending (failed or re-run)")
    task = (await site.api.get("/api/tasks/t-hang"))["task"]
    assert task["status"] == "failed" and task["error"]["code"] == "runtime_restarted"


async def test_output_over_the_limit_is_truncated_with_a_note(site: Site) -> None:
    await site.task("Runner", "t-big", "big 300000")  # more than a pipe holds: it must keep being drained
    done = await site.ended("t-big", "succeeded")
    assert done["payload"]["summary"] == "end"  # the whole output was read: the last line is known
    content = (await site.output("t-big"))["payload"]["content"]
    assert content == "x" * MAX_OUTPUT + f"\n[output truncated after {MAX_OUTPUT} bytes]\n"

    await site.task("Runner", "t-small", f"big {MAX_OUTPUT - 10}")  # under the limit: all of it
    await site.ended("t-small", "succeeded")
    assert (await site.output("t-small"))["payload"]["content"] == "x" * (MAX_OUTPUT - 10) + "\nend\n"


async def test_truncation_is_noted_when_the_limit_falls_on_a_chunk_boundary(site: Site) -> None:
    await site.task("Pager", "t-pages", f"big {5 * PAGE}")
    await site.ended("t-pages", "succeeded")
    content = (await site.output("t-pages"))["payload"]["content"]
    assert content.startswith("x" * PAGE)
    assert f"[output truncated after {PAGE} bytes]" in content
    assert len(content) < PAGE + 100
