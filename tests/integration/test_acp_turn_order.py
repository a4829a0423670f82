"""An ACP agent's turn as the conversation shows it: each text segment its own message, in the order things happened
with its tool calls and cards; each tool call one message with a line of words and a tool block (what it read by
name only, an edit with its diff and counts, a secret file's counts only, a command with its exit code and the last
lines of its output); Stop marks the message it cut. tests/support/tool_acp_agent.py plays the agent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

from tests.integration.conftest import Connect
from tests.integration.test_runtime_acp import AcpHub
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.live import Api, eventually

TOOL_AGENT = Path(__file__).resolve().parents[1] / "support" / "tool_acp_agent.py"


async def start_tool_hub(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> AcpHub:
    hub: HubProcess = hub_factory(start=False)
    token = hub.token()
    agent_log = tmp_path / "acp-agent.jsonl"
    (hub.data_dir / "lineup.toml").write_text("\n".join([
        "[[agents]]", 'name = "Scripted"', 'runtime = "acp"',
        f"command = [{json.dumps(sys.executable)}, {json.dumps(str(TOOL_AGENT))}]",
        f"env = {{ ACP_TEST_LOG = {json.dumps(str(agent_log))} }}", ""]))
    hub.start()
    api = Api(hub, token)

    async def online() -> str | None:
        agents = (await api.get("/api/agents"))["agents"]
        return next((a["id"] for a in agents if a["name"] == "Scripted" and a["status"] == "online"), None)

    h = AcpHub(hub, api, await lap(hub, "app", token), await eventually(online, timeout=20), agent_log)
    await h.conversation("c1")
    return h


async def stream(h: AcpHub) -> list[dict[str, Any]]:
    """The conversation as stored, in the order the app lays it out: messages and cards by when they were made."""
    messages = (await h.api.get("/api/conversations/c1/messages"))["messages"]
    cards = [i for i in (await h.api.get("/api/interactions"))["interactions"] if i.get("conversationId") == "c1"]
    items = [{"at": m["createdAt"], "message": m} for m in messages] + \
        [{"at": c["createdAt"], "card": c} for c in cards]
    return [item for item in sorted(items, key=lambda item: item["at"])]


def tool_of(message: dict[str, Any]) -> dict[str, Any] | None:
    return next((b for b in message.get("blocks") or [] if b.get("type") == "tool"), None)


async def test_text_and_tool_calls_in_the_order_they_happened(hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_tool_hub(hub_factory, lap, tmp_path)
    await h.app.ok("message.create", {"content": "work"}, conversationId="c1")
    card = (await h.app.event("interaction.requested", 15, conversationId="c1"))["payload"]["interaction"]
    await h.app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "allow_once"}})
    await h.reply(lambda text: text == "All 3 tests pass.")

    items = [item for item in await stream(h) if (item.get("message") or {}).get("author", {}).get("kind") != "user"]
    said = [("card" if "card" in item else "tool" if tool_of(item["message"]) else "text",
             item["card"]["title"] if "card" in item else item["message"]["content"]) for item in items]
    assert [kind for kind, _ in said] == ["text", "tool", "text", "tool", "card", "tool", "tool", "text"], said
    texts = [content for kind, content in said if kind == "text"]
    assert texts == ["I'll read the tests first.", "I'll add a test.", "All 3 tests pass."]  # none run together
    assert said[-1] == ("text", "All 3 tests pass.")  # the final answer is the last thing

    tools = cast(list[dict[str, Any]], [tool_of(item["message"]) for item in items if "message" in item and tool_of(item["message"])])
    read, edit, run, secret = tools
    assert read["kind"] == "read" and read["paths"] == ["src/app.py"] and "output" not in read
    assert "what the agent read" not in json.dumps(read)  # a read keeps the file's name only
    assert said[1][1] == "Read src/app.py"
    [change] = edit["changes"]
    assert (change["path"], change["added"], change["removed"]) == ("tests/test_app.py", 5, 1)
    assert "+    assert app.add(1, 2) == 3" in change["diff"]
    assert said[3][1] == "Edited tests/test_app.py (+5 −1)"
    assert run["command"] == "python -m pytest -q" and run["exitCode"] == 0 and run["status"] == "completed"
    assert said[5][1] == "Ran `python -m pytest -q` → exit 0"
    output = run["output"]
    assert output["text"].endswith("3 passed in 0.12s") and output["lines"] == 80 and output["cut"]
    assert output["keptLines"] == 60 and "collecting line 1\n" not in output["text"]
    [hidden] = secret["changes"]
    assert hidden == {"path": ".env", "added": 1, "removed": 0, "created": True, "hidden": "secret"}
    assert "hunter2" not in json.dumps(await h.api.get("/api/conversations/c1/messages"))


async def test_a_failed_command_shows_its_exit_code_and_stop_marks_the_cut_message(
        hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_tool_hub(hub_factory, lap, tmp_path)
    await h.app.ok("message.create", {"content": "failing"}, conversationId="c1")
    failed = await h.reply(lambda text: text.startswith("Ran `npm test`"))
    block = tool_of(failed["payload"])
    assert failed["payload"]["content"] == "Ran `npm test` → exit 1"
    assert block is not None and block["status"] == "failed" and block["exitCode"] == 1
    assert block["output"]["text"].endswith("AssertionError: 1 == 2")
    await h.reply(lambda text: text == "The test fails.")

    await h.task("t-stop", "talk_then_wait")
    await h.app.wait_for(lambda f: f["type"] == "message.delta" and f.get("taskId") == "t-stop", 15)
    await h.app.ok("task.cancel_requested", {}, taskId="t-stop", conversationId="c1")
    cut = await h.reply(lambda text: text == "Let me look at this slowly.", task_id="t-stop")
    assert cut["payload"].get("blocks") == [{"type": "stopped"}]
