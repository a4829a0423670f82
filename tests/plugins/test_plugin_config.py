"""A plugin's own settings: the `[plugins.<name>]` tables of lineup.toml, read by the hub and handed to the plugin
(`hub.plugin_config(name)` in its hooks, `context.config` in its tool handlers), as Datasette's plugin_config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub import ToolContext, hookimpl, plugin_config
from hub.settings import SettingsError, load_settings
from hub.testing import TestHub

LINEUP_TOML = '''
port = 9600

[plugins.dice]
sides = 20
labels = ["low", "high"]

[plugins.other]
secret = "not for dice"

[notify.webhook]
url = "http://127.0.0.1:9/unused"
'''


def test_the_tables_are_read_from_lineup_toml_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "lineup.toml").write_text(LINEUP_TOML)
    settings = load_settings({"data_dir": tmp_path}, environ={"LINEUP_PLUGIN_CONFIGS": "ignored"})
    assert settings.port == 9600
    assert settings.plugin_configs == {"dice": {"sides": 20, "labels": ["low", "high"]},
                                       "other": {"secret": "not for dice"}}
    (tmp_path / "lineup.toml").write_text('[hub]\nport = 9601\n\n[plugins.dice]\nsides = 8\n')
    assert load_settings({"data_dir": tmp_path}, environ={}).plugin_configs == {"dice": {"sides": 8}}
    (tmp_path / "lineup.toml").write_text('[plugins]\ndice = 3\n')  # not a table per plugin
    with pytest.raises(SettingsError, match=r"\[plugins.<name>\]"):
        load_settings({"data_dir": tmp_path}, environ={})
    (tmp_path / "lineup.toml").write_text('plugin_configs = "x"\n')  # not a setting of its own
    with pytest.raises(SettingsError, match="unknown setting 'plugin_configs'"):
        load_settings({"data_dir": tmp_path}, environ={})


class Dice:
    def __init__(self) -> None:
        self.at_start: dict[str, Any] = {}

    @hookimpl
    def startup(self, hub: Any) -> None:
        self.at_start = {"method": hub.plugin_config("dice"), "function": plugin_config(hub, "dice"),
                         "missing": hub.plugin_config("nobody")}

    @hookimpl
    def register_tools(self) -> list[Any]:
        def roll(context: ToolContext) -> dict[str, Any]:
            """Report the die this plugin was configured with."""
            return {"message": str(context.config["sides"]), "config": context.config}
        return [roll]


async def test_a_plugin_gets_its_own_table_in_its_hooks_and_its_tool_handlers(tmp_path: Path) -> None:
    (tmp_path / "hub").mkdir()
    (tmp_path / "hub" / "lineup.toml").write_text(LINEUP_TOML)
    dice = Dice()
    async with TestHub({"dice": dice}, data_dir=tmp_path) as hub:
        expected = {"sides": 20, "labels": ["low", "high"]}
        assert dice.at_start == {"method": expected, "function": expected, "missing": {}}
        result = await hub.call_tool("roll")
        assert result == {"message": "20", "config": expected}  # its own table only, not [plugins.other]
