"""The plugin author's loop on the command line: `lineup plugins` says where it looked, `lineup plugins new` starts
a plugin whose own test passes and which a real hub loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from hub.cli import main
from hub.pluginhost.manager import make_plugin_manager
from tests.plugins.folders import GOOD


def lineup(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_lineup_plugins_prints_the_folders_it_searched_with_their_real_paths(tmp_path: Path) -> None:
    real_data, real_extra = tmp_path / "real-data", tmp_path / "real-extra"
    (real_data / "plugins").mkdir(parents=True)
    (real_data / "plugins" / "greeter.py").write_text((GOOD / "greeter.py").read_text())
    real_extra.mkdir()
    (tmp_path / "data").symlink_to(real_data)
    (tmp_path / "extra").symlink_to(real_extra)

    code, out, err = lineup("plugins", "--data-dir", str(tmp_path / "data"), "--plugins-dir",
                            str(tmp_path / "extra" / ".." / "extra"))
    assert code == 0 and err == "", err
    searched = out.split("\n\n")[0].splitlines()
    assert searched == [
        "searched:",
        f"  built-in       {Path(__file__).resolve().parents[2] / 'plugins'}",  # the checkout's own plugins/
        f"  your folder    {real_data.resolve() / 'plugins'} (1 plugin)",
        f"  --plugins-dir  {real_extra.resolve()} (0 plugins)",
        "  entry points   installed packages' `lineup` entry points",
    ]
    assert any(line.split()[0] == "greeter" for line in out.split("\n\n")[1].splitlines())

    code, out, _ = lineup("plugins", "--data-dir", str(tmp_path / "empty"))
    assert f"  your folder    {tmp_path.resolve() / 'empty' / 'plugins'} (not there yet)" in out.splitlines()


def test_plugins_new_writes_a_tool_whose_test_passes_and_which_a_hub_loads(tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, out, err = lineup("plugins", "new", "hello", "--data-dir", str(data))
    folder = data.resolve() / "plugins"
    assert code == 0 and err == "", err
    assert sorted(path.name for path in folder.iterdir()) == ["hello.py", "test_hello.py"]
    assert f"wrote {folder / 'hello.py'}" in out and f"pytest {folder / 'test_hello.py'}" in out

    # Its own test, run the way the guide says (pytest in the folder, nothing of this repository's configuration).
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "PYTHONPATH"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hello.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr

    # The hub loads it from the plugins folder (and not its test), and offers its tool.
    host = make_plugin_manager(user_dir=folder, include_entry_points=False)
    assert host.failures == [] and host.sources["hello"].path == folder / "hello.py"
    assert "test_hello" not in host.sources
    tools = [getattr(item, "__name__", None) for name, item in host.collect("register_tools", hub=None)
             if name == "hello"]
    assert tools == ["hello"]
    code, out, err = lineup("plugins", "--data-dir", str(data))
    assert code == 0 and err == "" and any(line.split()[0] == "hello" for line in out.splitlines() if line)


def test_plugins_new_refuses_a_bad_name_or_a_file_that_is_there_and_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    code, _, err = lineup("plugins", "new", "dice", "--dir", str(folder))
    assert code == 0 and sorted(p.name for p in folder.iterdir()) == ["dice.py", "test_dice.py"], err
    (folder / "dice.py").write_text("# my work\n")
    (folder / "test_dice.py").unlink()

    refusals = {
        "dice": "dice.py exists already",
        "Dice": "is not a plugin name",
        "my-tool": "is not a plugin name",
        "class": "is not a plugin name",
        "test_dice": "is a test file's name",
        "dice_test": "is a test file's name",
        "conftest": "is a test file's name",
        "calculator": "is a built-in plugin's name",
    }
    for name, reason in refusals.items():
        code, out, err = lineup("plugins", "new", name, "--dir", str(folder))
        assert code == 1 and out == "" and reason in err and err.startswith("Error: "), (name, err)
    assert sorted(p.name for p in folder.iterdir()) == ["dice.py"]
    assert (folder / "dice.py").read_text() == "# my work\n"
