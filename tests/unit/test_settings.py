"""Settings: defaults < lineup.toml in the data dir < LINEUP_* environment < command line; bad values name
their source."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.settings import CONFIG_FILE, Settings, SettingsError, load_settings, with_changes


def write_toml(data_dir: Path, text: str) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / CONFIG_FILE
    path.write_text(text)
    return path


def test_defaults(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": tmp_path}, environ={})
    default = Settings(data_dir=tmp_path)
    assert settings == default
    assert (settings.port, settings.synchronous, settings.db_max_pages, settings.mdns) == (9527, "FULL", None, True)
    assert settings.db_path == tmp_path / "lineup.db"
    assert settings.heartbeat_interval_ms == 25_000
    assert settings.grace_period_s == 900.0 and settings.pairing_code_ttl_s == 600.0


def test_each_source_overrides_the_one_before(tmp_path: Path) -> None:
    write_toml(tmp_path, 'port = 1001\nhub_name = "from toml"\nheartbeat_interval_s = 5\nlog_level = "debug"\n')
    environ = {"LINEUP_PORT": "2002", "LINEUP_HUB_NAME": "from env", "LINEUP_UNRELATED": "x", "PORT": "1"}
    settings = load_settings({"data_dir": tmp_path, "port": 3003, "host": None}, environ=environ)
    assert settings.port == 3003                      # command line beats env and file
    assert settings.hub_name == "from env"            # env beats file
    assert settings.heartbeat_interval_s == 5.0       # file beats default
    assert settings.log_level == "debug"
    assert settings.host == "0.0.0.0"                 # an override of None means "not given"
    only_file = load_settings({"data_dir": tmp_path}, environ={})
    assert (only_file.port, only_file.hub_name) == (1001, "from toml")


def test_settings_may_sit_in_a_hub_table_and_other_tables_are_left_alone(tmp_path: Path) -> None:
    write_toml(tmp_path, '[hub]\nport = 4004\nmdns = false\n\n[notifications]\nemail = "x@example.com"\n')
    settings = load_settings({"data_dir": tmp_path}, environ={})
    assert (settings.port, settings.mdns) == (4004, False)


def test_data_dir_from_the_environment_finds_its_toml(tmp_path: Path) -> None:
    write_toml(tmp_path / "env-dir", "port = 5005\n")
    settings = load_settings(environ={"LINEUP_DATA_DIR": str(tmp_path / "env-dir")})
    assert settings.data_dir == tmp_path / "env-dir" and settings.port == 5005
    override = load_settings({"data_dir": tmp_path / "other"}, environ={"LINEUP_DATA_DIR": str(tmp_path / "env-dir")})
    assert override.data_dir == tmp_path / "other" and override.port == 9527


@pytest.mark.parametrize(("name", "text", "value"), [
    ("mdns", "off", False), ("mdns", "YES", True), ("mdns", "0", False), ("db_max_pages", "none", None),
    ("db_max_pages", "", None), ("db_max_pages", "1234", 1234), ("grace_period_s", "1.5", 1.5),
    ("synchronous", "NORMAL", "NORMAL"), ("data_dir", "~/x", Path("~/x").expanduser()),
])
def test_environment_values_are_coerced(tmp_path: Path, name: str, text: str, value: object) -> None:
    environ = {f"LINEUP_{name.upper()}": text}
    overrides = {} if name == "data_dir" else {"data_dir": tmp_path}
    assert getattr(load_settings(overrides, environ=environ), name) == value


def test_unknown_toml_key_is_an_error(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "prot = 9000\n")
    with pytest.raises(SettingsError, match="unknown setting 'prot'") as info:
        load_settings({"data_dir": tmp_path}, environ={})
    assert str(path) in str(info.value)


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "port = \n")
    with pytest.raises(SettingsError, match="not valid TOML") as info:
        load_settings({"data_dir": tmp_path}, environ={})
    assert str(path) in str(info.value)


def test_bad_value_in_toml_names_the_file(tmp_path: Path) -> None:
    path = write_toml(tmp_path, 'port = "ninety"\n')
    with pytest.raises(SettingsError, match="port = 'ninety'") as info:
        load_settings({"data_dir": tmp_path}, environ={})
    assert str(info.value).startswith(str(path))


@pytest.mark.parametrize(("variable", "value"), [("LINEUP_PORT", "abc"), ("LINEUP_MDNS", "maybe"),
                                                 ("LINEUP_GRACE_PERIOD_S", "15m"), ("LINEUP_DB_MAX_PAGES", "lots")])
def test_bad_value_in_the_environment_names_the_variable(tmp_path: Path, variable: str, value: str) -> None:
    with pytest.raises(SettingsError) as info:
        load_settings({"data_dir": tmp_path}, environ={variable: value})
    assert str(info.value).startswith(f"environment {variable}:") and repr(value) in str(info.value)


def test_bad_value_on_the_command_line_says_so(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="^command line: port = 'x'"):
        load_settings({"data_dir": tmp_path, "port": "x"}, environ={})


def test_synchronous_must_be_full_or_normal(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="synchronous must be FULL or NORMAL"):
        load_settings({"data_dir": tmp_path}, environ={"LINEUP_SYNCHRONOUS": "OFF"})


def test_with_changes_copies(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": tmp_path}, environ={})
    changed = with_changes(settings, port=1)
    assert changed.port == 1 and settings.port == 9527 and changed.data_dir == settings.data_dir
