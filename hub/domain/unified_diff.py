"""Whether a text is a unified diff the app can show: the app's own parser's rules (ui/lib/diff.js), on the hub."""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def claims_diff(text: str) -> bool:
    """The text starts as a unified diff does: `diff --git …`, or a `--- ` line followed by a `+++ ` line."""
    lines = text.lstrip("\r\n").replace("\r\n", "\n").split("\n", 2)
    return lines[0].startswith("diff --git ") or (
        lines[0].startswith("--- ") and len(lines) > 1 and lines[1].startswith("+++ "))


def diff_problem(text: str) -> str | None:
    """Why `text` is not a unified diff the app can show (None: it is one). The rules of the app's own parser
    (ui/lib/diff.js parseUnifiedDiff), which shows anything it cannot parse as plain text: file headers
    (`diff --git`, or `---` then `+++`), hunks whose lines match their header's counts, text between files."""
    lines = text.replace("\r\n", "\n").split("\n")
    have_file = False
    hunk: tuple[int, str] | None = None   # the current hunk's line number and header
    old_left = new_left = 0
    hunks = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if hunk is not None and (old_left > 0 or new_left > 0):
            if line == "" and i == len(lines) - 1:
                break  # the text's last newline
            mark = line[:1]
            if mark == "+":
                new_left -= 1
            elif mark == "-":
                old_left -= 1
            elif mark == " " or line == "":
                old_left -= 1
                new_left -= 1
            elif mark != "\\":
                return (f"line {i + 1} is neither context (` `), removed (`-`) nor added (`+`), but the hunk of line "
                        f"{hunk[0]} (`{hunk[1][:80]}`) has fewer lines than its header says: {old_left} old and "
                        f"{new_left} new lines missing")
            i += 1
            continue
        if line.startswith("diff --git "):
            have_file, hunk = True, None
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            have_file, hunk = True, None
            i += 1
        elif (match := _HUNK.match(line)) is not None:
            if not have_file:
                return f"line {i + 1}: a hunk (`@@`) before any file header (`--- a/path`, `+++ b/path`)"
            old_left = 1 if match[2] is None else int(match[2])
            new_left = 1 if match[4] is None else int(match[4])
            hunk = (i + 1, line)
            hunks += 1
        elif hunk is not None and not line.startswith("\\"):
            hunk = None  # after a hunk only another file (or hunk) may follow; git's other lines are skipped
        i += 1
    if hunk is not None and (old_left > 0 or new_left > 0):
        return (f"the hunk of line {hunk[0]} (`{hunk[1][:80]}`) has fewer lines than its header says: the text ends "
                f"with {old_left} old and {new_left} new lines missing")
    if hunks == 0:
        return "it has no hunk (`@@ -1,3 +1,4 @@` followed by its lines)"
    return None
