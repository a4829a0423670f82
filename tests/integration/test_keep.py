"""`lineup keep -- COMMAND`: an agent's program started again after a crash, so an agent killed while its person is
away comes back by itself and resumes its task. A real hub, the real demo agent under the real keeper, killed with
SIGKILL as a crash would end it; then the keeper's own rules (ends well, crash loop, stopped by the person)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil

from tests.integration.test_demo_agent import Stage, stage  # noqa: F401 - the fixture is used by name
from tests.support.polling import eventually


def keeper(args: list[str], log: Path, options: tuple[str, ...] = ()) -> subprocess.Popen[str]:
    with open(log, "a") as out:
        return subprocess.Popen([sys.executable, "-m", "hub", "keep", *options, "--", *args], stdout=out,
                                stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def kept_child(proc: subprocess.Popen[str]) -> psutil.Process | None:
    children = psutil.Process(proc.pid).children()
    return children[0] if children else None


async def test_a_killed_agent_is_started_again_and_resumes_its_task(stage: Stage) -> None:
    folder = stage.tmp / "kept"
    folder.mkdir()
    log = folder / "keep.log"
    code = await stage.api.code("Demo agent")
    mark = len(stage.app.frames)
    # The task waits for the person's answer later on, so it is unfinished whenever the kill comes. The connect
    # dialog's one line: the hub and the code go to the keeper, which hands them to the program (LINEUP_HUB,
    # LINEUP_CODE), whose pair_or_load reads them; the program's own command line names neither.
    proc = keeper([sys.executable, "-m", "hub", "demo-agent", "--credential-file", str(folder / "demo.json"),
                   "--step-seconds", "1"], log, options=("--hub", stage.hub.base, "--code", code))
    try:
        paired = await stage.app.wait_for(lambda f: f["type"] == "agent.paired", start=mark, timeout=30)
        agent_id = paired["payload"]["agentId"]
        await stage.task(agent_id)
        await stage.status("t-demo", "running", timeout=30)
        first = await eventually(lambda: kept_child(proc), what="the demo agent under the keeper")

        mark = len(stage.app.frames)
        first.send_signal(signal.SIGKILL)  # a crash: nothing of the agent's own runs
        await stage.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["agentId"] == agent_id
                                 and f["payload"]["status"] == "offline", start=mark, timeout=30)
        # The keeper starts it again: the same agent (its credential), online, and the task goes on to the question.
        await stage.app.wait_for(lambda f: f["type"] == "agent.status_changed" and f["payload"]["agentId"] == agent_id
                                 and f["payload"]["status"] == "online", start=mark, timeout=30)
        second = kept_child(proc)
        assert second is not None and second.pid != first.pid
        interaction = await stage.approval()
        await stage.app.ok("interaction.respond", {"interactionId": interaction["id"],
                                                   "response": {"optionId": "approve"}})
        await stage.status("t-demo", "succeeded", timeout=60)
        agents = (await stage.api.get("/api/agents"))["agents"]
        assert [a["id"] for a in agents] == [agent_id]  # not a second agent
        said = log.read_text()
        assert "was killed (SIGKILL)" in said and "starting it again in 1 s" in said, said

        # Stopped by the person (SIGTERM, as a service manager or Ctrl-C would): the agent is asked to stop, the keeper
        # does not start it again, and ends with 0.
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
        assert not second.is_running() or second.status() == psutil.STATUS_ZOMBIE
    finally:
        if proc.poll() is None:
            for child in psutil.Process(proc.pid).children(recursive=True):
                child.kill()
            proc.kill()
            proc.wait()


def run_keep(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hub", "keep", "--", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_a_program_that_ends_well_is_not_started_again(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    done = run_keep(sys.executable, "-c", f"open({str(runs)!r}, 'a').write('x')")
    assert done.returncode == 0, done.stderr
    assert runs.read_text() == "x"
    assert "ended on its own (exit code 0); not starting it again" in done.stderr


def test_a_program_that_keeps_crashing_is_given_up_with_its_code() -> None:
    from hub import keep

    # A clock the keeper's pauses move forward, so no real pause is waited (nor spun through).
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    said: list[str] = []
    keeper_ = keep.Keeper([sys.executable, "-c", "import sys; sys.exit(3)"], say=said.append, sleep=sleep,
                          clock=lambda: now[0])
    assert keeper_.run() == 3
    assert keeper_.starts == keep.CRASH_LOOP
    assert "exited with code 3 5 times in a row" in said[-1], said
    # The pauses grow while it keeps crashing: 1, 2, 4, 8 s were announced.
    assert [line.split("starting it again in ")[1].split(" s")[0] for line in said[:-1]] == ["1", "2", "4", "8"], said
    assert round(sum(slept)) == 1 + 2 + 4 + 8, slept


def test_a_program_that_cannot_start_is_said_as_such(tmp_path: Path) -> None:
    done = run_keep(str(tmp_path / "no-such-program"))
    assert done.returncode == 127
    assert "cannot start no-such-program" in done.stderr


def test_keep_without_a_program_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "hub", "keep"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "Missing argument" in done.stderr or "which program" in done.stderr
