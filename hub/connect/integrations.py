"""The code `lineup connect` installs into other programs, kept in the checkout's integrations/ (hub/layout.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from hub.layout import beside

# The Hermes platform plugin (Python, run inside `hermes gateway`) and the OpenClaw channel as OpenClaw installs it
# (built from integrations/openclaw-channel/src/ by its `npm run build`, committed: an install without Node needs it).
HERMES_PLUGIN = "integrations/hermes_plugin"
OPENCLAW_CHANNEL = "integrations/openclaw-channel/package"


def folder(name: str) -> Path:
    """One of the folders above, as this LineUp carries it (a wheel's hub/integrations/…, or the checkout's)."""
    return beside(name)


def hermes_lineproto() -> ModuleType:
    """The line protocol between the Hermes plugin and its bridge: the plugin's own file (it runs in Hermes's Python
    too), imported once by path for the bridge, which is LineUp's own program (`lineup hook hermes-bridge`)."""
    name = "lineup_hermes_lineproto"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, folder(HERMES_PLUGIN) / "lineproto.py")
        assert spec is not None and spec.loader is not None, f"no {HERMES_PLUGIN}/lineproto.py in this LineUp"
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    return sys.modules[name]
