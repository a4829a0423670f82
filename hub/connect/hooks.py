"""`lineup hook claude-code`: one Claude Code hook event in (JSON on stdin), LineUp's answer out (JSON on stdout).

Every hook run is a short process: it connects to the hub as the paired agent (an instance of its own, so hook
processes of parallel tool calls coexist), records what the event means, and for a permission asks the person
with an approval card and prints Claude Code's decision. Whatever goes wrong (the hub down, a refused
credential, a bad event) it prints nothing and exits 0, so Claude Code carries on as it would without LineUp.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import os
import signal
import socket
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

from hub.connect import claude_settings as cs
from hub.connect import tool_activity
from hub.connect.session_state import SessionState, digest, locked
from hub.sdk import approvals

log = logging.getLogger("lineup.connect")

CONNECT_TIMEOUT_S = 2.0   # the hub must answer this fast, or the hook steps aside
EVENTS = ("UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Notification", "Stop",
          "SessionEnd")
ALLOW_ONCE = {"id": "allow_once", "label": "Allow once", "style": "primary",
              "description": "Claude runs it this time and asks again next time."}
DENY = {"id": "deny", "label": "Deny", "style": "danger",
        "description": "Claude does not run it; a note you add is what Claude is told."}
MAX_RULE_SHOWN = 1500  # a rule longer than this is not offered: the option's description must show it whole
# Claude Code's own task list (TaskCreate/TaskUpdate since 2.1; TodoWrite before): shown as the task's steps.
STEP_TOOLS = ("TaskCreate", "TaskUpdate", "TodoWrite")
PERMISSION_NOTICE = "Claude needs your permission"  # Claude Code's Notification while its dialog is shown
STEP_STATUS = {"pending": "queued", "in_progress": "running", "completed": "succeeded", "deleted": "cancelled"}
SHORT_COMMAND = 120  # a command this short, on one line, is named in the card's title; a longer one by its size


def clip(text: str, size: int) -> str:
    text = " ".join(str(text).split()) if size <= 300 else str(text)
    return text if len(text) <= size else text[: size - 1] + "…"


# ---- what a tool call looks like on a card ------------------------------------------------------------------

def describe(tool: str, tool_input: dict[str, Any]) -> tuple[str, str]:
    """(what Claude wants, in a few words; a past-tense line for the timeline).

    A long or multi-line command is named by its size, never by a cut that reads as the whole command: the card
    shows all of it (`approves`)."""
    if tool == "Bash":
        command = str(tool_input.get("command", ""))
        short = len(command) <= SHORT_COMMAND and "\n" not in command.strip()
        wants = f"run: {command.strip()}" if short else f"run a {len(command):,}-character command"
        return wants, (f"Ran `{command.strip()}`" if short else f"Ran a {len(command):,}-character command")
    path = tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path")
    if tool in ("Write",) and path:
        return f"write {path}", f"Wrote {path}"
    if tool in ("Edit", "MultiEdit", "NotebookEdit") and path:
        return f"edit {path}", f"Edited {path}"
    if tool == "Read" and path:
        return f"read {path}", f"Read {path}"
    if tool == "WebFetch" and tool_input.get("url"):
        return f"fetch {tool_input['url']}", f"Fetched {tool_input['url']}"
    if tool in ("Grep", "Glob") and tool_input.get("pattern"):
        return f"search for {clip(tool_input['pattern'], 200)}", f"Searched for {clip(tool_input['pattern'], 200)}"
    return f"use {tool}", f"Used {tool}"


def risk_of(tool: str, tool_input: dict[str, Any]) -> str:
    """The risk the card states; the hub judges `approves` itself and never shows less (hub/domain/command_risk.py)."""
    if tool in ("WebFetch", "Read", "Grep", "Glob"):
        return "low"
    return "medium"


def items_of_call(tool: str, tool_input: dict[str, Any], cwd: str) -> list[dict[str, Any]]:
    """What approving this call approves, whole (docs/protocol.md#what-an-approval-approves): the command, the file
    written or edited, or for any other tool (MCP tools, WebFetch, WebSearch, Task, NotebookEdit...) its name and
    whole input."""
    path = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
    where = cwd or None
    if tool == "Bash" and isinstance(tool_input.get("command"), str) and tool_input["command"].strip():
        return [approvals.command_approval(tool_input["command"], where)]
    if tool == "Write" and path:
        return [approvals.write_approval(path, str(tool_input.get("content") or ""), where)]
    if tool == "Edit" and path:
        return [approvals.edit_approval(path, [{"old": tool_input.get("old_string", ""),
                                                "new": tool_input.get("new_string", ""),
                                                "replaceAll": bool(tool_input.get("replace_all"))}], where)]
    if tool == "MultiEdit" and path:
        edits = [{"old": e.get("old_string", ""), "new": e.get("new_string", ""),
                  "replaceAll": bool(e.get("replace_all"))}
                 for e in tool_input.get("edits") or [] if isinstance(e, dict)]
        return [approvals.edit_approval(path, edits, where)]
    # NotebookEdit (a cell replaced, inserted or deleted in a .ipynb) falls through: its whole input (notebook_path,
    # cell_id, edit_mode, new_source) is the item, never a diff whose removed text the hub would have to invent.
    return [approvals.tool_approval(tool or "tool", tool_input, where)]


class TooLongToShow(Exception):
    """What Claude asks to approve does not fit on a card whole: it is asked in the terminal instead."""

    def __init__(self, what: str, size: int) -> None:
        super().__init__(f"{what} is {size:,} characters")
        self.what, self.size = what, size


def project_dir(event: dict[str, Any]) -> Path:
    """The folder Claude Code started in: where its local settings (and what "allow always" adds) are kept."""
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or event.get("cwd") or ".")


def always_rule(event: dict[str, Any]) -> tuple[str, str] | None:
    """The one rule "Allow always" adds for this call, never wider than it (hub/connect/claude_settings.py
    `rule_for`), or None: then the card offers no "Allow always". Not in print mode in a workspace Claude Code does
    not trust: it would ignore the rule the option promises (interactive Claude Code runs only in a trusted one)."""
    rule = cs.rule_for(str(event.get("tool_name", "")), event.get("tool_input") or {}, str(event.get("cwd") or "")
                       or None)
    if rule is None or len(cs.rule_text(*rule)) > MAX_RULE_SHOWN:
        return None
    if event.get("hook_event_name") == "PreToolUse" and not cs.trusted(project_dir(event), Path.home()):
        return None
    return rule


def allow_always_option(event: dict[str, Any], rule: tuple[str, str]) -> dict[str, Any]:
    """The option, its description stating the exact rule and the file it goes to."""
    settings = cs.local_settings(project_dir(event))
    shown = cs.rule_text(*rule)
    if rule[0] == "Bash":
        scope = "Claude Code stops asking for exactly this command (any other command still asks)."
    else:
        scope = (f"Claude Code stops asking before it writes or edits this one file, {rule[1][1:]}, from now on "
                 "(it compares the name ignoring case); other files still ask.")
    return {"id": "allow_always", "label": "Allow always", "style": "secondary",
            "description": f"Adds `{shown}` to {settings}: {scope}"}


def approval_card(event: dict[str, Any], interaction_id: str, wait_s: float) -> dict[str, Any]:
    """The card for a permission request, carrying all of what it approves; TooLongToShow past a question's size."""
    tool, tool_input = str(event.get("tool_name", "")), event.get("tool_input") or {}
    cwd = str(event.get("cwd", ""))
    wants, _ = describe(tool, tool_input)
    description = str(tool_input.get("description") or "")
    items = items_of_call(tool, tool_input, cwd)
    fitted = approvals.fits(items)
    if fitted is None:
        kind = items[0]["kind"]
        what = "the command" if kind == "command" else f"the change to {items[0].get('path')}" \
            if kind in ("write", "edit") else f"the input of {tool}"
        raise TooLongToShow(what, approvals.size_of(items))
    rule = always_rule(event)
    options = [ALLOW_ONCE, *([allow_always_option(event, rule)] if rule is not None else []), DENY]
    expires = datetime.now(UTC) + timedelta(seconds=wait_s)
    card: dict[str, Any] = {
        "id": interaction_id, "type": "approval", "title": clip(f"Claude wants to {wants}", 500),
        "description": clip(description, 8000), "risk": risk_of(tool, tool_input), "options": options,
        "details": {"tool": tool, "cwd": cwd, "claudeSession": str(event.get("session_id", ""))},
        "expiresAt": expires.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "approves": fitted, "notes": "sent"}  # a note on Deny is the deny message Claude reads
    question = approvals.fit_question(card)
    if question is None:
        raise TooLongToShow("the request", approvals.size_of(items))
    return question


# ---- Claude Code's answers -----------------------------------------------------------------------------------

def pre_tool_use_answer(allow: bool, reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow" if allow else "deny",
                                   "permissionDecisionReason": reason}}


