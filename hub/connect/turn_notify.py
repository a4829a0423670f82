"""A finished turn of Codex or Gemini CLI, told to the hub: a task titled from the prompt, succeeded with the reply."""

# Codex's `notify` program and Gemini CLI's `AfterAgent` hook run once per finished turn, with the prompt and the
# agent's last reply. This posts it through the SDK as the agent `lineup connect` paired (the same credential as
# the `lineup mcp` server it registered): one conversation per CLI session (kept in a small file beside the
# credential), and per turn a task created, accepted and succeeded with the reply as a message, so the person
# gets the "finished" notification and the answer on the phone. It must never hold the CLI up or break it: a
# time limit, every failure logged to stderr only, exit status 0 whatever happens.

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
import uuid
from pathlib import Path
from typing import Any

from hub import __version__
from hub.sdk.privatefile import write_private_json

log = logging.getLogger("lineup.connect")

KEEP_SESSIONS = 200        # conversations remembered per credential (the oldest are forgotten first)
MAX_TITLE = 120            # a task title is the start of the prompt
MAX_SUMMARY = 1000         # the task's summary is the start of the reply (the payload allows 2,000)
MAX_MESSAGE = 60_000       # the reply as a message (the payload allows 256 KiB)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _sessions_path(credential_path: Path) -> Path:
    return credential_path.with_name(credential_path.stem + "-turns.json")


def _load_sessions(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _save_sessions(path: Path, sessions: dict[str, str]) -> None:
    while len(sessions) > KEEP_SESSIONS:
        sessions.pop(next(iter(sessions)))
    write_private_json(path, sessions)


def session_key(agent_id: str, session: str) -> str:
    return hashlib.sha256(f"{agent_id}\0{session}".encode()).hexdigest()[:24]


async def open_conversation(client: Any, credential_path: Path, *, cli: str, session: str, cwd: str,
                            timeout_s: float) -> str:
    """The CLI session's conversation (made on first use); shared by the finished turns and the approval hook.

    Its id derives from the agent and the session, and so does the envelope that makes it: two processes making
    it at once make it once (the hub stores each envelope id once). The sessions file only saves the round trip.
    """
    sessions_path = _sessions_path(credential_path)
    sessions = _load_sessions(sessions_path)
    key = session_key(client.credential.agent_id, session)
    conversation_id = sessions.get(key) or f"conv_{cli}_{key}"
    if key not in sessions:
        folder = Path(cwd).name if cwd else ""
        title = f"{cli_label(cli)} · {folder}" if folder else cli_label(cli)
        async with asyncio.timeout(timeout_s):
            await client.send("conversation.create", {"title": title}, id=f"n-{conversation_id}",
                              conversationId=conversation_id)
        sessions[key] = conversation_id
        _save_sessions(sessions_path, sessions)
    return conversation_id


async def post_turn(credential_path: Path, *, cli: str, session: str, cwd: str, prompt: str, reply: str,
                    turn: str | None = None, timeout_s: float = 5.0) -> str:
    """Post one finished turn; returns the task id. Raises on failure (the caller turns that into a log line)."""
    from hub.connect.hooks import reachable
    from hub.mcp.run import CAPABILITIES
    from hub.sdk import AgentClient, load_credential

    credential = load_credential(credential_path)
    # As the Claude Code hooks: a hub that is down costs the CLI milliseconds, not the whole connect timeout
    # (Gemini CLI waits for its AfterAgent hook before the next prompt).
    if not reachable(credential.hub_url):
        raise ConnectionRefusedError(f"the hub at {credential.hub_url} does not answer")
    key = session_key(credential.agent_id, session)
    # The same turn told twice (a retry) is the same task: the hub stores each envelope id once.
    task_id = f"task_{cli}_" + hashlib.sha256(f"{key}\0{turn or uuid.uuid4().hex}".encode()).hexdigest()[:24]
    cursor = credential_path.with_name(credential_path.stem + "-notify.cursor.json")
    client = AgentClient(credential, state_path=cursor, runtime="mcp", agent_version=__version__,
                         capabilities=CAPABILITIES, instance=f"notify-{uuid.uuid4().hex[:12]}",
                         credential_path=credential_path)
    try:
        await client.start(timeout_s)
        conversation_id = await open_conversation(client, credential_path, cli=cli, session=session, cwd=cwd,
                                                  timeout_s=timeout_s)
        fields = {"taskId": task_id, "conversationId": conversation_id}
        title = _one_line(prompt, MAX_TITLE) or f"{cli_label(cli)} turn"
        steps: list[tuple[str, dict[str, Any]]] = [("task.create", {"title": title}), ("task.accepted", {})]
        if reply.strip():
            steps.append(("message.create", {"content": reply[:MAX_MESSAGE], "messageId": f"msg_{task_id[5:]}"}))
        done: dict[str, Any] = {"status": "succeeded", "progress": 100}
        if reply.strip():
            done["summary"] = _one_line(reply, MAX_SUMMARY)
        steps.append(("task.status_changed", done))
        for index, (type_, payload) in enumerate(steps):
            async with asyncio.timeout(timeout_s):
                await client.send(type_, payload, id=f"n-{task_id}-{index}", **fields)
        return task_id
    finally:
        await client.close()


def cli_label(cli: str) -> str:
    return {"codex": "Codex", "gemini": "Gemini CLI"}.get(cli, cli)


def run_quietly(credential_path: Path, **turn: Any) -> None:
    """Post the turn; any failure (hub away, credential revoked, ...) is one line on stderr, never an exit code."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        task_id = asyncio.run(post_turn(credential_path, **turn))
        log.info("turn posted as %s", task_id)
    except Exception as exc:  # noqa: BLE001 - the CLI must go on whatever happened here
        print(f"lineup: the finished turn was not posted to the hub ({type(exc).__name__}: {exc})", file=sys.stderr)
