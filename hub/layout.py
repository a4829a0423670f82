"""Where the hub's own folders are: beside hub/ in a checkout, inside hub/ once built (a wheel, the executable)."""

from __future__ import annotations

import sys
from pathlib import Path

HUB = Path(__file__).resolve().parent


def beside(name: str) -> Path:
    """The checkout's top-level folder `name` (`plugins`, `ui`, `integrations/…`): `hub/<name>` in a built hub, where
    the build copies it (pyproject.toml's [tool.lineup.carried], read by setup.py and packaging/lineup.spec), else
    `<name>` beside `hub/` (a checkout, run with or without `pip install -e .`)."""
    bundle = getattr(sys, "_MEIPASS", None)  # the executable: its data files unpacked under hub/ there
    built = (Path(bundle) / "hub" if bundle else HUB) / name
    return built if built.exists() else HUB.parent / name
