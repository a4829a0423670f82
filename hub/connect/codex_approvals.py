"""Codex's own approval prompts on the phone: its `PermissionRequest` hook asks the person with a LineUp card.

Codex (0.124 and newer) runs command hooks shaped like Claude Code's. `PermissionRequest` runs right before
Codex would show its approval prompt ("Would you like to run the following command?"); a hook that prints
`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}` (or
`"deny"` with a `message` the model is told) decides, and one that prints nothing leaves the prompt to Codex.
This module writes that hook into Codex's config.toml and runs it.

Codex runs a hook that no administrator manages only once it is trusted: its `/hooks` screen records the hash of
the hook's definition under `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`. `lineup connect
codex` is the person asking for this hook, so it records that trust itself, with the hash Codex computes
(checked against the real CLI in tests/integration/test_codex_terminal.py): any change to the definition, by
the person or by a new LineUp, makes Codex ask again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import signal
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

log = logging.getLogger("lineup.connect")

EVENT_LABEL = "permission_request"   # how Codex names the event in its trust keys
OPTIONS = [
    {"id": "allow_once", "label": "Allow", "style": "primary", "description": "Codex runs it this time."},
    {"id": "deny", "label": "Deny", "style": "danger",
     "description": "Codex does not run it; a note you add is what Codex is told."},
]


# ---- the config ------------------------------------------------------------------------------------------

def _canonical(value: Any) -> str:
    """Codex's canonical JSON: keys sorted at every level, no spaces."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + _canonical(value[k]) for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_canonical(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def trusted_hash(command: str, timeout_s: int, matcher: str | None = None) -> str:
    """The hash Codex records when the person trusts this hook (one command handler, no status message)."""
    identity: dict[str, Any] = {"event_name": EVENT_LABEL,
                                "hooks": [{"type": "command", "command": command, "timeout": timeout_s,
                                           "async": False}]}
    if matcher is not None:
        identity["matcher"] = matcher
    return "sha256:" + hashlib.sha256(_canonical(identity).encode()).hexdigest()


def hook_tables(config_file: Path, group_index: int, command: str, timeout_s: int) -> str:
    """The TOML for our PermissionRequest hook and its trust entry, as the last group of that event in the file."""
    from hub.presets import toml_string

    key = f"{config_file}:{EVENT_LABEL}:{group_index}:0"
    return ("[[hooks.PermissionRequest]]\n[[hooks.PermissionRequest.hooks]]\n"
            f'type = "command"\ncommand = {toml_string(command)}\ntimeout = {timeout_s}\n'
            f"[hooks.state.{toml_string(key)}]\ntrusted_hash = {toml_string(trusted_hash(command, timeout_s))}\n")


# ---- the hook --------------------------------------------------------------------------------------------

def items_of_request(tool: str, tool_input: dict[str, Any], cwd: str | None) -> list[dict[str, Any]]:
    """What approving the request approves: a command (argv as argv: the hub shows it shell-quoted, so `sh -c
    'eval "$0"' 'rm -rf ~'` reads as it runs), else the tool with its whole input."""
    from hub.sdk import approvals

    raw_command = tool_input.get("command")
    if isinstance(raw_command, list) and raw_command and all(isinstance(p, str) for p in raw_command):
        return [approvals.argv_approval(raw_command, cwd)]
    if isinstance(raw_command, str) and raw_command.strip():
        return [approvals.command_approval(raw_command, cwd)]
    return [approvals.tool_approval(tool, tool_input, cwd)]


def card(event: dict[str, Any], agent_id: str, wait_s: float) -> dict[str, Any]:
    """The approval card for one permission request, carrying the whole command or tool input
    (docs/protocol.md#what-an-approval-approves); TooLongToShow when it would not fit on a card whole (Codex then
    asks in its terminal)."""
    import shlex

    from hub.connect.hooks import SHORT_COMMAND, TooLongToShow, clip
    from hub.connect.session_state import digest
    from hub.sdk import approvals

    tool, tool_input = str(event.get("tool_name") or "Bash"), event.get("tool_input") or {}
    cwd = str(event.get("cwd", ""))
    items = items_of_request(tool, tool_input, cwd or None)
    subject = items[0]
    command = subject.get("command") if subject["kind"] == "command" else None
    if subject.get("argv") is not None:
        command = shlex.join(subject["argv"])
    if not command:
        wants = f"use {tool}"
    elif len(command) <= SHORT_COMMAND and "\n" not in command.strip():
        wants = f"run: {command.strip()}"
    else:
        wants = f"run a {len(command):,}-character command"
    fitted = approvals.fits(items)
    if fitted is None:
        raise TooLongToShow("the command" if command else f"the input of {tool}", approvals.size_of(items))
    key = json.dumps([event.get("session_id"), event.get("turn_id"), tool, tool_input], sort_keys=True)
    expires = datetime.now(UTC) + timedelta(seconds=wait_s)
    details: dict[str, Any] = {"tool": tool, "cwd": cwd, "codexSession": str(event.get("session_id", ""))}
    interaction: dict[str, Any] = {
        "id": f"int_codex_{digest(agent_id, key, size=32)}", "type": "approval",
        "title": clip(f"Codex wants to {wants}", 500),
        "description": clip(str(tool_input.get("description") or ""), 8000), "risk": "medium", "options": OPTIONS,
        "details": details, "expiresAt": expires.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "approves": fitted, "notes": "sent"}  # a note on Deny is the deny message Codex's model reads
    question = approvals.fit_question(interaction)
    if question is None:
        raise TooLongToShow("the request", approvals.size_of(items))
    return question


