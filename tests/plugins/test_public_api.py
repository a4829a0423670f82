"""One public plugin API: hub/api.py lists it, `hub` offers it, and the built-in plugins use nothing else."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import hub
from hub import api
from hub.ports import PluginHub

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"  # the built-ins: files and folders loaded by path


def test_every_public_name_is_importable_from_hub_and_documented() -> None:
    assert len(api.__all__) == len(set(api.__all__))
    for name in api.__all__:
        assert getattr(hub, name) is getattr(api, name), name
    assert set(api.__all__) <= set(dir(hub))
    readme = (PLUGINS / "README.md").read_text()
    undocumented = [name for name in api.__all__ if f"`{name}" not in readme]
    assert undocumented == []


def test_plugin_hub_offers_exactly_the_members_the_guide_documents() -> None:
    """The type a hook's `hub` has is the promise: what the guide's "The hooks" lists, and no writer, bus or
    command a plugin could reach past the public API with."""
    readme = (PLUGINS / "README.md").read_text()
    hooks_intro = readme.split("## The hooks", 1)[1].split("\n### ", 1)[0]
    documented = set(re.findall(r"`(?:await )?hub\.([a-z_]+)", hooks_intro))
    members = {name for cls in PluginHub.__mro__ if cls.__module__ == "hub.ports"
               for name in vars(cls) if not name.startswith("_")}
    assert documented == {"plugin_config", "settings", "public_url", "started", "read", "spawn"}
    assert members == documented


def test_import_hub_stays_light_and_an_unknown_name_is_an_error() -> None:
    """The CLI and the SDK import `hub`; the plugin API (Starlette, the store, ...) loads only when asked for."""
    code = ("import sys, hub\nassert 'hub.api' not in sys.modules\nfrom hub import netaddr\n"
            "assert 'hub.api' not in sys.modules\nfrom hub import ToolError\nassert 'hub.api' in sys.modules\n"
            "try:\n    from hub import NoSuchThing\nexcept ImportError:\n    print('refused')\n")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "refused", done.stderr


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


# The one built-in that reaches below the API, and why: Web Push is the hub's own channel, which pushes to the
# signed-in devices of hub/auth, whose subscriptions are a table of the store, and serves their routes; one core
# module each (hub/notify/web_push.py, hub/web/push.py). (The `acp` runtime needs none: `acp_runtime` is public.)
BUILTIN_EXCEPTIONS = {("notifiers", "hub.notify.web_push"), ("notifiers", "hub.web.push")}


def test_the_builtin_plugins_import_only_the_public_api() -> None:
    """The built-ins show the way: `hub`, `hub.sdk`, and their own modules (relative imports); nothing internal."""
    offenders = []
    files = sorted(PLUGINS.rglob("*.py"))
    assert len(files) > 10
    for path in files:
        own = path.relative_to(PLUGINS).parts[0].removesuffix(".py")
        for module in imported_modules(path):
            if module.split(".")[0] != "hub" or module in ("hub", "hub.sdk"):
                continue
            if (own, module) in BUILTIN_EXCEPTIONS:
                continue
            offenders.append(f"{path.relative_to(PLUGINS)}: {module}")
    assert offenders == []
