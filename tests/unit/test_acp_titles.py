"""ACP tool-call titles as the hub shows them: plain text, not a Markdown code span."""

from __future__ import annotations

from acp.schema import PermissionOption, ToolCallUpdate

from hub.acp.permission import approval_card
from hub.acp.text import plain_title


def test_a_command_titled_as_one_code_span_loses_its_backticks() -> None:
    # Walking through with the real claude-code-acp, the phone's card read "Allow `echo acp > acp.txt`?" and the
    # task's progress "Tool: `echo acp > acp.txt`": card titles and progress lines are plain text.
    assert plain_title("`echo acp > acp.txt`") == "echo acp > acp.txt"
    assert plain_title("Delete build/") == "Delete build/"
    assert plain_title("Run `make` then `make install`") == "Run `make` then `make install`"  # not one span
    assert plain_title("``") == "``"


def test_the_approval_card_title_is_plain() -> None:
    tool_call = ToolCallUpdate(tool_call_id="t1", title="`echo acp > acp.txt`", kind="execute")
    options = [PermissionOption(option_id="a", name="Allow", kind="allow_once"),
               PermissionOption(option_id="r", name="Reject", kind="reject_once")]
    card, _ = approval_card(plain_title(tool_call.title or ""), tool_call, options)
    assert card["title"] == "Allow echo acp > acp.txt?"
