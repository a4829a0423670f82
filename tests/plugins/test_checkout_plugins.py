"""plugins/ in a checkout: a plugin dropped into a fresh copy's plugins/ loads beside the built-ins, its test passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("hub", "plugins", "ui", "pyproject.toml", "setup.py")


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A command in the copy, on its own `hub` (the copy first on the path, nothing of this test run's pytest)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "PYTHONPATH", "LINEUP_"))}
    env["PYTHONPATH"] = str(cwd)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180,
                          check=False)


def test_a_plugin_dropped_into_a_fresh_checkouts_plugins_folder_is_listed_and_its_test_passes(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, clone / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        else:
            shutil.copy2(source, clone / name)
    where = run(["-c", "import hub; print(hub.__file__)"], clone)
    assert where.stdout.strip() == str(clone / "hub" / "__init__.py"), where.stdout + where.stderr

    made = run(["-m", "hub", "plugins", "new", "dice", "--dir", "plugins"], clone)
    assert made.returncode == 0, made.stderr
    assert (clone / "plugins" / "dice.py").is_file() and (clone / "plugins" / "test_dice.py").is_file()

    # Listed beside the built-ins, from the checkout's folder; naming that folder again loads nothing twice.
    data = tmp_path / "data"
    for extra in ([], ["--plugins-dir", "plugins"]):
        listed = run(["-m", "hub", "plugins", "--data-dir", str(data), *extra], clone)
        assert listed.returncode == 0 and listed.stderr == "", listed.stderr
        rows = {line.split()[0]: line.split()[1] for line in listed.stdout.split("\n\n")[1].splitlines() if line}
        assert rows["dice"] == f"folder:{clone / 'plugins'}" and rows["calculator"] == "builtin", listed.stdout
        assert f"  built-in       {clone / 'plugins'}" in listed.stdout.splitlines()

    # A real hub of the copy offers the tool and runs it.
    called = run(["-c", "import asyncio\nfrom hub.testing import TestHub\n\n\nasync def main():\n"
                  "    async with TestHub() as hub:\n        assert hub.plugins.failures == [], hub.plugins.failures\n"
                  "        print(await hub.call_tool('dice', {'text': 'clone'}))\n\n\nasyncio.run(main())\n"], clone)
    assert called.returncode == 0 and "Hello, clone!" in called.stdout, called.stdout + called.stderr

    # Its own test, as the guide says to run it, imports it (plugins/ is no package) and passes.
    tested = run(["-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "plugins/test_dice.py"], clone)
    assert tested.returncode == 0 and "1 passed" in tested.stdout, tested.stdout + tested.stderr
