"""Helpers for the reliability drills (tests/reliability/): reading the log behind the hub's back, checking
its invariants, and setting up a workspace with agents in one conversation."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.hubproc import HubProcess, pair_agent, run_cli
from tests.support.lap import LapClient

# ---- the log as stored ------------------------------------------------------------------------------

def log_rows(db_path: Path) -> list[dict[str, Any]]:
    """Every row of `events`, in sequence order, read through a read-only connection (the hub may run)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        rows = conn.execute("SELECT sequence, id, type, workspace_id, actor, payload, request_hash FROM events "
                            "ORDER BY sequence").fetchall()
    finally:
        conn.close()
    return [{"sequence": r[0], "id": r[1], "type": r[2], "workspaceId": r[3], "actor": r[4],
             "payload": json.loads(r[5]), "requestHash": r[6]} for r in rows]


def recipient_sequences(db_path: Path, agent_id: str) -> list[int]:
    """The sequences addressed to one agent, in order."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        return [r[0] for r in conn.execute("SELECT sequence FROM event_recipients WHERE agent_id = ? ORDER BY sequence",
                                           (agent_id,))]
    finally:
        conn.close()


def assert_log_sound(rows: list[dict[str, Any]]) -> None:
    """The log's own invariants: sequence 1..head without holes, every id once."""
    sequences = [r["sequence"] for r in rows]
    assert sequences == list(range(1, len(rows) + 1)), "the log has holes or is out of order"
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "an id is stored twice"


def http_events(hub: HubProcess, token: str, after: int = 0) -> list[dict[str, Any]]:
    """The workspace's events after `after` through GET /api/events, following `nextAfter` page by page."""
    found: list[dict[str, Any]] = []
    with httpx.Client(base_url=hub.base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as client:
        while True:
            answer = client.get("/api/events", params={"after": after})
            answer.raise_for_status()
            body = answer.json()
            found.extend(body["events"])
            if body["nextAfter"] is None:
                return found
            after = body["nextAfter"]


def db_check(data_dir: Path) -> subprocess.CompletedProcess[str]:
    """`lineup db check`; the caller asserts on returncode (0 ok, 1 a breach) and shows the output."""
    return run_cli(data_dir, "db", "check", check=False)


def assert_db_check(data_dir: Path) -> None:
    result = db_check(data_dir)
    assert result.returncode == 0, f"db check failed:\n{result.stdout}\n{result.stderr}"


# ---- what a client received ---------------------------------------------------------------------------

def stored_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames that are stored events (they carry a sequence), in arrival order."""
    return [f for f in frames if f.get("sequence") is not None]


def answers_by_id(frames: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """ack and error frames grouped by the envelope id they answer."""
    found: dict[str, list[dict[str, Any]]] = {}
    for f in frames:
        if f["type"] in ("system.ack", "system.error") and f["payload"].get("id") is not None:
            found.setdefault(f["payload"]["id"], []).append(f)
    return found


def assert_resumed_stream(frames: list[dict[str, Any]], expected: list[int]) -> dict[str, Any]:
    """A resumed socket got exactly `expected` sequences, in order, once each, and `caught_up` after the replay.

    Returns the caught_up frame. Events after caught_up are live; the whole stream must still be `expected`.
    """
    got = [f["sequence"] for f in stored_frames(frames)]
    assert len(got) == len(set(got)), f"duplicate events: {sorted(s for s in set(got) if got.count(s) > 1)[:10]}"
    assert got == sorted(got), "events out of order"
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    assert not missing, f"{len(missing)} events missing, first {missing[:10]}"
    assert not extra, f"{len(extra)} events not expected, first {extra[:10]}"
    caught = [i for i, f in enumerate(frames) if f["type"] == "system.caught_up"]
    assert len(caught) == 1, f"expected one caught_up, got {len(caught)}"
    marker = frames[caught[0]]
    before = [f["sequence"] for f in stored_frames(frames[:caught[0]])]
    after = [f["sequence"] for f in stored_frames(frames[caught[0] + 1:])]
    assert all(s <= marker["payload"]["sequence"] for s in before), "an event past caught_up came before it"
    assert all(s > marker["payload"]["sequence"] for s in after), "an event at or before caught_up came after it"
    return marker


# ---- a workspace with agents in one conversation ---------------------------------------------------------

@dataclass
class Workspace:
    hub: HubProcess
    token: str
    agents: list[dict[str, str]] = field(default_factory=list)
    conversation_id: str = "c-drill"

    @property
    def db_path(self) -> Path:
        return self.hub.data_dir / "lineup.db"


async def make_workspace(hub: HubProcess, agents: int = 1, conversation_id: str = "c-drill") -> Workspace:
    """Owner token, `agents` paired agents, and a conversation holding all of them (created by an app)."""
    token = await asyncio.to_thread(hub.token)
    paired = [await asyncio.to_thread(pair_agent, hub, token, f"agent-{i}") for i in range(agents)]
    app = await LapClient.connect(hub.ws_base, "app", token)
    try:
        await app.ok("conversation.create", {"title": "drill", "agentIds": [p["agentId"] for p in paired]},
                     conversationId=conversation_id)
    finally:
        await app.close()
    return Workspace(hub, token, paired, conversation_id)


async def wait_acks(client: LapClient, ids: list[str], timeout: float = 30.0) -> dict[str, dict[str, Any]]:
    """Wait until every id has its answer; returns id -> the answer frame."""
    wanted = set(ids)

    async def scan() -> dict[str, dict[str, Any]]:
        while True:
            found = {k: v[0] for k, v in answers_by_id(client.frames).items() if k in wanted}
            if len(found) == len(wanted):
                return found
            if client.closed.is_set():
                raise ConnectionError(f"socket closed ({client.ws.close_code}) with {len(wanted) - len(found)} "
                                      "envelopes unanswered")
            await asyncio.sleep(0.01)

    return await asyncio.wait_for(scan(), timeout)


def make_workspace_sync(hub: HubProcess, agents: int = 1, conversation_id: str = "c-drill") -> Workspace:
    """`make_workspace` for module-scoped fixtures: runs in a thread with its own event loop, so the loop the
    async tests use is neither running yet nor disturbed."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, make_workspace(hub, agents, conversation_id)).result(timeout=60)
