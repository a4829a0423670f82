"""`lineup connect hermes` enables its plugin in Hermes's config.yaml (plugins.enabled, as hermes_cli/plugins.py
requires for a plugin it did not ship) by adding lines, and `--remove` gives the person's file back as it was."""

from __future__ import annotations

import pytest
import yaml

from hub.connect.hermes import MARK, CannotEdit, approvals_timeout, with_plugin, without_plugin

SHAPES = {
    "empty": "",
    "no plugins key": "# my Hermes\nmodel:\n  default: fake-model   # keep me\napprovals:\n  mode: manual\n",
    "no newline at the end": "model:\n  default: x",
    "plugins without enabled": "model:\n  default: x\nplugins:\n  disabled:\n  - disk-cleanup\ndisplay:\n  x: 1\n",
    "plugins: null": "plugins:\nmodel:\n  default: x\n",
    "enabled as Hermes writes it": "plugins:\n  enabled:\n  - disk-cleanup\n  - observability/nemo\nmodel: {}\n",
    "enabled items indented": "plugins:\n    enabled:\n        - 'a'\n        - b  # mine\n    disabled: []\n",
    "enabled empty flow": "plugins:\n  enabled: []\n  disabled: [x]\n",
    "enabled flow with items": "plugins:\n  enabled: [a, 'b']   # two\n",
    "enabled: null": "plugins:\n  enabled:\n  entries: {}\n",
}


def enabled(text: str) -> list[str]:
    data = yaml.safe_load(text) or {}
    return list((data.get("plugins") or {}).get("enabled") or [])


@pytest.mark.parametrize("name", list(SHAPES))
def test_lineup_is_added_by_lines_and_removed_to_the_same_text(name: str) -> None:
    before = SHAPES[name]
    added = with_plugin(before)
    assert enabled(added) == [*enabled(before), "lineup"], added
    # Everything else is as it was, comments included.
    rest = {k: v for k, v in (yaml.safe_load(added) or {}).items() if k != "plugins"}
    assert rest == {k: v for k, v in (yaml.safe_load(before) or {}).items() if k != "plugins"}
    for line in before.splitlines():
        assert line in added.splitlines() or "enabled" in line or line == "plugins:", line
    assert with_plugin(added) == added  # connecting again adds nothing
    removed = without_plugin(added)
    assert removed.rstrip("\n") == before.rstrip("\n") or yaml.safe_load(removed) == yaml.safe_load(before), removed
    assert "lineup" not in enabled(removed)
    assert MARK not in removed


def test_a_file_hermes_rewrote_loses_our_marks_and_is_still_cleaned() -> None:
    rewritten = yaml.safe_dump(yaml.safe_load(with_plugin("model:\n  default: x\nplugins:\n  enabled:\n  - a\n")))
    assert "lineup" in enabled(rewritten) and MARK not in rewritten
    removed = without_plugin(rewritten)
    assert enabled(removed) == ["a"] and yaml.safe_load(removed)["model"] == {"default": "x"}
    # Hermes's own rewrite of a file that had no plugins before: the list it holds is ours alone.
    alone = yaml.safe_dump(yaml.safe_load(with_plugin("model:\n  default: x\n")))
    assert yaml.safe_load(without_plugin(alone)) == {"model": {"default": "x"}, "plugins": {"enabled": []}}


@pytest.mark.parametrize("text", [
    "plugins: {enabled: [a]}\n",           # a flow mapping
    "plugins:\n  enabled: a\n",             # not a list
    "plugins: [a, b]\n",                    # not a mapping
    "- just\n- a list\n",                   # not a mapping at all
    "model: [unclosed\n",                   # not YAML
])
def test_shapes_it_does_not_edit_are_left_alone_saying_so(text: str) -> None:
    with pytest.raises(CannotEdit):
        with_plugin(text)


def test_approvals_timeout_as_hermes_reads_it() -> None:
    assert approvals_timeout("") == 60
    assert approvals_timeout("approvals:\n  timeout: 900\n") == 900
    assert approvals_timeout("approvals:\n  mode: manual\n") == 60
    assert approvals_timeout("approvals: [\n") == 60
