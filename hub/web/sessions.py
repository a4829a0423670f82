"""Sessions from the phone over HTTP (docs/sessions.md): agents, projects, worktrees, branches; start, stop, end; the
session list with the terminal agents' conversations; changes, diffs, a review, a commit through an approval card.

Every route is the workspace owner's alone (a member gets `forbidden`, another workspace's session is `not_found`),
and every path in a request is checked on the hub (hub/sessions/folders.py): resolved with its symlinks, inside
`[sessions] roots`, a folder, a git repository where git is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.domain.collaboration import TERMINAL_RUNTIMES
from hub.protocol.actors import Actor
from hub.protocol.envelope import new_id
from hub.protocol.errors import LapError
from hub.sessions import changes, git, repository
from hub.sessions import review as reviews
from hub.sessions.agents import public
from hub.sessions.folders import (
    MAX_PROJECTS,
    WALK_DEPTH,
    WALK_FOLDERS,
    check_folder,
    inside,
    own_git,
    resolved_roots,
    walk_projects,
)
from hub.sessions.host import SessionHost, message_command
from hub.sessions.repository import NOT_A_REPOSITORY_HINT
from hub.sessions.starting import StartRequest, prepare
from hub.store.queries import accounts as people
from hub.store.queries import files as file_rows
from hub.store.queries import sessions as session_rows
from hub.store.queries.records import SessionRecord, TerminalConversationRecord
from hub.web.auth import check_origin, json_body, require_user
from hub.web.port import hub_of

SESSIONS_OFF_HINT = ("Choose the folders of your projects in Settings → Sessions (or set [sessions] roots in the "
                     "hub's lineup.toml); no restart is needed.")
# Why a session ended, in words, for clients without their own (the app says it from `endReason`).
END_NOTES = {"ended": "Ended from the app.", "hub_restarted": "Ended when the hub restarted.",
             "agent_exited": "Ended: the agent's process exited.", "agent_revoked": "Ended: the agent was revoked.",
             "sessions_off": "Ended: sessions were turned off on the hub."}
DIRTY_CHECKED = 20           # projects whose uncommitted state is looked up per listing (each one runs git status)
MAX_WORKTREES = 50
MAX_BRANCHES = 500
MAX_LISTED_SESSIONS = 200
NOTES = {
    "claude-code": "Runs in your terminal (lineup connect claude-code). From here you can answer its questions and "
                   "follow its progress; you cannot send it messages or tasks (they do not reach Claude), stop it or "
                   "end it: do that in its terminal.",
    "mcp": "Runs in its own program (lineup connect / lineup mcp). From here you can answer its questions and follow "
           "its progress; your messages reach it only when it next calls LineUp's tools. You cannot give it tasks "
           "(the hub cannot start work there), stop it or end it: do that in its program.",
    "turns": "Runs in its own program (lineup connect). This conversation shows its finished turns: messages typed "
             "here do not reach it (it reads only its own conversation of LineUp's tools). Type in its program; you "
             "cannot give it tasks, stop it or end it from here.",
}
# Conversations made by a hook or a notify program of `lineup connect` (hub/connect: Claude Code's hooks `conv_cc_`,
# the finished-turn notifier of Codex and Gemini CLI `conv_codex_`, `conv_gemini_`): the agent never reads what is
# written in them, so the app offers no composer there (tests/unit/test_terminal_sessions.py keeps these in step).
HOOK_CONVERSATIONS = ("conv_cc_", "conv_codex_", "conv_gemini_")


def host_of(request: Request) -> SessionHost:
    host = hub_of(request).supervisor.sessions
    if not isinstance(host, SessionHost):  # the supervisor knows its session part only as something it starts
        raise LapError("internal", "This hub has no session host.")
    return host


async def require_owner(request: Request) -> Actor:
    """The signed-in person, who must be the hub's owner (the owner of its first workspace, as for renaming the
    hub): sessions run programs as the hub's user in the folders of the hub's machine, which a member, or the owner
    of another workspace of this hub, must not be able to do."""
    actor = await require_user(request)
    owner = await hub_of(request).read(people.first_owner)
    if owner is None or owner.id != actor.id:
        raise LapError("forbidden", "Only the hub's owner can use sessions: they run programs on the hub's machine.",
                       hint="Sign in as the owner of the hub's first workspace.")
    return actor


def require_enabled(host: SessionHost) -> None:
    if not host.enabled:
        raise LapError("forbidden", "Sessions are off on this hub.", hint=SESSIONS_OFF_HINT,
                       details={"reason": "sessions_off"})


def _load(value: str | None) -> Any:
    return None if value is None else json.loads(value)


def _param(request: Request, name: str, *, required: bool = True, limit: int = 4096) -> str:
    value = request.query_params.get(name)
    if value is None or value == "":
        if required:
            raise LapError("invalid_payload", f"Query parameter {name!r} is needed.")
        return ""
    if len(value) > limit:
        raise LapError("invalid_payload", f"Query parameter {name!r} is too long.")
    return value


# ---- what to start ------------------------------------------------------------------------------------------------

async def list_agents(request: Request) -> JSONResponse:
    """Each agent a session can run: installed or how to install it, and the modes and models it offers. Answered at
    once: an agent whose program is still being asked (hub/sessions/probes.py) is listed with `checking: true`."""
    await require_owner(request)
    host = host_of(request)
    catalogue = host.catalogue
    listed = []
    for key in catalogue.names():
        agent = catalogue.peek(key)
        if agent is None:
            continue
        offered = catalogue.offered(key)
        entry: dict[str, Any] = {"key": key, "name": agent.name, "installed": agent.installed,
                                 "install": agent.install, "modes": public(offered.get("modes") or []),
                                 "models": public(offered.get("models") or []),
                                 "offeredAt": offered.get("offeredAt")}
        if not agent.installed:  # the parts the app words "how to install it" from (`install` says it in English)
            entry.update(installCommand=agent.install_command, configKey=f"sessions.agents.{key}",
                         missingProgram=agent.missing_program)
        if agent.checking:
            entry["checking"] = True
        if offered.get("takes"):
            entry["takes"] = offered["takes"]
        listed.append(entry)
    return JSONResponse(listed)


def _head_branch(folder: Path) -> str | None:
    """The branch a repository has checked out, read from .git/HEAD (no git process per project)."""
    try:
        text = (folder / ".git" / "HEAD").read_text(errors="replace").strip()
    except OSError:
        return None
    return text.removeprefix("ref: refs/heads/") if text.startswith("ref: refs/heads/") else None


def _remembered(row: SessionRecord) -> dict[str, Any]:
    return {"agent": row.agent_key, "where": row.where_kind, "mode": row.mode, "model": row.model}


async def list_projects(request: Request) -> JSONResponse:
    """The projects under the roots, the recently used first, each with what its last session chose."""
    actor = await require_owner(request)
    host = host_of(request)
    roots = [str(root.expanduser()) for root in host.settings.roots]
    query = _param(request, "query", required=False, limit=200)
    try:
        limit = int(request.query_params.get("limit") or 100)
    except ValueError:
        raise LapError("invalid_payload", "Query parameter 'limit' must be a whole number.") from None
    limit = max(1, min(limit, MAX_PROJECTS))
    if not host.enabled:
        return JSONResponse({"roots": [], "projects": [], "truncated": False, "enabled": False,
                             "hint": SESSIONS_OFF_HINT})
    found, cut = await asyncio.to_thread(walk_projects, host.settings.roots, query)
    paths = [str(f.path) for f in found]
    latest = await hub_of(request).read(lambda c: session_rows.latest_by_project(c, actor.workspace_id, paths))
    projects: list[dict[str, Any]] = []
    for item in found:
        entry: dict[str, Any] = {"path": str(item.path), "name": item.path.name, "git": item.git}
        if item.refused:  # a .git that leads out of the folder: no git runs there (hub/sessions/repository.py)
            entry["gitRefused"] = f"Not used as a git repository: {item.refused}."
        if item.git:
            branch = _head_branch(item.path)
            if branch:
                entry["branch"] = branch
        last = latest.get(str(item.path))
        if last is not None:
            entry["lastUsedAt"] = last.created_at
            entry["remembered"] = _remembered(last)
        projects.append(entry)
    projects.sort(key=lambda p: p["name"].lower())
    projects.sort(key=lambda p: p.get("lastUsedAt") or "", reverse=True)
    truncated = cut or len(projects) > limit
    projects = projects[:limit]
    semaphore = asyncio.Semaphore(4)

    async def mark_dirty(entry: dict[str, Any]) -> None:
        async with semaphore:
            try:
                async with asyncio.timeout(5):
                    entry["dirty"] = await git.dirty(Path(entry["path"]))
            except (TimeoutError, git.GitError):
                pass

    await asyncio.gather(*(mark_dirty(e) for e in [p for p in projects if p["git"]][:DIRTY_CHECKED]))
    return JSONResponse({"roots": roots, "projects": projects, "truncated": truncated, "enabled": True,
                         "limits": {"depth": WALK_DEPTH, "foldersLooked": WALK_FOLDERS, "projects": MAX_PROJECTS,
                                    "dirtyChecked": DIRTY_CHECKED}})


async def _repo(request: Request, host: SessionHost) -> Path:
    require_enabled(host)
    project = check_folder(_param(request, "project"), host.settings.roots)
    found = await repository.checked(project, resolved_roots(host.settings.roots))
    if found.pin is None:
        raise LapError("invalid_payload", f"{repository.refusal(project, found)}.", hint=NOT_A_REPOSITORY_HINT)
    return found.pin.folder


async def list_worktrees(request: Request) -> JSONResponse:
    """The project's worktrees (`git worktree list`): path, branch, head, uncommitted changes, the main one."""
    await require_owner(request)
    host = host_of(request)
    repo = await _repo(request, host)
    roots = host.running_roots()
    listed = []
    for worktree in (await git.worktrees(repo))[:MAX_WORKTREES]:
        path = Path(worktree.path)
        usable = path.is_dir() and not worktree.prunable and inside(path.resolve(), roots) \
            and own_git(path.resolve(), roots)[0] is not None  # its .git still names it back (no git run otherwise)
        entry: dict[str, Any] = {"path": worktree.path, "branch": worktree.branch, "head": worktree.head,
                                 "main": worktree.main, "usable": usable, "dirty": None}
        if usable:
            with contextlib.suppress(git.GitError):
                entry["dirty"] = await git.dirty(path)
        listed.append(entry)
    return JSONResponse(listed)


