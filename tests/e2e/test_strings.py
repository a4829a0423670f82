"""Every text key the app uses exists in English and in Chinese (docs/design.md#chinese-and-english)."""

from __future__ import annotations

import re
from pathlib import Path

from hub.protocol import vocabulary

UI = Path(__file__).parents[2] / "ui"


def keys_of(dictionary: Path) -> set[str]:
    return set(re.findall(r"^\s*'([^']+)':", dictionary.read_text(), flags=re.MULTILINE))


def used_keys() -> tuple[set[str], set[str]]:
    """Literal keys, and prefixes of keys built with a template (`task.status.${status}`)."""
    literal: set[str] = set()
    prefixes: set[str] = set()
    for path in [*UI.glob("components/*.js"), *UI.glob("lib/*.js")]:
        text = path.read_text()
        literal |= set(re.findall(r"\bt\('([a-zA-Z0-9_.]+)'", text))
        # tn('key', n) reads key.one / key.other (lib/i18n.js): the .other form must exist.
        literal |= {f"{key}.other" for key in re.findall(r"\btn\('([a-zA-Z0-9_.]+)'", text)}
        # t(`key.${name}`) and lib/status.js's word(`key.${name}`, name) (a translation, else the name itself).
        prefixes |= set(re.findall(r"\b(?:t|word)\(`([a-zA-Z0-9_.]+)\.\$\{", text))
    return literal, prefixes


def test_every_key_in_both_languages() -> None:
    en, zh = keys_of(UI / "lib" / "strings-en.js"), keys_of(UI / "lib" / "strings-zh.js")
    assert len(en) > 300
    assert en == zh, {"only English": sorted(en - zh), "only Chinese": sorted(zh - en)}
    literal, prefixes = used_keys()
    assert not literal - en, sorted(literal - en)
    for prefix in prefixes:
        assert any(key.startswith(prefix + ".") for key in en), prefix
    # Every name of the hub's vocabularies the app shows has its word (hub/protocol/vocabulary.py).
    for status in vocabulary.TASK_STATUSES:
        assert f"task.status.{status}" in en
    for agent_status in vocabulary.AGENT_STATUSES:
        assert f"agent.status.{agent_status}" in en
    for risk in vocabulary.RISK_LEVELS:
        assert f"risk.{risk}" in en


def test_chinese_text_is_chinese() -> None:
    zh = (UI / "lib" / "strings-zh.js").read_text()
    values = re.findall(r"^\s*'[^']+': '(.*)',$", zh, flags=re.MULTILINE)
    han = [v for v in values if re.search(r"[\u4e00-\u9fff]", v)]
    assert len(han) / len(values) > 0.9  # the rest are names and symbols ("Agent", "{from} → {to}")
