"""Where the `acp` runtime used to live: it is the package hub/plugins/runtimes/acp/ now (options in its __init__)."""

from __future__ import annotations

from hub.plugins.runtimes.acp import AcpRuntime, TurnError

__all__ = ["AcpRuntime", "TurnError"]