async def list_branches(request: Request) -> JSONResponse:
    """The project's local branches, the most recently committed first (at most 500)."""
    await require_owner(request)
    host = host_of(request)
    repo = await _repo(request, host)
    return JSONResponse(await git.branches(repo, MAX_BRANCHES))


# ---- sessions --------------------------------------------------------------------------------------------------

def session_view(row: SessionRecord, live_status: str | None = None, agent_name: str = "") -> dict[str, Any]:
    status = row.status if row.status == "ended" else (live_status or row.status)
    note = ""
    if status == "ended":
        note = END_NOTES.get(row.end_reason or "", "Ended.")
    return {"kind": "hub", "sessionId": row.id, "conversationId": row.conversation_id, "agentId": row.agent_id,
            "agentKey": row.agent_key, "agentName": agent_name or row.agent_key, "title": row.title,
            "project": row.project, "folder": row.folder,
            "where": row.where_kind, "worktree": _load(row.worktree), "baseCommit": row.base_commit,
            "baseRef": row.base_ref, "mode": row.mode, "model": row.model, "usage": _load(row.usage),
            "status": status, "endReason": row.end_reason, "pendingCommit": row.pending_commit,
            "createdAt": row.created_at, "endedAt": row.ended_at, "lastActivityAt": row.updated_at,
            "canSend": status != "ended", "canStop": status == "running", "canEnd": status != "ended",
            "note": note}


