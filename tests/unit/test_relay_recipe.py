"""docs/relay.md's household recipe: its lineup.toml parses as the hub reads it, and what it names exists."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from hub.cli import main
from hub.relay.config import load_relay_config
from hub.relay.probe import AUTH_OFF_STEP

DOC = Path(__file__).resolve().parents[2] / "docs" / "relay.md"


def recipe() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("### Running WuKongIM for one household")
    return text[start:text.index("\n## ", start)]


def test_the_recipes_toml_is_what_the_hub_reads(tmp_path: Path) -> None:
    snippet = re.search(r"<!-- recipe-toml -->\s*```toml\n(.*?)```", recipe(), re.S)
    assert snippet is not None
    toml = "\n".join(line.strip() for line in snippet.group(1).splitlines()) + "\n"
    (tmp_path / "lineup.toml").write_text(toml)
    config = load_relay_config(tmp_path / "lineup.toml")
    assert config.enabled and config.configured
    assert (config.ws_url, config.api_url, config.uid) == ("ws://192.168.1.20:5200", "http://192.168.1.20:5001",
                                                          "lineup-hub")
    assert config.app_ws_url == "wss://im.example.com" and config.manager_token
    assert [(p.uid, p.user, p.lap) for p in config.people] == [("alice", "owner", True)]


def test_the_recipe_names_real_commands_and_server_settings() -> None:
    text = recipe()
    for command in set(re.findall(r"`lineup relay (\w+)`", text)):
        result = CliRunner().invoke(main, ["relay", command, "--help"])
        assert result.exit_code == 0, command
    assert {"provision", "check"} <= set(re.findall(r"`lineup relay (\w+)`", text))
    # The server setting the hub itself asks for when token authentication is off is the one the recipe sets.
    assert "WK_TOKENAUTHON=true" in AUTH_OFF_STEP and "WK_TOKENAUTHON=true" in text
    assert "LINEUP_RELAY_MANAGER_TOKEN" in text and "-p 5200:5200" in text and "-p 5001:5001" in text
    assert "GET /api/relay/check" in text
