"""The runtimes the hub runs (`[[agents]]`) when something goes wrong: the task ends with a clear error, never
"Running" for ever (issue "When something goes wrong, the person sees it", item 1).

A real hub supervises the agents of its lineup.toml: the `subprocess` runtime with a small Python script, the
`acp` runtime with the scripted ACP agent (tests/support/acp_agent.py); the person is an app socket.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import Connect
from tests.integration.test_sdk import FAST_ENV, Api, eventually
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient

# argv[-1] is the task's text: "flood <n>" writes n bytes of output, anything else one line.
RUNNER = r"""
import sys
words = sys.argv[-1].split()
if words and words[0] == "flood":
    sys.stdout.write("y" * int(words[1]))
    sys.stdout.write("\nend\n")
    sys.stdout.flush()
else:
    print("ran", flush=True)
"""


async def subprocess_site(hub_factory: HubFactory, lap: Connect) -> tuple[HubProcess, Api, LapClient, str]:
    """A hub running one subprocess agent with the default limits; its app socket and a conversation `c1`."""
    hub: HubProcess = hub_factory("hub", env=FAST_ENV, start=False)
    token = hub.token()
    command = json.dumps([sys.executable, "-c", RUNNER])  # no placeholder: the task's text is the last argument
    (hub.data_dir / "lineup.toml").write_text(f'[[agents]]\nname = "Plain"\nruntime = "subprocess"\n'
                                              f"command = {command}\n")
    hub.start()
    api = Api(hub, token)

    async def online() -> str | None:
        agents = (await api.get("/api/agents"))["agents"]
        return next((a["id"] for a in agents if a["name"] == "Plain" and a["status"] == "online"), None)

    agent_id = await eventually(online, timeout=20, what="the supervised agent online")
    app = await lap(hub, "app", token)
    await app.ok("conversation.create", {"title": "Plain", "agentIds": [agent_id]}, conversationId="c1")
    return hub, api, app, agent_id


async def test_a_command_that_cannot_be_started_with_the_tasks_text_fails_the_task(hub_factory: HubFactory,
                                                                                    lap: Connect) -> None:
    """A description holding a NUL character cannot be a command-line argument: the runtime raised ValueError."""
    _, api, app, _ = await subprocess_site(hub_factory, lap)
    await app.ok("task.create", {"title": "Summarise", "description": "pasted\u0000binary"}, conversationId="c1",
                 taskId="t-nul")
    failed = await app.event("task.status_changed", 15, taskId="t-nul", status="failed")
    error = failed["payload"]["error"]
    assert error["code"] == "spawn_failed"
    assert "NUL" in error["message"] and "Traceback" not in error["message"]
    assert (await api.get("/api/tasks/t-nul"))["task"]["status"] == "failed"


async def test_output_over_what_a_message_holds_is_cut_and_the_task_finishes(hub_factory: HubFactory,
                                                                              lap: Connect) -> None:
    """The default max_output_bytes (256 KiB) plus the note did not fit in one message (256 KiB): the final
    message was refused and the task stayed running."""
    _, api, app, _ = await subprocess_site(hub_factory, lap)
    await app.ok("task.create", {"title": "flood 300000"}, conversationId="c1", taskId="t-flood")
    done = await app.event("task.status_changed", 30, taskId="t-flood", status="succeeded")
    assert done["payload"]["summary"] == "end"
    message = await app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                 and f.get("taskId") == "t-flood", 15)
    content = message["payload"]["content"]
    assert len(content) <= 256 * 1024 and content.rstrip().endswith("bytes]")
    assert "[output truncated after" in content


async def test_an_acp_agent_that_dies_while_its_question_waits_fails_the_task(hub_factory: HubFactory, lap: Connect,
                                                                              tmp_path: Path) -> None:
    pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")
    from tests.integration.test_runtime_acp import start_acp_hub

    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t-die", "die_waiting 0.5")
    spec = await h.interaction("t-die")
    died = await h.ended("t-die", "failed")
    assert died["error"]["code"] == "agent_exited"
    assert "exited with code 3" in died["error"]["message"]
    detail = await h.api.get("/api/tasks/t-die")
    assert detail["task"]["status"] == "failed"
    [question] = detail["interactions"]
    assert question["id"] == spec["id"] and question["status"] == "cancelled"  # no card left to approve

    # The next task starts the agent again.
    await h.task("t-next", "still there?")
    await h.ended("t-next", "succeeded")


async def test_an_acp_turn_whose_answer_the_runtime_cannot_read_fails_the_task(hub_factory: HubFactory, lap: Connect,
                                                                               tmp_path: Path) -> None:
    pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")
    from tests.integration.test_runtime_acp import start_acp_hub

    h = await start_acp_hub(hub_factory, lap, tmp_path)
    await h.task("t-odd", "bad_stop")
    failed = await h.ended("t-odd", "failed")
    assert failed["error"]["code"] == "runtime_error"
    assert failed["error"]["message"].startswith("ValidationError: ") and "exploded" in failed["error"]["message"]
    assert "Traceback" not in failed["error"]["message"]