def terminal_view(row: TerminalConversationRecord, online_since: str | None = None) -> dict[str, Any]:
    """A terminal agent's conversation: `running` while a task of it is active; `idle` while its agent is online and
    the conversation has been active since the agent last came online (its program's run, which the conversation
    belongs to); else `ended`, also for an older conversation of an agent now running elsewhere. `online_since`: when
    the agent last came online (hub/gateway/presence.py), None when not known."""
    if row.active_tasks:
        status = "running"
    elif row.agent_status == "online" and (online_since is None or row.updated_at >= online_since):
        status = "idle"
    else:
        status = "ended"
    hooked = row.conversation_id.startswith(HOOK_CONVERSATIONS)
    note = NOTES["turns"] if hooked and row.runtime == "mcp" else \
        NOTES.get(row.runtime, "Runs outside the hub: the hub cannot start, stop or end it.")
    return {"kind": "terminal", "conversationId": row.conversation_id, "agentId": row.agent_id,
            "agentName": row.agent_name, "runtime": row.runtime, "title": row.title, "status": status,
            "lastActivityAt": row.updated_at, "canSend": row.runtime == "mcp" and not hooked, "canStop": False,
            "canEnd": False, "note": note}


async def list_sessions(request: Request) -> JSONResponse:
    """The sessions and the terminal agents' conversations, the most recently active first."""
    actor = await require_owner(request)
    host = host_of(request)

    def read(c: sqlite3.Connection) -> tuple[list[SessionRecord], list[TerminalConversationRecord]]:
        return (session_rows.recent_sessions(c, actor.workspace_id, MAX_LISTED_SESSIONS),
                session_rows.terminal_conversations(c, actor.workspace_id, list(TERMINAL_RUNTIMES),
                                                    MAX_LISTED_SESSIONS))

    rows, terminal = await hub_of(request).read(read)
    listed = [session_view(r, host.live[r.id].status if r.id in host.live else None,
                           host.catalogue.name_of(r.agent_key)) for r in rows]
    presence = hub_of(request).presence
    listed += [terminal_view(t, presence.came_online_at(t.agent_id)) for t in terminal]
    listed.sort(key=lambda s: s["lastActivityAt"] or "", reverse=True)
    return JSONResponse(listed[:MAX_LISTED_SESSIONS])


