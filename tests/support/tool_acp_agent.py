"""The scripted ACP agent (tests/support/acp_agent.py) with turns that use tools as coding agents do.

Run as `python tests/support/tool_acp_agent.py`. Besides everything acp_agent.py does, by the prompt's first word:

- `work`: says "I'll read the tests first." (in two chunks, without a message id), reads `src/app.py` (a read tool
  call whose output is the file's text), says "I'll add a test.", edits `tests/test_app.py` (three lines added, one
  removed), asks permission to run `python -m pytest -q` with claude-code-acp's options, runs it (80 lines of output,
  the last "3 passed in 0.12s"; exit 0 in its raw output), writes `.env` (a secret), and ends "All 3 tests pass.";
- `failing`: runs `npm test`, which fails the way claude-code-acp reports it ("Exit code 1" and the output in a
  fence), then says "The test fails.";
- `talk_then_wait`: says "Let me look at this slowly." and waits until `session/cancel` (the person's Stop).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, cast

import acp
from acp import PromptResponse, start_tool_call, text_block, tool_content, update_agent_message_text, update_tool_call
from acp.schema import FileEditToolCallContent, PermissionOption, ToolCallLocation, ToolCallProgress, ToolCallStart

sys.path.insert(0, os.path.dirname(__file__))
if TYPE_CHECKING:  # the same module, by its name in the checkout
    from tests.support.acp_agent import ScriptedAgent, record, recorded
else:
    from acp_agent import ScriptedAgent, record, recorded  # the script runs from its own folder

ALLOW = [PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
         PermissionOption(option_id="reject", name="Reject", kind="reject_once")]
OLD_TEST = "import app\n\n\ndef test_old():\n    assert app.VERSION\n"
NEW_TEST = "import app\n\n\ndef test_adds():\n    assert app.add(1, 2) == 3\n\n\ndef test_version():\n    assert app.VERSION\n"
OUTPUT = "\n".join([f"collecting line {n}" for n in range(1, 80)] + ["3 passed in 0.12s"]) + "\n"


class ToolAgent(ScriptedAgent):
    async def chunk(self, session_id: str, text: str) -> None:
        assert self.conn is not None
        await self.conn.session_update(session_id=session_id, update=update_agent_message_text(text))

    async def tool(self, session_id: str, update: ToolCallStart | ToolCallProgress) -> None:
        assert self.conn is not None
        await self.conn.session_update(session_id=session_id, update=update)

    async def do_work(self, session_id: str, rest: str) -> PromptResponse:
        assert self.conn is not None
        cwd = next((e["cwd"] for e in recorded("session/new") if e["sessionId"] == session_id), os.getcwd())
        await self.chunk(session_id, "I'll read the ")
        await self.chunk(session_id, "tests first.")
        read = os.path.join(cwd, "src", "app.py")
        await self.tool(session_id, start_tool_call("call-read", "Read File", kind="read", status="pending",
                                                    locations=[ToolCallLocation(path=read)]))
        await self.tool(session_id, update_tool_call("call-read", status="completed", content=[
            tool_content(text_block("SECRET_IN_SOURCE = 'what the agent read'\n"))]))
        await self.chunk(session_id, "I'll add a test.")
        target = os.path.join(cwd, "tests", "test_app.py")
        diff = FileEditToolCallContent(type="diff", path=target, old_text=OLD_TEST, new_text=NEW_TEST)
        await self.tool(session_id, start_tool_call("call-edit", "Edit `tests/test_app.py`", kind="edit",
                                                    status="pending", content=[diff],
                                                    locations=[ToolCallLocation(path=target)]))
        await self.tool(session_id, update_tool_call("call-edit", status="completed"))
        command = "python -m pytest -q"
        await self.tool(session_id, start_tool_call("call-run", f"`{command}`", kind="execute", status="pending",
                                                    raw_input={"command": command, "description": "Run the tests"}))
        answer = await self.conn.request_permission(
            session_id=session_id, options=ALLOW,
            tool_call=update_tool_call("call-run", title=f"`{command}`", kind="execute", status="pending",
                                       raw_input={"command": command}))
        record("permission/answer", sessionId=session_id, outcome=getattr(answer.outcome, "option_id", "cancelled"))
        if getattr(answer.outcome, "option_id", None) != "allow":
            await self.tool(session_id, update_tool_call("call-run", status="failed", content=[
                tool_content(text_block("The user rejected this tool call."))]))
            await self.chunk(session_id, "I did not run the tests.")
            return PromptResponse(stop_reason="end_turn")
        await self.tool(session_id, update_tool_call("call-run", status="in_progress"))
        await self.tool(session_id, update_tool_call("call-run", status="completed",
                                                     content=[tool_content(text_block(f"```console\n{OUTPUT}```"))],
                                                     raw_output={"exit_code": 0}))
        secret = os.path.join(cwd, ".env")
        await self.tool(session_id, start_tool_call("call-env", "Write .env", kind="edit", status="completed", content=[
            FileEditToolCallContent(type="diff", path=secret, old_text=None, new_text="API_TOKEN=hunter2\n")]))
        await self.chunk(session_id, "All 3 tests pass.")
        return PromptResponse(stop_reason="end_turn")

    async def do_failing(self, session_id: str, rest: str) -> PromptResponse:
        await self.tool(session_id, start_tool_call("call-npm", "`npm test`", kind="execute", status="pending",
                                                    raw_input={"command": "npm test"}))
        await self.tool(session_id, update_tool_call("call-npm", status="failed", content=[tool_content(text_block(
            "```\nExit code 1\n> app@1.0.0 test\n> node test.js\n\nAssertionError: 1 == 2\n```"))]))
        await self.chunk(session_id, "The test fails.")
        return PromptResponse(stop_reason="end_turn")

    async def do_talk_then_wait(self, session_id: str, rest: str) -> PromptResponse:
        await self.chunk(session_id, "Let me look at this slowly.")
        try:
            await asyncio.wait_for(self.cancelled[session_id].wait(), 60)
        except TimeoutError:
            return PromptResponse(stop_reason="end_turn")
        return PromptResponse(stop_reason="cancelled")


if __name__ == "__main__":
    asyncio.run(acp.run_agent(cast(acp.Agent, ToolAgent())))  # a fake: only the methods the tests use
