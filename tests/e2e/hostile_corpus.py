"""Messages an agent may send that once held the page's thread for seconds or broke its renderer: the browser
tests that open them (test_hostile_messages.py) and the page-responsiveness bench (bench/page_responsiveness.py)
use this one list."""

from __future__ import annotations

TEXT = 256 * 1024  # the longest message the hub takes

# (name, the message): each one took seconds on the page's thread, or broke the renderer, before.
HOSTILE = [
    ("underscores", "START " + "a_" * ((TEXT - 12) // 2) + " END"),
    ("nested-quotes", "START\n\n" + ">" * 20000 + " END"),
    ("quote-staircase", "START\n" + "\n".join(">" * n + " line" for n in range(1, 700)) + "\nEND"),
    ("emphasis", "START " + "*a" * 100000 + " END"),
    ("nested-lists", "START\n\n" + "\n".join("  " * n + "- item" for n in range(400)) + "\n\nEND"),
    ("huge-table", "START\n\n| a | b | c |\n|---|---|---|\n" + "| x | `y` | **z** |\n" * 8000 + "\nEND"),
    ("long-line", "START" + " https://example.com/a" * 11000 + " END"),  # one line, 11,000 links
    ("backticks", "START " + "`a" * 100000 + " END"),
    ("blank-lines", "START\n" + "\n" * 200000 + "*END*"),
]