async def get_session(request: Request) -> JSONResponse:
    actor = await require_owner(request)
    host = host_of(request)
    row = await host.record(actor, request.path_params["session_id"])
    return JSONResponse(session_view(row, host.live[row.id].status if row.id in host.live else None,
                                     host.catalogue.name_of(row.agent_key)))


async def start_session(request: Request) -> JSONResponse:
    """Start a session: its folder or worktree, its process, its first message. 201 {sessionId, conversationId}."""
    actor = await require_owner(request)
    host = host_of(request)
    require_enabled(host)
    body: StartRequest = await json_body(request, StartRequest)
    await host.wait_ready()
    hub = hub_of(request)
    running = await hub.read(session_rows.running_count)
    if running >= host.settings.max_running:  # before a worktree is made for nothing (checked again when stored)
        raise LapError("rate_limited", f"{running} sessions are running, the most this hub runs at once.",
                       hint="End a session you no longer need, or raise [sessions] max_running in lineup.toml.",
                       details={"limit": "sessions", "max": host.settings.max_running})
    if body.attachments:
        wanted = [a.fileId for a in body.attachments]
        stored = await hub.read(lambda c: file_rows.files(c, wanted, actor.workspace_id))
        missing = [f for f in wanted if f not in stored]
        if missing:
            raise LapError("not_found", f"No file {missing[0]!r} in this workspace.",
                           hint="Upload it first (POST /api/files) and attach the fileId it answers.")
    payload, agent, first, found = await prepare(host.settings, host.catalogue, body, host.state_dir / "tmp")
    live = await host.create(actor, payload, agent, first, found)
    answer: dict[str, Any] = {"sessionId": live.id, "conversationId": live.conversation_id,
                              "agentId": live.record.agent_id, "folder": live.record.folder}
    if payload.get("worktree"):
        answer["worktree"] = payload["worktree"]
    return JSONResponse(answer, status_code=201)


async def stop_session(request: Request) -> JSONResponse:
    """Stop the turn running now (ACP session/cancel); the session and its process stay."""
    check_origin(request)
    actor = await require_owner(request)
    host = host_of(request)
    return JSONResponse({"stopped": await host.stop_turn(actor, request.path_params["session_id"])})


async def end_session(request: Request) -> JSONResponse:
    """End the session: its process stops, `session.ended`; a worktree is never deleted."""
    check_origin(request)
    actor = await require_owner(request)
    host = host_of(request)
    record = await host.record(actor, request.path_params["session_id"])
    ended = await host.end(record, "ended", None, actor)
    return JSONResponse({"ended": ended, "status": "ended"})


# ---- changes, diffs, review, commit -------------------------------------------------------------------------

async def _against(request: Request) -> str:
    against = request.query_params.get("against") or "start"
    if against not in changes.AGAINST:
        raise LapError("invalid_payload", f"`against` is one of {', '.join(changes.AGAINST)}.")
    return against


async def _trees(host: SessionHost, record: SessionRecord, against: str) -> tuple[Path, str, str]:
    """The folder, the baseline `against` names and the folder's tree now; git pinned to the session's repository
    by the caller (`_repository`)."""
    folder = Path(record.folder)
    baseline = await changes.baseline_of(folder, against, record.start_snapshot, record.base_commit, record.base_ref)
    current = await git.working_tree(folder, host.state_dir / "tmp")
    return folder, baseline, current


async def session_changes(request: Request) -> JSONResponse:
    """The files changed against the session's start, HEAD (uncommitted) or its base: status and +/− counts."""
    actor = await require_owner(request)
    host = host_of(request)
    record = await host.record(actor, request.path_params["session_id"])
    against = await _against(request)
    _, pin = await host.repository_of(record)
    try:
        with git.pinned(pin):
            folder, baseline, current = await _trees(host, record, against)
            files, truncated = await changes.changed_files(folder, baseline, current)
    except git.GitError as exc:
        raise LapError("conflict", f"git could not list the changes: {exc}") from None
    return JSONResponse({"against": against, "files": [f.as_dict() for f in files], "truncated": truncated,
                         "totals": {"files": len(files), "added": sum(f.added for f in files),
                                    "removed": sum(f.removed for f in files)}})