def decision(allow: bool, message: str) -> dict[str, Any]:
    chosen: dict[str, Any] = {"behavior": "allow"} if allow else {"behavior": "deny", "message": message}
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": chosen}}


async def ask(credential_path: Path, wait_s: float, event: dict[str, Any]) -> dict[str, Any] | None:
    """Ask the person; their answer as Codex's decision, or None (the hub away, nobody answered in time)."""
    from hub import __version__
    from hub.connect.hooks import CONNECT_TIMEOUT_S, TooLongToShow, reachable
    from hub.connect.turn_notify import open_conversation
    from hub.mcp.run import CAPABILITIES
    from hub.sdk import AgentClient, load_credential

    credential = load_credential(credential_path)
    if not reachable(credential.hub_url):
        log.warning("the hub at %s cannot be reached: Codex asks in its terminal", credential.hub_url)
        return None
    client = AgentClient(credential, state_path=credential_path.with_name(credential_path.stem + "-ask.cursor.json"),
                         runtime="mcp", agent_version=__version__, capabilities=CAPABILITIES,
                         instance=f"ask-{uuid.uuid4().hex[:12]}", credential_path=credential_path)
    try:
        await client.start(timeout_s=CONNECT_TIMEOUT_S + 3)
        conversation_id = await open_conversation(client, credential_path, cli="codex",
                                                  session=str(event.get("session_id") or event.get("cwd") or ""),
                                                  cwd=str(event.get("cwd") or ""), timeout_s=CONNECT_TIMEOUT_S + 3)
        try:
            interaction = card(event, credential.agent_id, wait_s)
        except TooLongToShow as exc:
            await client.send("message.create", {
                "content": f"Codex is waiting for you in the terminal: {exc.what} is {exc.size:,} characters, too long "
                           "to show whole on a card, so it is asked there, where you can read all of it.",
                "attention": True}, conversationId=conversation_id)
            return None
        try:
            async with asyncio.timeout(wait_s + 10):
                outcome = await client.ask(interaction, conversation_id=conversation_id)
        except asyncio.CancelledError:  # Codex stopped the hook: its prompt was answered in the terminal
            with contextlib.suppress(Exception):
                async with asyncio.timeout(3):
                    await client.withdraw(interaction["id"], "Answered in the terminal.")
            raise
    finally:
        await client.close()
    if outcome.outcome == "expired" or outcome.cause == "withdrawn":
        return None
    if outcome.outcome == "cancelled":
        return decision(False, "The person cancelled this in LineUp.")
    who = (outcome.responded_by or {}).get("name") or "the person"
    if outcome.approved:
        return decision(True, "")
    return decision(False, f"The person denied this in LineUp: {outcome.comment}" if outcome.comment
                    else f"Denied in LineUp by {who}.")


async def _asked_until_stopped(credential_path: Path, wait_s: float, event: dict[str, Any]) -> dict[str, Any] | None:
    """`ask`, cancelled by SIGTERM/SIGHUP/SIGINT (Codex ending the hook), so the card is withdrawn first."""
    main = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT) if os.name == "posix" else ():
        loop.add_signal_handler(number, lambda: main.cancel() if main is not None else None)
    return await ask(credential_path, wait_s, event)


def run(credential_path: Path, wait_s: float, raw: str) -> str:
    """The whole hook: what to print (possibly nothing, which leaves the prompt to Codex). Never raises."""
    logging.basicConfig(level=logging.WARNING, format="lineup: %(message)s")
    try:
        event = json.loads(raw)
        if not isinstance(event, dict) or event.get("hook_event_name") != "PermissionRequest":
            return ""
        if not credential_path.exists():
            from hub.cli_invocation import program

            log.warning("no credential at %s: run `%s connect codex` again", credential_path, program())
            return ""
        answer = asyncio.run(_asked_until_stopped(credential_path, wait_s, event))
        return json.dumps(answer) if answer is not None else ""
    except asyncio.CancelledError:  # stopped by the agent (a signal): its card was withdrawn; print nothing
        return ""
    except Exception as exc:  # noqa: BLE001 - Codex must go on: its own prompt takes over
        log.warning("the approval was not asked in LineUp (%s: %s)", type(exc).__name__, exc)
        return ""
