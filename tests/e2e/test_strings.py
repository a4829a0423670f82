"""Every text key the app uses exists in English and in Chinese (seed 002 §15: a Chinese-first product)."""

from __future__ import annotations

import re
from pathlib import Path

UI = Path(__file__).parents[2] / "ui"


def keys_of(dictionary: Path) -> set[str]:
    return set(re.findall(r"^\s*'([^']+)':", dictionary.read_text(), flags=re.MULTILINE))


def used_keys() -> tuple[set[str], set[str]]:
    """Literal keys, and prefixes of keys built with a template (`task.status.${status}`)."""
    literal: set[str] = set()
    prefixes: set[str] = set()
    for path in [*UI.glob("components/*.js"), *UI.glob("lib/*.js")]:
        text = path.read_text()
        literal |= set(re.findall(r"\bt[n]?\('([a-zA-Z0-9_.]+)'", text))
        prefixes |= set(re.findall(r"\bt\(`([a-zA-Z0-9_.]+)\.\$\{", text))
    return literal, prefixes


def test_every_key_in_both_languages() -> None:
    en, zh = keys_of(UI / "lib" / "strings-en.js"), keys_of(UI / "lib" / "strings-zh.js")
    assert len(en) > 300
    assert en == zh, {"only English": sorted(en - zh), "only Chinese": sorted(zh - en)}
    literal, prefixes = used_keys()
    assert not literal - en, sorted(literal - en)
    for prefix in prefixes:
        assert any(key.startswith(prefix + ".") for key in en), prefix
    for status in ("queued", "running", "waiting_for_human", "succeeded", "failed", "cancelled"):
        assert f"task.status.{status}" in en


def test_chinese_text_is_chinese() -> None:
    zh = (UI / "lib" / "strings-zh.js").read_text()
    values = re.findall(r"^\s*'[^']+': '(.*)',$", zh, flags=re.MULTILINE)
    han = [v for v in values if re.search(r"[\u4e00-\u9fff]", v)]
    assert len(han) / len(values) > 0.9  # the rest are names and symbols ("Agent", "{from} → {to}")