async def session_diff(request: Request) -> JSONResponse:
    """One changed file's unified diff (cut at 512 KiB; a binary file is named, not shown)."""
    actor = await require_owner(request)
    host = host_of(request)
    record = await host.record(actor, request.path_params["session_id"])
    against = await _against(request)
    path = _param(request, "path")
    _, pin = await host.repository_of(record)
    try:
        with git.pinned(pin):
            folder, baseline, current = await _trees(host, record, against)
            files, _ = await changes.changed_files(folder, baseline, current)
            entry = next((f for f in files if f.path == path), None)
            if entry is None:
                raise LapError("not_found", f"{path} has no changes against {against}.",
                               hint="Pick a file from the session's changes.")
            if entry.binary:
                return JSONResponse({**entry.as_dict(), "against": against, "diff": "", "truncated": False})
            text, truncated = await changes.file_diff(folder, baseline, current, entry)
    except git.GitError as exc:
        raise LapError("conflict", f"git could not show the diff: {exc}") from None
    return JSONResponse({**entry.as_dict(), "against": against, "diff": text, "truncated": truncated})


class CommitRequest(msgspec.Struct, forbid_unknown_fields=True):
    message: str


async def session_review(request: Request) -> JSONResponse:
    """The person's comments on lines, sent to the agent as one message (file:line, the line quoted, the comment)."""
    actor = await require_owner(request)
    host = host_of(request)
    body: reviews.Review = await json_body(request, reviews.Review)
    reviews.check(body)
    record = await host.record(actor, request.path_params["session_id"])
    if record.status == "ended":
        raise LapError("conflict", "This session has ended: its agent no longer runs.",
                       hint="Start a new session to go on.")
    folder = await host.check_folder_of(record)
    baseline = record.start_snapshot or record.base_commit or ""
    quoted: list[reviews.Quoted] = []
    if baseline and any(c.side == "old" for c in body.comments):  # the old side is read from git: its repository
        _, pin = await host.repository_of(record)
        with git.pinned(pin):
            quoted = await reviews.quote_lines(folder, baseline, body.comments)
    elif body.comments:
        quoted = await reviews.quote_lines(folder, baseline, body.comments)
    text = reviews.message(quoted, body.summary)
    message_id = new_id("msg")
    await hub_of(request).execute(message_command(actor, record.conversation_id, {
        "content": text, "messageId": message_id, "targetAgentId": record.agent_id}))
    return JSONResponse({"messageId": message_id, "conversationId": record.conversation_id, "content": text},
                        status_code=201)


async def session_commit(request: Request) -> JSONResponse:
    """Ask, through an approval card of the session's agent, to commit everything uncommitted; 202 {interactionId}."""
    actor = await require_owner(request)
    host = host_of(request)
    body: CommitRequest = await json_body(request, CommitRequest)
    message = body.message.strip()
    if not message or len(message) > 4000 or "\0" in message:
        raise LapError("invalid_payload", "A commit needs a message of at most 4000 characters.")
    record = await host.record(actor, request.path_params["session_id"])
    try:
        interaction_id = await host.request_commit(actor, record, message)
    except git.GitError as exc:
        raise LapError("conflict", f"git could not list the changes: {exc}") from None
    return JSONResponse({"interactionId": interaction_id, "conversationId": record.conversation_id},
                        status_code=202)


routes = [
    Route("/api/sessions/agents", list_agents),
    Route("/api/sessions/projects", list_projects),
    Route("/api/sessions/worktrees", list_worktrees),
    Route("/api/sessions/branches", list_branches),
    Route("/api/sessions", list_sessions, methods=["GET"]),
    Route("/api/sessions", start_session, methods=["POST"]),
    Route("/api/sessions/{session_id}", get_session, methods=["GET"]),
    Route("/api/sessions/{session_id}/stop", stop_session, methods=["POST"]),
    Route("/api/sessions/{session_id}/end", end_session, methods=["POST"]),
    Route("/api/sessions/{session_id}/changes", session_changes),
    Route("/api/sessions/{session_id}/diff", session_diff),
    Route("/api/sessions/{session_id}/review", session_review, methods=["POST"]),
    Route("/api/sessions/{session_id}/commit", session_commit, methods=["POST"]),
]
