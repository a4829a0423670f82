"""A real OpenClaw Gateway for the tests without the parts of OpenClaw they never use, to spend less CPU.

Each OpenClaw process boots a large Node program, and the Gateway starts worker threads that load it again: a Gateway
start costs ~14 CPU-s on this 2-core machine, its first agent turn ~9 more. Much of that is bundled plugins the tests
never touch (the browser, canvas, voice, the cloud model providers, GitHub, …), the memory plugin's indexing after
every turn, and per-exec shell snapshots (a login shell that starts Node again). `lean_gateway()` is
tests/support/openclaw_gateway.py's `Gateway` with those turned off in its config and environment; what the tests
exercise is untouched: the Gateway's WebSocket API and its device pairing (the `device-pair` plugin stays), agent
turns against the fake model, the `exec` tool with `tools.exec.mode: "ask"` and its approvals, channel plugins (the
LineUp plugin `lineup connect openclaw` installs is not on the deny list), and `openclaw acp`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.fake_models.openai_chat import FakeChat
from tests.support.openclaw_gateway import Gateway

# The bundled plugins a default Gateway loads (its log: "http server listening (14 plugins: …)"), less device-pair
# (the CLI's and `openclaw acp`'s loopback device pairing) and memory-core (turned off below, as its slot).
UNUSED_PLUGINS = ("anthropic", "browser", "canvas", "cua-computer", "file-transfer", "geolocation", "github",
                  "linux-node", "ollama", "openai", "talk-voice", "xai")

LEAN_CONFIG: dict[str, Any] = {
    "plugins": {"deny": list(UNUSED_PLUGINS), "slots": {"memory": "none"}},
    "update": {"checkOnStart": False},
}

# OpenClaw's documented switches (docs/gateway/embedding.md, heartbeat.md, config-extensions.md): no mDNS
# advertising, no cron (nor the memory plugin's dreaming job), no Gmail watcher, no canvas host, no login-shell
# snapshot before each exec, no update check.
LEAN_ENV = {"OPENCLAW_DISABLE_BONJOUR": "1", "OPENCLAW_SKIP_CRON": "1", "OPENCLAW_SKIP_GMAIL_WATCHER": "1",
            "OPENCLAW_SKIP_CANVAS_HOST": "1", "OPENCLAW_EXEC_SHELL_SNAPSHOT": "0", "OPENCLAW_NO_AUTO_UPDATE": "1"}


def lean_gateway(tmp_path: Path, model: FakeChat) -> Gateway:
    """A `Gateway` (not started) whose config and environment leave out what the tests never use. Its `env` carries
    the switches, so the `openclaw` commands and `openclaw acp` bridges run with them too."""
    gateway = Gateway(tmp_path, model, LEAN_CONFIG)
    gateway.env.update(LEAN_ENV)
    return gateway
