"""LineUp as a Hermes messaging platform (`kind: platform`), installed by `lineup connect hermes`.

Hermes imports this package from `$HERMES_HOME/plugins/lineup/` and calls `register(ctx)`. The adapter (adapter.py)
is imported only then: LineUp's own installation imports `lineproto` from here too (hub/connect/hermes_bridge.py),
where Hermes's `gateway` package does not exist. Standard library and Hermes only: LineUp is not installed in
Hermes's environment (docs/agents.md, "Hermes as a messaging platform").
"""

from __future__ import annotations

from typing import Any


def register(ctx: Any) -> None:
    from .adapter import register as register_platform

    register_platform(ctx)