def permission_request_answer(allow: bool, reason: str, updates: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    decision: dict[str, Any] = {"behavior": "allow"} if allow else {"behavior": "deny", "message": reason}
    if allow and updates:
        decision["updatedPermissions"] = updates
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


def remembered(event: dict[str, Any]) -> list[dict[str, Any]]:
    """What "Allow always" asks Claude Code to remember: the one rule the option's description named, in its
    local settings. Claude's own suggestions are not passed on: they can be wider than the call (a folder, a
    whole tool, a mode for the session)."""
    rule = always_rule(event)
    if rule is None:
        return []
    return [{"type": "addRules", "rules": [{"toolName": rule[0], "ruleContent": rule[1]}], "behavior": "allow",
             "destination": "localSettings"}]


def print_mode() -> bool:
    """Claude Code runs `-p` (no permission dialog, no PermissionRequest hook): PreToolUse has to ask.

    Interactive Claude Code sets CLAUDE_CODE_ENTRYPOINT=cli for its hooks; `claude -p` sets sdk-cli. Interactive
    sessions are asked through PermissionRequest only, which fires exactly when Claude would show its dialog,
    so nothing is asked twice and nothing Claude allows by itself is asked at all.
    """
    return os.environ.get("CLAUDE_CODE_ENTRYPOINT", "sdk-cli") in ("sdk-cli", "")


def settled_by_rules(event: dict[str, Any]) -> str | None:
    """In print mode: "deny" or "allow" if the person's settings already decide this call, else None (ask).

    A deny rule, or a permission mode that allows the call, leaves it to Claude Code. An allow rule naming
    exactly this command (what "allow always" writes) is answered "allow" here: Claude Code itself would still
    refuse a redirection to a file in print mode. Any other allow rule is left to Claude Code, which splits
    compound commands (`npm test && rm -rf x` is not `npm test`); this hook does not.
    """
    tool, tool_input = str(event.get("tool_name", "")), event.get("tool_input") or {}
    mode = str(event.get("permission_mode", "default"))
    if mode in ("bypassPermissions", "dontAsk") or (mode == "acceptEdits" and tool in cs.EDIT_TOOLS):
        return "claude"
    project = project_dir(event)
    cwd = str(event.get("cwd") or "") or None
    home = Path.home()
    files = cs.settings_files(project, home)

    def covered(kind: str) -> list[str]:
        return [rule for rule, root in cs.rules_with_roots(files, kind, home)
                if cs.matches(rule, tool, tool_input, root=root, cwd=cwd, home=home)]

    if covered("deny"):
        return "claude"
    allowed = covered("allow")
    exact = cs.rule_for(tool, tool_input, cwd)
    if tool == "Bash" and exact is not None and any(cs.parse(rule) == exact for rule in allowed):
        return "allow"
    return "claude" if allowed else None


# ---- the hub side --------------------------------------------------------------------------------------------

class HookRun:
    """One hook event against the hub, as the agent paired by `lineup connect claude-code`."""

    def __init__(self, credential_path: Path, state_dir: Path, wait_s: float) -> None:
        self.credential_path = credential_path
        self.state_dir = state_dir
        self.wait_s = wait_s
        self.client: Any = None

    async def connect(self) -> bool:
        from hub import __version__
        from hub.cli_invocation import program
        from hub.sdk import AgentClient, load_credential

        credential = load_credential(self.credential_path)
        if not reachable(credential.hub_url):
            return False
        self.client = AgentClient(credential, state_path=self.state_dir / "cursor.json", runtime="claude-code",
                                  agent_version=__version__, capabilities=["tasks", "approval"],
                                  instance=f"hook-{uuid.uuid4().hex[:16]}", credential_path=self.credential_path,
                                  pair_command=(f"{program()} connect claude-code --hub {credential.hub_url} "
                                                f"--credential-file {self.credential_path} --code NEW-CODE "
                                                "--dir <your project> (or --user)"))
        await self.client.start(timeout_s=CONNECT_TIMEOUT_S + 3)
        return True

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()

    @property
    def agent_id(self) -> str:
        return str(self.client.credential.agent_id)

    def ids(self, session_id: str, prompt: int) -> tuple[str, str]:
        return (f"conv_cc_{digest(self.agent_id, session_id)}", f"task_cc_{digest(self.agent_id, session_id, prompt)}")

    async def task(self, event: dict[str, Any], *, prompt: str | None = None) -> tuple[str, str]:
        """The session's conversation and current task, made on first use; a new prompt opens a new task."""
        from hub.sdk import HubError

        session_id = str(event.get("session_id", "unknown"))
        folder = Path(str(event.get("cwd") or ".")).name or "/"
        with locked(self.state_dir / "sessions", session_id) as (state, _):
            if prompt is not None and state.open:
                await self._end(state, session_id, "cancelled", "Interrupted: a new prompt followed")
            if prompt is not None or state.prompts == 0:
                state.prompts += 1
                state.open = False
                state.steps = {}
            conversation_id, task_id = self.ids(session_id, state.prompts)
            if not state.conversation_ready:
                title = clip(f"Claude Code in {folder}" + (f": {prompt}" if prompt else ""), 200)
                await self.client.send("conversation.create", {"title": title}, id=f"cc-{conversation_id}",
                                       conversationId=conversation_id)
                state.conversation_ready = True
            if not state.open:
                state.title = clip(prompt.splitlines()[0] if prompt and prompt.strip() else
                                   f"Claude Code in {folder}", 120) or "Claude Code"
                fields = {"taskId": task_id, "conversationId": conversation_id}
                try:
                    await self.client.send("task.create",
                                           {"title": state.title, "description": clip(prompt or "", 8000)},
                                           id=f"cc-{task_id}", **fields)
                    await self.client.send("task.accepted", {}, id=f"cc-accept-{task_id}", **fields)
                except HubError as exc:
                    log.info("task %s: %s", task_id, exc)
                state.open = True
            self.spawn_keeper(state, session_id)
            return conversation_id, task_id

    async def _end(self, state: SessionState, session_id: str, status: str, summary: str) -> None:
        from hub.sdk import HubError

        conversation_id, task_id = self.ids(session_id, state.prompts)
        # Steps left open end with the task (cancelled: Claude moved on without finishing them), before it.
        for step in state.steps.values():
            await self._move_step(step, "cancelled", task_id, conversation_id)
        payload: dict[str, Any] = {"status": status, "summary": clip(summary, 2000)}
        if status == "succeeded":
            payload["progress"] = 100
        try:
            await self.client.send("task.status_changed", payload, id=f"cc-end-{task_id}", taskId=task_id,
                                   conversationId=conversation_id)
        except HubError as exc:  # e.g. a question still waits (the person may still answer it) or it ended
            log.info("task %s not ended: %s", task_id, exc)
        state.open = False

    def spawn_keeper(self, state: SessionState, session_id: str) -> None:
        """A process that keeps the agent online while the session lives (hook processes come and go)."""
        keeper = self.state_dir / "sessions" / f"{digest(session_id, size=32)}.keeper"
        try:
            pid = int(keeper.read_text())
            os.kill(pid, 0)
            return
        except (OSError, ValueError):
            pass
        command = hook_command_argv() + ["--credential-file", str(self.credential_path), "--keep", session_id,
                                         "--watch-pid", str(claude_pid() or 0)]
        kwargs: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL,
                                  "stderr": subprocess.DEVNULL, "close_fds": True}
        if os.name == "posix":
            kwargs["start_new_session"] = True
        else:
            kwargs["creationflags"] = getattr(subprocess, "DETACHED_PROCESS", 0)
        try:
            keeper.write_text(str(subprocess.Popen(command, **kwargs).pid))
        except OSError as exc:
            log.info("keeper not started: %s", exc)

    # ---- the events ------------------------------------------------------------------------------------

    async def handle(self, event: dict[str, Any]) -> dict[str, Any] | None:
        name = event.get("hook_event_name")
        if name == "UserPromptSubmit":
            await self.withdraw_waiting(str(event.get("session_id", "unknown")), None,
                                        "A new prompt was typed in the terminal.")
            await self.task(event, prompt=str(event.get("prompt", "")))
        elif name in ("PreToolUse", "PermissionRequest"):
            return await self.permission(event, name)
        elif name == "PostToolUse":
            await self.tool_used(event)
        elif name == "Notification":
            await self.notification(event)
        elif name == "Stop":
            await self.stopped(event)
        elif name == "SessionEnd":
            await self.session_end(event)
        return None

    async def permission(self, event: dict[str, Any], name: str) -> dict[str, Any] | None:
        from hub.sdk import HubError

        conversation_id, task_id = await self.task(event)
        log.info("%s for %s; Claude suggests %s", name, event.get("tool_name"),
                 json.dumps(event.get("permission_suggestions"))[:2000])
        session_id = str(event.get("session_id", ""))
        key = event.get("tool_use_id") or json.dumps([event.get("tool_name"), event.get("tool_input")], sort_keys=True)
        try:
            interaction = approval_card(event, self.card_id(session_id, task_id, key), self.wait_s)
        except TooLongToShow as exc:
            await self.too_long(event, exc, task_id, conversation_id)
            return None  # Claude Code's own prompt, in the terminal, shows all of it
        remember_waiting(self.state_dir, session_id, key, interaction["id"])
        try:
            asking = self.client.ask(interaction, task_id=task_id, conversation_id=conversation_id)
            async with asyncio.timeout(self.wait_s + 10):
                outcome = await asking
        except asyncio.CancelledError:
            # Claude Code stopped this hook: the person answered its own dialog in the terminal. The card must not
            # stay approvable on the phone (docs/protocol.md#interactions).
            with contextlib.suppress(Exception):
                async with asyncio.timeout(3):
                    await self.client.withdraw(interaction["id"], "Answered in the terminal.")
            raise
        except HubError as exc:
            if exc.code not in ("not_found", "illegal_transition", "forbidden"):
                raise
            interaction["id"] += "_c"  # the task ended meanwhile: ask in the conversation alone
            remember_waiting(self.state_dir, session_id, key, interaction["id"])
            async with asyncio.timeout(self.wait_s + 10):
                outcome = await self.client.ask(interaction, conversation_id=conversation_id)
        finally:
            forget_waiting(self.state_dir, session_id, key)
        if outcome.outcome == "expired":
            return None  # nobody answered in time: Claude Code's own prompt takes over
        if outcome.cause == "withdrawn":
            return None  # answered in the terminal meanwhile (this process was not stopped in time)
        if outcome.outcome == "cancelled":
            allow, reason = False, "The person cancelled this task in LineUp."
        else:
            allow = outcome.approved
            who = (outcome.responded_by or {}).get("name") or "the person"
            reason = outcome.comment or (f"Allowed in LineUp by {who}." if allow else f"Denied in LineUp by {who}.")
            if not allow and outcome.comment:
                reason = f"The person denied this in LineUp: {outcome.comment}"
        always = allow and outcome.option_id == "allow_always"
        if name == "PermissionRequest":
            return permission_request_answer(allow, reason, remembered(event) if always else None)
        rule = always_rule(event) if always else None
        if rule is not None:  # print mode cannot hand Claude Code a rule: write the one the option named
            cs.add_allow_rule(cs.local_settings(project_dir(event)), cs.rule_text(*rule))
        return pre_tool_use_answer(allow, reason)

    def card_id(self, session_id: str, task_id: str, key: str) -> str:
        return f"int_cc_{digest(self.agent_id, session_id, task_id, key, size=32)}"

    async def too_long(self, event: dict[str, Any], exc: TooLongToShow, task_id: str, conversation_id: str) -> None:
        """Say in the conversation why this one is asked in the terminal, not on the phone."""
        text = (f"Claude is waiting for you in the terminal: {exc.what} is {exc.size:,} characters, too long to show "
                "whole on a card, so it is asked there, where you can read all of it.")
        message_id = f"msg_cc_{digest(self.agent_id, event.get('session_id'), task_id, text, size=32)}"
        await self.client.send("message.create", {"content": text, "messageId": message_id, "attention": True},
                               id=f"cc-{message_id}", taskId=task_id, conversationId=conversation_id)

    async def withdraw_waiting(self, session_id: str, key: str | None, reason: str) -> None:
        """A card still waiting for this call (or, without `key`, for any call of the session) is withdrawn:
        the person answered in the terminal, or Claude moved on. It can no longer be approved on the phone."""
        for card in waiting_cards(self.state_dir, session_id, key):
            await self.client.withdraw(card, reason)
            forget_waiting(self.state_dir, session_id, key)

    async def tool_used(self, event: dict[str, Any]) -> None:
        session_id = str(event.get("session_id", ""))
        used_key = event.get("tool_use_id") or json.dumps([event.get("tool_name"), event.get("tool_input")],
                                                          sort_keys=True)
        await self.withdraw_waiting(session_id, used_key, "Allowed in the terminal: the tool already ran.")
        conversation_id, task_id = await self.task(event)
        tool = str(event.get("tool_name", ""))
        if tool in STEP_TOOLS:  # Claude's own task list: the task's steps and progress, not a timeline line
            await self.steps(event, task_id, conversation_id)
            return
        session_id = str(event.get("session_id", ""))
        key = event.get("tool_use_id") or json.dumps([event.get("tool_name"), event.get("tool_input")], sort_keys=True)
        message_id = f"msg_cc_{digest(self.agent_id, session_id, key, size=32)}"
        # What the tool did, as Claude Code's own screen shows it: a line of words and a tool block (the command's
        # output, the file's diff; hub/connect/tool_activity.py).
        payload = {**tool_activity.message(event), "messageId": message_id}
        await self.client.send("message.create", payload, id=f"cc-{message_id}", taskId=task_id,
                               conversationId=conversation_id)
        if tool == "Write":
            await self.written_file(event, task_id, conversation_id, key)

    async def written_file(self, event: dict[str, Any], task_id: str, conversation_id: str, key: str) -> None:
        """A file Claude wrote is an artifact of the task: small text ones readable in the app, others by path."""
        tool_input = event.get("tool_input") or {}
        path = Path(str(tool_input.get("file_path") or ""))
        if not path.name:
            return
        cwd = Path(str(event.get("cwd") or "."))
        name = str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)
        mime = mimetypes.guess_type(path.name)[0] or "text/plain"
        content = str(tool_input.get("content") or "")
        inline = "data:text/plain;charset=utf-8," + quote(content, safe="")
        payload: dict[str, Any] = {"name": clip(name, 500), "mimeType": mime,
                                   "artifactId": f"art_cc_{digest(self.agent_id, key, size=32)}",
                                   "summary": clip(f"Written by Claude Code in {cwd} ({len(content.encode())} bytes)",
                                                   4000)}
        # A data: URL opens on the phone (as text, never as a page); a bigger file is named by its path only.
        payload["url"] = inline if len(inline) <= 4000 else clip(path.resolve().as_uri(), 4000)
        await self.client.send("artifact.created", payload, id=f"cc-{payload['artifactId']}", taskId=task_id,
                               conversationId=conversation_id)

    async def steps(self, event: dict[str, Any], task_id: str, conversation_id: str) -> None:
        """Claude's task list (TaskCreate/TaskUpdate, or TodoWrite) as child tasks, and the task's progress."""
        tool, tool_input = str(event.get("tool_name")), event.get("tool_input") or {}
        raw_response = event.get("tool_response")
        response: dict[str, Any] = raw_response if isinstance(raw_response, dict) else {}
        wanted: list[tuple[str, str | None, str | None]] = []   # (Claude's id, title, Claude's status)
        if tool == "TaskCreate":
            made: dict[str, Any] = response["task"] if isinstance(response.get("task"), dict) else {}
            wanted.append((str(made.get("id") or tool_input.get("subject")), str(tool_input.get("subject") or ""),
                           "pending"))
        elif tool == "TaskUpdate" and tool_input.get("taskId") is not None:
            wanted.append((str(tool_input["taskId"]), tool_input.get("subject"), tool_input.get("status")))
        elif tool == "TodoWrite":
            for todo in tool_input.get("todos") or []:
                if isinstance(todo, dict) and todo.get("content"):
                    content = str(todo["content"])
                    wanted.append((content, content, todo.get("status")))
        session_id = str(event.get("session_id", "unknown"))
        with locked(self.state_dir / "sessions", session_id) as (state, _):
            for claude_id, title, status in wanted:
                step = state.steps.get(claude_id)
                if step is None:
                    step = state.steps[claude_id] = {
                        "id": f"task_cc_{digest(task_id, claude_id)}", "status": "queued",
                        "title": clip(title or f"Step {claude_id}", 200) or f"Step {claude_id}"}
                    await self.client.send("task.child_created",
                                           {"parentTaskId": task_id, "title": step["title"], "status": "queued",
                                            "taskId": step["id"]},
                                           id=f"cc-{step['id']}", taskId=task_id, conversationId=conversation_id)
                target = STEP_STATUS.get(str(status))
                if target is not None:
                    await self._move_step(step, target, task_id, conversation_id)
            counted = [s for s in state.steps.values() if s["status"] != "cancelled"]
            done = sum(s["status"] == "succeeded" for s in counted)
            current = next((s["title"] for s in counted if s["status"] == "running"), None)
            summary = f"Step {done + 1 if current else done} of {len(counted)}: {current}" if current \
                else f"{done} of {len(counted)} steps done"
            payload = {"progress": done * 100 // len(counted), "summary": summary} if counted else {}
            if payload:
                await self.client.send("task.status_changed", payload, taskId=task_id, conversationId=conversation_id,
                                       id=f"cc-progress-{digest(task_id, json.dumps(state.steps, sort_keys=True))}")

    async def _move_step(self, step: dict[str, str], target: str, task_id: str, conversation_id: str) -> None:
        """Forward only (queued → running → succeeded, or cancelled); a finished step stays finished."""
        from hub.sdk import HubError

        order = ("queued", "running", "succeeded")
        current = step["status"]
        if current in ("succeeded", "cancelled") or current == target:
            return
        path = [target] if target == "cancelled" else list(order[order.index(current) + 1: order.index(target) + 1])
        for status in path:
            try:
                await self.client.send("task.status_changed", {"status": status}, taskId=step["id"],
                                       conversationId=conversation_id, id=f"cc-step-{step['id']}-{status}")
            except HubError as exc:  # e.g. the person cancelled the task: its steps ended with it
                log.info("step %s not moved to %s: %s", step["id"], status, exc)
                return
            step["status"] = status

    async def notification(self, event: dict[str, Any]) -> None:
        """Claude waits for the person (its idle prompt, or a question it asks in the terminal): a notification.

        Not for its permission dialog: the PermissionRequest hook has made that an approval card, which notifies
        by itself ("needs your decision"); a second "is waiting for you" for the same question would be noise."""
        kind = str(event.get("notification_type") or "")
        if kind.endswith("permission_prompt") or str(event.get("message") or "").startswith(PERMISSION_NOTICE):
            return
        conversation_id, task_id = await self.task(event)
        text = clip(str(event.get("message") or "Claude is waiting for you"), 1000)
        if not text.lower().startswith("claude"):
            text = f"Claude is waiting for you: {text}"
        message_id = f"msg_cc_{digest(self.agent_id, event.get('session_id'), task_id, text, size=32)}"
        await self.client.send("message.create", {"content": text, "messageId": message_id, "attention": True},
                               id=f"cc-{message_id}", taskId=task_id, conversationId=conversation_id)

    async def stopped(self, event: dict[str, Any]) -> None:
        session_id = str(event.get("session_id", "unknown"))
        # A card still waiting once Claude has stopped was answered in the terminal (a denial runs no tool, so
        # no PostToolUse withdrew it) or overtaken: it must not stay approvable.
        await self.withdraw_waiting(session_id, None, "Claude finished this turn without waiting for the answer.")
        with locked(self.state_dir / "sessions", session_id) as (state, _):
            if state.open:
                summary = str(event.get("last_assistant_message") or "") or last_reply(event.get("transcript_path"))
                if summary:  # Claude's last words are its reply in the conversation, and the task's summary
                    conversation_id, task_id = self.ids(session_id, state.prompts)
                    message_id = f"msg_cc_{digest(self.agent_id, session_id, task_id, 'reply', size=32)}"
                    await self.client.send("message.create", {"content": clip(summary, 100_000),
                                                              "messageId": message_id},
                                           id=f"cc-{message_id}", taskId=task_id, conversationId=conversation_id)
                await self._end(state, session_id, "succeeded", summary or "Claude finished.")

    async def session_end(self, event: dict[str, Any]) -> None:
        session_id = str(event.get("session_id", "unknown"))
        await self.withdraw_waiting(session_id, None, "Claude Code was closed.")
        with locked(self.state_dir / "sessions", session_id) as (state, path):
            if state.open:
                await self._end(state, session_id, "cancelled", "Claude Code was closed before it finished")
            path.with_suffix(".ended").write_text("")  # the keeper sees it and goes


def remember_waiting(state_dir: Path, session_id: str, key: str, card_id: str) -> None:
    """This tool call's card waits for the person (so a later hook can withdraw it: PostToolUse, Stop)."""
    with locked(state_dir / "sessions", session_id) as (state, _):
        state.waiting[digest(key)] = card_id


def forget_waiting(state_dir: Path, session_id: str, key: str | None) -> None:
    with locked(state_dir / "sessions", session_id) as (state, _):
        if key is None:
            state.waiting.clear()
        else:
            state.waiting.pop(digest(key), None)


def waiting_cards(state_dir: Path, session_id: str, key: str | None) -> list[str]:
    with locked(state_dir / "sessions", session_id) as (state, _):
        if key is None:
            return list(state.waiting.values())
        card = state.waiting.get(digest(key))
        return [card] if card else []


def last_reply(transcript: Any) -> str:
    """The text of the last assistant message in Claude Code's transcript (JSON lines), if it can be read."""
    try:
        with open(str(transcript), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 256 * 1024))
            lines = handle.read().decode(errors="replace").splitlines()
    except (OSError, TypeError):
        return ""
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            parts = [c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text"] \
                if isinstance(content, list) else [str(content or "")]
            text = "\n".join(p for p in parts if p).strip()
            if text:
                return text
    return ""


def claude_pid() -> int | None:
    """The Claude Code process this hook runs under (the nearest ancestor named claude), where /proc tells."""
    pid = os.getppid()
    for _ in range(6):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                stat = handle.read()
        except OSError:
            return None
        name = stat[stat.index("(") + 1: stat.rindex(")")]
        if "claude" in name.lower():
            return pid
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
        if pid <= 1:
            return None
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def reachable(hub_url: str) -> bool:
    """A TCP connect within CONNECT_TIMEOUT_S: a hub that is down costs the hook milliseconds, not a timeout."""
    parsed = urlparse(hub_url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", port), timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:
        return False


def hook_command_argv() -> list[str]:
    """How to start `lineup hook claude-code` from the project folder, never running that folder's code
    (hub/cli_invocation.py `launcher`)."""
    from hub.cli_invocation import launcher

    return launcher() + ["hook", "claude-code"]


def _log_to_file(state_dir: Path) -> None:
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    handler = logging.FileHandler(state_dir / "hook.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s: %(message)s"))
    root = logging.getLogger("lineup")  # never standard error: Claude Code shows it in the transcript
    root.handlers[:] = [handler]
    root.propagate = False
    root.setLevel(logging.WARNING)
    log.setLevel(logging.INFO)


def run_hook(credential_path: Path, state_dir: Path, wait_s: float, raw: str) -> str:
    """The whole hook: what to print (possibly nothing). Never raises."""
    _log_to_file(state_dir)
    try:
        event = json.loads(raw)
        if not isinstance(event, dict) or event.get("hook_event_name") not in EVENTS:
            return ""
        if event["hook_event_name"] == "PreToolUse":
            if not print_mode():
                return ""  # interactive: PermissionRequest asks, right where Claude would show its dialog
            settled = settled_by_rules(event)
            if settled == "allow":
                return json.dumps(pre_tool_use_answer(True, "Allowed always (in LineUp)."))
            if settled is not None:
                return ""
        if not credential_path.exists():
            from hub.cli_invocation import program

            log.warning("no credential at %s: run `%s connect claude-code` again", credential_path, program())
            return ""
        answer = asyncio.run(_run(credential_path, state_dir, wait_s, event))
        return json.dumps(answer) if answer is not None else ""
    except asyncio.CancelledError:  # stopped by the agent (a signal): its card was withdrawn; print nothing
        return ""
    except Exception as exc:  # noqa: BLE001 - the terminal must keep working: log and step aside
        log.warning("hook %s failed: %s: %s", raw[:80].replace("\n", " "), type(exc).__name__, exc)
        return ""


async def _run(credential_path: Path, state_dir: Path, wait_s: float, event: dict[str, Any]) -> dict[str, Any] | None:
    run = HookRun(credential_path, state_dir, wait_s)
    # Claude Code ends a hook it no longer waits for (its dialog answered in the terminal) with SIGTERM: the
    # waiting ask is cancelled, so the card is withdrawn before the process goes.
    main = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT) if os.name == "posix" else ():
        loop.add_signal_handler(number, lambda: main.cancel() if main is not None else None)
    if event.get("hook_event_name") == "SessionEnd":  # the keeper goes even when the hub cannot be told
        sessions = state_dir / "sessions"
        sessions.mkdir(parents=True, exist_ok=True)
        (sessions / f"{digest(str(event.get('session_id', 'unknown')), size=32)}.ended").write_text("")
    try:
        if not await run.connect():
            log.info("hub unreachable: %s steps aside", event.get("hook_event_name"))
            return None
        return await run.handle(event)
    finally:
        await run.close()


