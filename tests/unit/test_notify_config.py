"""The `[notify]` tables (hub/notify/config.py): each channel's `workspaces`, its defaults, and its errors."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hub.notify.config import NotifyConfigError, load_notify_config, parse_notify

# The hub's workspaces as the notifier sees them: (id, name), oldest first.
HUB = [("ws_first", "My workspace"), ("ws_other", "Other"), ("ws_third", "Third")]


def parse(text: str) -> dict[str, object]:
    return tomllib.loads(text)


def served(text: str, channel: str, workspaces: list[tuple[str, str]] = HUB) -> list[str]:
    config = parse_notify(parse(text), "lineup.toml").channel(channel)
    return [ws_id for ws_id, _ in workspaces if config.serves(ws_id, workspaces)]


def test_a_configured_channel_serves_only_the_first_workspace_by_default() -> None:
    assert served('[notify.webhook]\nurl = "http://x"\n', "webhook") == ["ws_first"]
    assert served('[notify.mail]\nhost = "smtp"\n', "mail") == ["ws_first"]
    assert served('[notify.pager]\nurl = "http://x"\n', "pager") == ["ws_first"]  # a plugin's channel too


def test_the_first_workspace_is_the_oldest_not_the_first_named() -> None:
    assert served('[notify.webhook]\nurl = "http://x"\n', "webhook", list(reversed(HUB))) == ["ws_third"]


def test_a_hub_without_workspaces_is_served_by_nothing_but_the_star() -> None:
    assert served('[notify.webhook]\nurl = "http://x"\n', "webhook", []) == []
    assert not parse_notify({}, "x").channel("webhook").serves("ws_first", [])


def test_inapp_serves_every_workspace_configured_or_not() -> None:
    assert served("", "inapp") == ["ws_first", "ws_other", "ws_third"]
    assert served('[notify.inapp]\nevents = ["failed"]\n', "inapp") == ["ws_first", "ws_other", "ws_third"]


def test_an_unconfigured_channel_defaults_to_the_first_workspace() -> None:
    assert served("", "webhook") == ["ws_first"]


def test_star_serves_all_workspaces() -> None:
    assert served('[notify.webhook]\nurl = "http://x"\nworkspaces = ["*"]\n', "webhook") == [
        "ws_first", "ws_other", "ws_third"]


def test_names_and_ids_select_workspaces() -> None:
    assert served('[notify.webhook]\nworkspaces = ["Other"]\n', "webhook") == ["ws_other"]
    assert served('[notify.webhook]\nworkspaces = ["ws_third", "My workspace"]\n', "webhook") == [
        "ws_first", "ws_third"]


def test_inapp_can_be_narrowed_too() -> None:
    assert served('[notify.inapp]\nworkspaces = ["Other"]\n', "inapp") == ["ws_other"]


def test_a_name_matching_no_workspace_serves_nothing_and_is_reported() -> None:
    text = '[notify.webhook]\nworkspaces = ["Typo", "Other", "*not-a-star"]\n'
    assert served(text, "webhook") == ["ws_other"]
    config = parse_notify(parse(text), "lineup.toml").channel("webhook")
    assert config.unmatched(HUB) == ["Typo", "*not-a-star"]
    # A workspace created later under that name is served (names are resolved when a notification is made).
    assert config.serves("ws_new", [*HUB, ("ws_new", "Typo")])
    assert parse_notify(parse('[notify.webhook]\nworkspaces = ["*"]\n'), "x").channel("webhook").unmatched([]) == []


def test_workspaces_is_not_passed_on_as_a_channel_option() -> None:
    config = parse_notify(parse('[notify.webhook]\nurl = "u"\nworkspaces = ["*"]\n'), "x").channel("webhook")
    assert config.options == {"url": "u"} and config.workspaces == ("*",)


@pytest.mark.parametrize("value", ['"x"', '"*"', "3", '["Other", 7]', '[""]', "{ name = \"Other\" }"])
def test_a_wrong_type_is_refused_naming_the_setting(value: str) -> None:
    with pytest.raises(NotifyConfigError) as caught:
        parse_notify(parse(f'[notify.webhook]\nurl = "u"\nworkspaces = {value}\n'), "/data/lineup.toml")
    message = str(caught.value)
    assert message.startswith("/data/lineup.toml: notify.webhook.workspaces must be a list of workspace names "
                              'or ids, or ["*"] for all; got ')


def test_an_empty_list_is_refused_with_the_way_to_turn_a_channel_off() -> None:
    with pytest.raises(NotifyConfigError, match=r"notify\.mail\.workspaces names no workspace; .*enabled = false"):
        parse_notify(parse('[notify.mail]\nworkspaces = []\n'), "lineup.toml")


def test_the_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "lineup.toml"
    path.write_text('[notify.webhook]\nworkspaces = "Other"\n')
    with pytest.raises(NotifyConfigError, match=f"^{path}: notify.webhook.workspaces must be a list"):
        load_notify_config(path)
