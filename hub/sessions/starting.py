"""`POST /api/sessions`: the request checked on the hub, the folder or worktree made ready, the start snapshotted.

Where the agent works: the project folder itself; a new worktree (`git worktree add -b <branch> <path> <from>`, at
`<repo's parent>/<repo>.worktrees/<branch>`, the branch named from the first message unless given); or an existing
worktree of the project (one `git worktree list` names, inside the roots). docs/sessions.md "Starting a session".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from hub.protocol.envelope import new_id
from hub.protocol.errors import LapError
from hub.protocol.payloads import MAX_ATTACHMENTS
from hub.sessions import git, repository
from hub.sessions.agents import Catalogue, SessionAgent
from hub.sessions.folders import check_folder, inside, resolved_roots, worktree_location
from hub.settings import SessionSettings

MAX_MESSAGE_CHARS = 256 * 1024
MAX_CHOICE_CHARS = 200
AUTO_BRANCH_PREFIX = "lineup/"


class WhereFolder(msgspec.Struct, tag_field="kind", tag="folder", forbid_unknown_fields=True):
    pass


class WhereNewWorktree(msgspec.Struct, tag_field="kind", tag="new_worktree", forbid_unknown_fields=True):
    branch: str | None = None
    from_: str | None = msgspec.field(default=None, name="from")


class WhereWorktree(msgspec.Struct, tag_field="kind", tag="worktree", forbid_unknown_fields=True):
    path: str


WHERE_KINDS: dict[type, str] = {WhereFolder: "folder", WhereNewWorktree: "new_worktree", WhereWorktree: "worktree"}


class AttachmentRef(msgspec.Struct, forbid_unknown_fields=True):
    fileId: str


class StartRequest(msgspec.Struct, forbid_unknown_fields=True):
    agent: str
    project: str
    message: str = ""
    where: WhereFolder | WhereNewWorktree | WhereWorktree = msgspec.field(default_factory=WhereFolder)
    mode: str | None = None
    model: str | None = None
    attachments: list[AttachmentRef] | None = None
    title: str | None = None


def branch_words(message: str, limit: int = 40) -> str:
    """The message's first words, lower-case, dashed, at most `limit` characters, cut between words (a first word
    longer than that is cut at the limit); the app names the same (ui/lib/sessions.js autoBranch)."""
    words = re.sub(r"[^a-z0-9]+", "-", message.lower()).strip("-")
    if len(words) > limit:
        head = words[:limit + 1]  # its last character a dash: the limit falls at a word's end
        words = head[:head.rfind("-")] if "-" in head else words[:limit]
    return words.strip("-") or "session"


def branch_from(message: str, taken: set[str]) -> str:
    """`lineup/<the message's first words>` (branch_words), made unique with -2, -3, ..."""
    name = f"{AUTO_BRANCH_PREFIX}{branch_words(message)}"
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}-{number}", number + 1
    return candidate


async def check_choice(catalogue: Catalogue, key: str, what: str, value: str | None) -> None:
    """A mode or model the agent offered when it last started (any text until it has started once)."""
    if value is None:
        return
    if not value or len(value) > MAX_CHOICE_CHARS:
        raise LapError("invalid_payload", f"`{what}` must be the id of one of the agent's {what}s.")
    offered = catalogue.offered(key)
    if offered.get("offeredAt") is None:
        return  # not known yet: applied if the agent offers it, said if it does not
    ids = [entry["id"] for entry in offered.get(f"{what}s") or []]
    if value not in ids:
        raise LapError("invalid_payload", f"The agent does not offer the {what} {value!r}.",
                       hint=f"Its {what}s: {', '.join(ids) or 'none'}.")


async def prepare(settings: SessionSettings, catalogue: Catalogue, request: StartRequest,
                  scratch: Path) -> tuple[dict[str, Any], SessionAgent, dict[str, Any], repository.Found]:
    """Check the request and make its folder ready: the `session.started` payload (without the agent's id), the agent
    to run, the first message's payload, and the repository the folder belongs to (its pin None: it is no repository
    the hub may use, and why), which the host remembers (hub/sessions/repository.py)."""
    agent = await catalogue.agent(request.agent)
    if agent is None:
        raise LapError("not_found", f"No agent {request.agent!r} for sessions.",
                       hint=f"Choose one of: {', '.join(catalogue.names())}.")
    if not agent.installed:
        raise LapError("not_found", f"{agent.name} is not installed on the hub's machine.", hint=agent.install)
    if not request.message.strip() and not request.attachments:
        raise LapError("invalid_payload", "A session starts with a message (`message`) or files (`attachments`).")
    if len(request.message) > MAX_MESSAGE_CHARS:
        raise LapError("invalid_payload", f"The first message is limited to {MAX_MESSAGE_CHARS} characters.")
    if request.attachments is not None and len(request.attachments) > MAX_ATTACHMENTS:
        raise LapError("invalid_payload", f"At most {MAX_ATTACHMENTS} files can be attached.")
    await check_choice(catalogue, agent.key, "mode", request.mode)
    await check_choice(catalogue, agent.key, "model", request.model)
    project = check_folder(request.project, settings.roots)
    roots = resolved_roots(settings.roots)
    where = request.where
    folder = project
    worktree: dict[str, Any] | None = None
    base_ref: str | None = None
    known = await repository.checked(project, roots)  # no git runs where a .git leads out of the folder
    repo = known.pin.folder if known.pin is not None else None
    if isinstance(where, WhereNewWorktree):
        if repo is None:
            raise LapError("invalid_payload", f"{repository.refusal(project, known)}: a new worktree needs one.",
                           hint="Work in this folder instead, or pick a git project.")
        branch = where.branch.strip() if where.branch else None
        if branch is None:
            branch = branch_from(request.message or "session", set(await git.branches(repo, 10_000)))
        elif not await git.valid_branch_name(repo, branch):
            raise LapError("invalid_payload", f"{branch!r} is not a valid branch name.",
                           hint="Use letters, digits, -, _ and /; no spaces, `..`, `~`, `^`, `:`, `@` alone or a "
                                "leading -.")
        elif await git.branch_exists(repo, branch):
            raise LapError("conflict", f"The branch {branch!r} exists already.",
                           hint="Pick another name, or open its worktree (an existing worktree).")
        start = "HEAD"
        if where.from_:
            if not await git.valid_branch_name(repo, where.from_) or not await git.branch_exists(repo, where.from_):
                raise LapError("not_found", f"No branch {where.from_!r} in {repo.name}.",
                               hint="Pick one of GET /api/sessions/branches.")
            start = where.from_
        elif await git.head(repo) is None:
            raise LapError("invalid_payload", f"{repo.name} has no commit yet: a worktree needs one to start from.")
        base_ref = where.from_ or await git.current_branch(repo) or await git.head(repo)
        path = worktree_location(repo, branch)
        if not inside(repo.parent.resolve(), roots):
            raise LapError("forbidden", f"The new worktree would be at {path}, outside [sessions] roots.",
                           hint=f"Add {repo.parent} to [sessions] roots, or work in this folder.")
        if path.exists():
            raise LapError("conflict", f"{path} exists already.", hint="Pick another branch name.")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            await git.add_worktree(repo, path, branch, f"refs/heads/{start}" if where.from_ else start)
        except git.GitError as exc:
            raise LapError("conflict", f"git worktree add failed: {exc}",
                           hint=f"Nothing was left behind (the branch {branch!r} and the worktree were removed); "
                                "pick another branch name or start point.") from None
        folder = path.resolve()
        worktree = {"path": str(folder), "branch": branch, "created": True}
    elif isinstance(where, WhereWorktree):
        if repo is None:
            raise LapError("invalid_payload", f"{repository.refusal(project, known)}: it has no worktrees.",
                           hint="Work in this folder instead, or pick a git project.")
        path = check_folder(where.path, settings.roots, "where.path")
        listed = {Path(w.path).resolve(): w for w in await git.worktrees(repo) if not w.prunable}
        found = listed.get(path)
        if found is None:
            raise LapError("not_found", f"{where.path} is not a worktree of {repo.name}.",
                           hint="Pick one of GET /api/sessions/worktrees.")
        folder = path
        worktree = {"path": str(folder), "branch": found.branch, "created": False}
        main = next((w for w in listed.values() if w.main), None)
        base_ref = main.branch if main is not None and main.path != found.path else None
    if folder != project:  # a worktree: its own .git must name it back from a repository inside the roots
        known = await repository.checked(folder, roots)
        if known.pin is None:
            raise LapError("invalid_payload", f"{repository.refusal(folder, known)}: it cannot be worked in.",
                           hint="Pick one of GET /api/sessions/worktrees, or work in the project's folder.")
    pin = known.pin
    base_commit = await git.head(folder) if pin is not None else None
    session_id = new_id("ses")
    snapshot = None
    if pin is not None:
        try:
            with git.pinned(pin):
                snapshot = await git.snapshot(folder, scratch, f"refs/lineup/sessions/{session_id}", base_commit,
                                              f"LineUp session {session_id}: the folder when it started")
        except git.GitError:
            snapshot = None  # changes "since the start" then count from HEAD (docs/sessions.md)
    first_line = (request.message.strip().splitlines() or ["Files"])[0]
    title = (request.title or "").strip()[:200] or f"{agent.name} in {project.name}: {first_line[:80]}"
    payload: dict[str, Any] = {
        "sessionId": session_id, "conversationId": new_id("conv"), "agentKey": agent.key, "project": str(project),
        "folder": str(folder), "where": WHERE_KINDS[type(where)], "baseCommit": base_commit,
        "startSnapshot": snapshot, "title": title}
    if worktree is not None:
        payload["worktree"] = worktree
    if base_ref:
        payload["baseRef"] = base_ref
    if request.mode:
        payload["mode"] = request.mode
    if request.model:
        payload["model"] = request.model
    first: dict[str, Any] = {"content": request.message}
    if request.attachments:
        first["attachments"] = [{"fileId": a.fileId} for a in request.attachments]
    return payload, agent, first, known
