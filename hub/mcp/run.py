"""Start-up of `lineup mcp`: pair or load the credential, connect as an agent, serve MCP on stdio until EOF."""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
import sys
import uuid
from pathlib import Path

from hub import __version__
from hub.cli_invocation import program
from hub.mcp.bridge import Bridge
from hub.mcp.server import serve_stdio
from hub.mcp.state import SessionState, claim_session, default_session_key, session_files
from hub.protocol.vocabulary import INTERACTION_TYPES
from hub.sdk import AgentClient, pair_or_load

log = logging.getLogger("lineup.mcp")
CAPABILITIES = ["tasks", *INTERACTION_TYPES, "artifacts", "tools", "mcp"]  # it asks every type of question


def default_credential_path(name: str) -> Path:
    """One credential per agent name, so each MCP client (named with --name) is its own agent in the app."""
    import platformdirs

    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "mcp"
    return Path(platformdirs.user_config_dir("lineup-agents", appauthor=False)) / "mcp" / f"{slug}.json"


def log_to_stderr() -> None:
    """Standard output is the MCP protocol: logs go to standard error only."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    logging.getLogger("lineup").setLevel(logging.INFO)


async def run_bridge(credential_path: Path, hub_url: str | None, code: str | None, *, name: str,
                     session_key: str | None = None, progress_interval_s: float = 10.0) -> None:
    """Pair on first run (raises AuthError / SdkError before serving), then serve until the client leaves."""
    credential = await pair_or_load(hub_url, code, credential_path, name=name, runtime="mcp",
                                    agent_version=__version__)
    key, claim = claim_session(credential_path, session_key or default_session_key())
    state_path, cursor_path = session_files(credential_path, key)
    cursor_path.parent.mkdir(parents=True, exist_ok=True)
    state = SessionState.load(state_path)
    # The cursor of this session's agent connection: after a restart the hub replays only what it missed, among
    # it the answers given meanwhile (the SDK replays interaction.resolved only past the saved cursor).
    # Several `lineup mcp` processes may share this agent on purpose (two windows of one MCP client): each is
    # an instance of its own, so they coexist instead of replacing each other (docs/protocol.md).
    client = AgentClient(credential, state_path=cursor_path, runtime="mcp", agent_version=__version__,
                         capabilities=CAPABILITIES, instance=f"mcp-{uuid.uuid4().hex[:16]}",
                         credential_path=credential_path,
                         pair_command=f"{program()} mcp --name {shlex.quote(name)} --code NEW-CODE")
    bridge = Bridge(client, state, progress_interval_s=progress_interval_s)
    bridge.rewind()
    log.info("MCP bridge for agent %s at %s (session %s)", credential.agent_id, credential.hub_url, state_path.stem)
    runner = asyncio.create_task(client.run(), name="lineup-mcp-agent")
    runner.add_done_callback(bridge.agent_stopped)
    try:
        await serve_stdio(bridge)
    finally:
        await client.close()
        if claim is not None:
            claim.close()
