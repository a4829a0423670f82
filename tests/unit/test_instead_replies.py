"""The Reject box's replies (ui/lib/instead.js) name the hub's reason codes: a code renamed or removed in the risk
model would silently leave a danger without its reply, so every code the file names must be one the hub gives."""

from __future__ import annotations

import re
from pathlib import Path

from hub.domain.risk import REASONS

INSTEAD = Path(__file__).parents[2] / "ui" / "lib" / "instead.js"


def test_every_reason_code_a_reply_names_is_one_the_hub_gives() -> None:
    source = INSTEAD.read_text()
    kinds = source[source.index("const KINDS = {"):source.index("};", source.index("const KINDS = {"))]
    codes = re.findall(r"'([a-z_]+)'", kinds)
    assert len(codes) > 20, codes
    assert sorted(set(codes) - set(REASONS)) == []
    # Each danger has one reply at most (a code in two kinds would offer both).
    assert len(codes) == len(set(codes))


def test_every_reply_is_said_in_both_languages() -> None:
    source = INSTEAD.read_text()
    kinds = re.findall(r"^  (\w+): \[", source, re.MULTILINE) + ["plan"]
    for language in ("en", "zh"):
        strings = (INSTEAD.parent / f"strings-{language}.js").read_text()
        missing = [k for k in kinds if f"'card.instead.{k}':" not in strings]
        assert missing == [], (language, missing)
