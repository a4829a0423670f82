"""`lineup plugins new NAME`: a working one-tool plugin and its test, written into a plugins folder."""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from hub.pluginhost.loader import BUILTIN_PLUGINS, is_test_file

# The name is the module's, the tool's and the `[plugins.<name>]` table's: a lowercase Python identifier.
NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")

PLUGIN = '''\
"""{name}: a LineUp plugin with one tool (made by `lineup plugins new`; the plugin guide explains every hook)."""

from hub import hookimpl


def {name}(text: str = "world") -> str:
    """Say hello. Agents read this docstring to decide when to call the tool: say what yours does.

    Args:
        text: Who to greet.
    """
    return f"Hello, {{text}}!"


@hookimpl
def register_tools():
    return [{name}]
'''

TEST = '''\
"""{name}'s test: the real hub with the plugin, called the way an agent calls it. Run: pytest {test_file}"""

import pytest

import {name}
from hub.testing import TestHub


@pytest.mark.asyncio
async def test_{name}_greets():
    async with TestHub({name}) as hub:
        assert hub.plugins.failures == []
        assert await hub.call_tool("{name}", {{"text": "LineUp"}}) == {{"message": "Hello, LineUp!"}}
'''


class ScaffoldError(ValueError):
    """A name the hub could not load as a plugin, or a file that is there already (nothing was written)."""


def check_name(name: str) -> None:
    if not NAME.match(name) or keyword.iskeyword(name):
        raise ScaffoldError(f"{name!r} is not a plugin name: use lowercase letters, digits and _ "
                            "(a Python module name that starts with a letter, at most 40 characters)")
    if is_test_file(f"{name}.py"):
        raise ScaffoldError(f"{name!r} is a test file's name, which the hub does not load as a plugin")
    if name in BUILTIN_PLUGINS:
        raise ScaffoldError(f"{name!r} is a built-in plugin's name; yours would be reported as a duplicate")


def new_plugin(name: str, folder: Path) -> list[Path]:
    """Write `<folder>/<name>.py` and `<folder>/test_<name>.py` (the folder made if missing); returns both."""
    check_name(name)
    plugin, test = folder / f"{name}.py", folder / f"test_{name}.py"
    taken = [path for path in (plugin, test, folder / name) if path.exists()]
    if taken:  # checked before writing either, so a refusal leaves the folder as it was
        raise ScaffoldError(f"{taken[0]} exists already; pick another name or move it away")
    folder.mkdir(parents=True, exist_ok=True)
    plugin.write_text(PLUGIN.format(name=name))
    test.write_text(TEST.format(name=name, test_file=test.name))
    return [plugin, test]
