"""A review whose content starts as a unified diff must be one (hub/domain/interactions.py `diff_problem`): the app
shows a diff as a diff (ui/lib/diff.js parseUnifiedDiff) and anything it cannot parse as plain text, so a
malformed diff is refused to the agent instead of reaching the person as a wall of +/- text."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from hub.domain.interactions import normalize_spec
from hub.domain.unified_diff import diff_problem
from hub.protocol.errors import LapError
from hub.protocol.payloads import InteractionSpec, parse_payload

NOW = datetime(2026, 7, 24, 12, 0, tzinfo=UTC)

GOOD = """diff --git a/app.py b/app.py
index 1c2d3e4..5f6a7b8 100644
--- a/app.py
+++ b/app.py
@@ -1,3 +1,4 @@
 import os
-DEBUG = True
+DEBUG = False
+PORT = 8080
 print(os.getcwd())
"""


def review(content: str) -> dict[str, Any]:
    parsed: InteractionSpec = parse_payload(InteractionSpec, {"type": "review", "title": "Review", "content": content})
    return normalize_spec(parsed, "int_1", NOW)


@pytest.mark.parametrize("text", [
    GOOD,
    GOOD.replace("\n", "\r\n"),                                                  # CRLF
    "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n",                              # counts default to 1
    "--- a/x\t2024-01-01\n+++ b/x\t2024-01-02\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
    "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two",                # a new file, no last newline
    GOOD + "diff --git a/logo.png b/logo.png\nBinary files differ\n",           # a file without hunks beside one
    "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -10 +10 @@\n-d\n+e\n",   # two hunks
    "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n",                         # an empty line is context
])
def test_a_unified_diff_is_accepted(text: str) -> None:
    assert diff_problem(text) is None
    assert review(text)["content"] == text


@pytest.mark.parametrize(("text", "says"), [
    ("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n", "fewer lines than its header"),      # cut short
    ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n*b\n+c\n", "line 5"),                            # not +, - or space
    ("--- a/x\n+++ b/x\nold\nnew\n", "no hunk"),                                              # no @@ at all
    ("--- a/x\n+++ b/x\n@@ -a,1 +b,1 @@\n-old\n+new\n", "no hunk"),                           # a header that is none
])
def test_a_malformed_diff_is_refused_with_the_reason(text: str, says: str) -> None:
    problem = diff_problem(text)
    assert problem is not None and says in problem, problem
    with pytest.raises(LapError) as refused:
        review(text)
    assert refused.value.code == "invalid_payload"
    assert "unified diff" in refused.value.message and says in refused.value.message
    assert refused.value.hint and "--- a/" in refused.value.hint


def test_a_hunk_needs_a_file_header_first() -> None:
    assert "before any file header" in (diff_problem("@@ -1 +1 @@\n-a\n+b\n") or "")
    assert "no hunk" in (diff_problem("diff --git a/logo.png b/logo.png\nBinary files differ\n") or "")
    # Starting with a hunk is no claim to be a diff (no file header first): shown as text, never refused.
    assert review("@@ -1 +1 @@\n-a\n+b\n")["content"].startswith("@@")


@pytest.mark.parametrize("text", [
    "--- Notes ---\nThe plan has three steps.",   # a rule of dashes, not a header pair
    "---\ntitle: yaml front matter\n---\n",
    "Please review:\n\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n",  # not at the start: the agent did not claim a diff
    "1. migrate\n2. deploy",
])
def test_text_that_does_not_start_as_a_diff_is_never_refused(text: str) -> None:
    assert review(text)["content"] == text


# The app's own parser cases (tests/e2e/test_rich_content.py DIFF_CASES, run there in the browser on
# ui/lib/diff.js): the hub accepts exactly the texts the app shows as a diff.
APP_CASES: list[tuple[str, bool]] = [
    ("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", True),
    ("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n", True),
    ("--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", True),
    ("--- x.c\t2024-05-01 10:00:00\n+++ x.c\t2024-05-02 10:00:00\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
     "\\ No newline at end of file\n", True),
    ("diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n--- a/old.py\n"
     "+++ b/new.py\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n@@ -10,1 +10,2 @@\n w\n+v\n", True),
    ("Fix the bug\n\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n--- old\n+--- new\n", True),
    ("--- a/a\n+++ b/a\n@@ -1,3 +1,3 @@\n-x\n+y\n", False),
    ("## Notes\n- one\n- two\n", False),
    ("@@ -1 +1 @@\n-a\n+b\n", False),
    ("--- a/a\n+++ b/a\n", False),
]


@pytest.mark.parametrize(("text", "shown_as_diff"), APP_CASES)
def test_the_hub_agrees_with_the_apps_parser(text: str, shown_as_diff: bool) -> None:
    assert (diff_problem(text) is None) == shown_as_diff
