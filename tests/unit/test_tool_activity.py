"""What a tool did, as one message (hub/sdk/activity.py): Claude Code's PostToolUse events (hub/connect/
tool_activity.py) and ACP tool calls (hub/acp/activity.py) become a line of words and a bounded tool block; a read
keeps the file's name only, a secret file its counts only."""

from __future__ import annotations

import json

import pytest

from hub.connect import tool_activity
from hub.sdk import activity

CWD = "/home/ada/proj"


def post(tool: str, tool_input: dict[str, object], response: object) -> dict[str, object]:
    return {"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": CWD, "tool_name": tool,
            "tool_input": tool_input, "tool_response": response, "tool_use_id": "toolu_01ABC"}


def test_a_command_keeps_its_exit_code_and_the_last_lines_of_its_output() -> None:
    stdout = "".join(f"line {n}\n" for n in range(1, 101)) + "OK\n"
    said = tool_activity.message(post("Bash", {"command": "npm test"},
                                      {"stdout": stdout, "stderr": "", "interrupted": False}))
    assert said["content"] == "Ran `npm test` → exit 0"
    [block] = said["blocks"]
    assert (block["type"], block["kind"], block["command"], block["exitCode"]) == ("tool", "execute", "npm test", 0)
    output = block["output"]
    assert output["text"].endswith("line 100\nOK") and output["text"].startswith("line 42\n")
    assert (output["lines"], output["keptLines"], output["cut"]) == (101, 60, True)


def test_output_is_bounded_in_bytes_and_never_cut_inside_a_character() -> None:
    tail = activity.output_tail("é" * 20_000 + "\nend\n")
    assert tail is not None and len(tail["text"].encode()) <= activity.OUTPUT_BYTES and tail["text"].endswith("end")
    assert tail["cut"] and tail["bytes"] == 40_005


def test_an_edit_shows_its_diff_and_counts() -> None:
    hunk = {"oldStart": 3, "oldLines": 2, "newStart": 3, "newLines": 4,
            "lines": [" def add(a, b):", "-    return a - b", "+    return a + b", "+", "+# fixed"]}
    said = tool_activity.message(post("Edit", {"file_path": f"{CWD}/src/app.py", "old_string": "a - b",
                                               "new_string": "a + b"},
                                      {"filePath": f"{CWD}/src/app.py", "structuredPatch": [hunk]}))
    assert said["content"] == "Edited src/app.py (+3 −1)"
    [change] = said["blocks"][0]["changes"]
    assert (change["path"], change["added"], change["removed"]) == ("src/app.py", 3, 1)
    assert "@@ -3,2 +3,4 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n" in change["diff"]


def test_a_secret_file_keeps_its_counts_only_and_a_read_its_name_only() -> None:
    wrote = tool_activity.message(post("Write", {"file_path": f"{CWD}/.env", "content": "TOKEN=hunter2\nB=2\n"},
                                       {"type": "create", "filePath": f"{CWD}/.env", "content": "TOKEN=hunter2\nB=2\n",
                                        "structuredPatch": []}))
    assert wrote["content"] == "Created .env (+2 −0)"
    assert wrote["blocks"][0]["changes"] == [{"path": ".env", "added": 2, "removed": 0, "created": True,
                                              "hidden": "secret"}]
    assert "hunter2" not in json.dumps(wrote)
    read = tool_activity.message(post("Read", {"file_path": f"{CWD}/src/app.py"},
                                      {"type": "text", "file": {"filePath": f"{CWD}/src/app.py",
                                                                "content": "PASSWORD = 'x'"}}))
    assert read["content"] == "Read src/app.py"
    assert read["blocks"][0]["paths"] == ["src/app.py"] and "PASSWORD" not in json.dumps(read)


def test_diffs_beyond_their_budget_keep_their_counts() -> None:
    big = "".join(f"row {n}\n" for n in range(5000))
    changes = [activity.file_change(f"{CWD}/a.txt", None, "one\n", CWD),
               activity.file_change(f"{CWD}/big.txt", None, big, CWD)]
    block = activity.record("edit", "Write", "completed", changes=changes, cwd=CWD)
    small, large = block["changes"]
    assert "diff" in small and "diff" not in large and large["hidden"] == "too_large" and large["added"] == 5000
    assert activity.summary(block) == "Edited 2 files (+5001 −0)"


@pytest.mark.parametrize(("status", "ending"), [("failed", " → failed"), ("denied", " → not run: the person said no"),
                                                ("stopped", " → stopped")])
def test_how_a_call_ended_is_said(status: str, ending: str) -> None:
    block = activity.record("delete", "Delete build/", status, paths=[f"{CWD}/build"], cwd=CWD)
    assert activity.summary(block) == f"Deleted build{ending}"
