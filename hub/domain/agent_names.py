"""A new agent's name, told apart from a live agent of the same name that reaches the hub another way."""

from __future__ import annotations

import sqlite3

from hub.store.queries import agents

# The way each runtime reaches the hub, said after the name when another live agent has it: Hermes added with
# `lineup agents add` and with `lineup connect` were two agents called "Hermes", the same in every list.
WAYS = {"acp": "run by the hub", "hermes": "gateway", "openclaw": "channel", "claude-code": "terminal", "mcp": "MCP"}
MAX_NAME = 100


def distinct_name(conn: sqlite3.Connection, workspace_id: str, name: str, runtime: str, agent_version: str) -> str:
    """`name`, or, when a live agent of the workspace that reaches the hub another way (another runtime, or the hub's
    sessions beside its `[[agents]]`) has it, the name with that way: "Hermes (gateway)", "Hermes (run by the hub)".
    An agent paired again the same way keeps the name it asked for: that is the same agent's pairing, not a second."""
    live = [a for a in agents.agents_of_workspace(conn, workspace_id) if a.revoked_at is None]
    taken = {a.name.casefold() for a in live}
    if name.casefold() not in taken:
        return name
    same_way = [a for a in live if a.name.casefold() == name.casefold()
                and a.runtime == runtime and (a.agent_version == "sessions") == (agent_version == "sessions")]
    if same_way:
        return name
    way = "sessions" if agent_version == "sessions" else WAYS.get(runtime, "")
    candidates = [f"{name} ({way})"] if way else []
    candidates += [f"{name} ({way} {n})" if way else f"{name} {n}" for n in range(2, 100)]
    for candidate in candidates:
        if len(candidate) <= MAX_NAME and candidate.casefold() not in taken:
            return candidate
    return name