def run_keeper(credential_path: Path, state_dir: Path, session_id: str, watch_pid: int = 0,
               max_idle_s: float = 6 * 3600) -> None:
    """Stay connected (the agent online, its task not failing as unreachable) until the session ends.

    It ends at SessionEnd, when the Claude Code process it watches is gone (killed: no SessionEnd), or after
    hours without a hook run."""
    _log_to_file(state_dir)
    sessions = state_dir / "sessions"
    stem = digest(session_id, size=32)
    ended, state_file = sessions / f"{stem}.ended", sessions / f"{stem}.json"

    async def keep() -> None:
        from hub import __version__
        from hub.sdk import AgentClient, load_credential

        client = AgentClient(load_credential(credential_path), runtime="claude-code", agent_version=__version__,
                             capabilities=["tasks", "approval"], instance=f"keep-{stem[:24]}")
        runner = asyncio.create_task(client.run())
        try:
            while not runner.done():
                idle = (datetime.now().timestamp() - state_file.stat().st_mtime) if state_file.exists() else 0
                if ended.exists() or idle > max_idle_s or (watch_pid and not alive(watch_pid)):
                    break
                await asyncio.sleep(1.0)
        finally:
            await client.close()
            ended.unlink(missing_ok=True)

    try:
        asyncio.run(keep())
    except Exception as exc:  # noqa: BLE001 - the keeper is a convenience; its end is logged, never raised
        log.info("keeper for %s stopped: %s", stem, exc)
