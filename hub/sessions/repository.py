"""Which git repository a session works in: judged when it starts, remembered, checked before the hub runs git there.

Anyone who could write in a folder (the agent, a clone, another program) can put a `.git` file there, and git would
follow it to any repository on the machine (Files changed would list that repository's files on the phone, and the
hub would write the folder's files and its refs into it). So a folder is taken as a repository only when its `.git`
leads into the folder itself, or it is a linked worktree of a repository inside the roots that names it back
(folders.own_git, read before any git runs, then git's own answer compared with it): at a session's start, in the
projects list, for its worktrees and branches. The hub remembers when the session starts whether its folder was such
a git working tree and which repository it belongs to (top level, git dir, common dir), in
`<data dir>/sessions/<sessionId>.git.json`, where the agent does not write. A folder that was no repository (or whose
`.git` led elsewhere) never has git run in it; one where git now finds another repository is refused, saying so;
otherwise the session's git calls run pinned to the remembered repository (git.pinned), so a `.git` file written in
between is not followed either. docs/sessions.md "Git, as the hub runs it".
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from hub.protocol.errors import LapError
from hub.sessions import git
from hub.sessions.folders import own_git, repository_top, resolved_roots
from hub.settings import SessionSettings
from hub.store.queries.records import SessionRecord

NOT_A_REPOSITORY_HINT = ("Files changed, diffs and commits work in git projects only: start the session in one (or "
                         "run `git init` in the folder and start a new session).")


@dataclass(frozen=True)
class Found:
    """The repository a folder belongs to (None: it is in none the hub may use) and, when its `.git` was not taken,
    why ("its .git leads to …, outside this folder")."""

    pin: git.Pin | None
    refused: str = ""


async def checked(folder: Path, roots: list[Path]) -> Found:
    """The repository `folder` belongs to, when the hub may run git there: the nearest `.git` from `folder` up inside
    the roots (folders.own_git: its git dir and common dir inside that folder, or a worktree of a repository inside
    the roots that names it back), and git, run there, finding exactly that repository. Git is not run at all for a
    folder in no repository, nor for one whose `.git` leads elsewhere."""
    top = repository_top(folder, roots)
    if top is None:
        return Found(None)
    own, refused = own_git(top, roots)
    if own is None:
        return Found(None, refused)
    found = await git.identity(folder)
    if found != git.Pin(top, own.git_dir, own.common_dir):
        elsewhere = found.git_dir if found is not None else "none"
        return Found(None, f"git finds another repository there ({elsewhere}) than its .git names")
    return Found(found)


def refusal(folder: Path, found: Found) -> str:
    """`<folder> is not a git repository` and, when its `.git` was not taken, why."""
    return f"{folder} is not a git repository" + (f" LineUp can use ({found.refused})" if found.refused else "")


def path_of(state_dir: Path, session_id: str) -> Path:
    return state_dir / f"{session_id}.git.json"


def remember(state_dir: Path, session_id: str, pin: git.Pin | None, refused: str = "") -> None:
    """Keep what the session's folder was at its start: no repository (None, and why its `.git` was not taken), or
    this one."""
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    data: dict[str, object] = {"repository": pin is not None}
    if pin is not None:
        data.update({"topLevel": str(pin.folder), "gitDir": str(pin.git_dir), "commonDir": str(pin.common_dir)})
    elif refused:
        data["refused"] = refused
    target = path_of(state_dir, session_id)
    temp = target.with_name(target.name + ".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(data))
    os.replace(temp, target)


def _recalled(state_dir: Path, session_id: str) -> Found | None:
    """What the folder was at the start, or None when nothing was kept (a session started before 2026-12)."""
    try:
        data = json.loads(path_of(state_dir, session_id).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    if not data.get("repository"):
        refused = data.get("refused")
        return Found(None, refused if isinstance(refused, str) else "")
    try:
        return Found(git.Pin(Path(data["topLevel"]), Path(data["gitDir"]), Path(data["commonDir"])))
    except (KeyError, TypeError):
        return None


async def verified(state_dir: Path, settings: SessionSettings, record: SessionRecord, folder: Path) -> git.Pin:
    """The repository the session's folder belongs to, as it was at the start; LapError when it was none, or when git
    now finds another one there."""
    kept = _recalled(state_dir, record.id)
    if kept is None:  # started before this was kept: judged from what its start stored, then kept from now on
        was_repository = bool(record.start_snapshot or record.base_commit or record.worktree)
        kept = await checked(folder, resolved_roots(settings.roots)) if was_repository else Found(None)
        if was_repository and kept.refused:
            raise LapError("conflict", f"git in this session's folder {folder} does not lead to a repository of its "
                                       f"own ({kept.refused}): the hub does not read it.", hint=CHANGED_HINT,
                           details={"reason": "repository_changed"})
        with contextlib.suppress(OSError):
            remember(state_dir, record.id, kept.pin, kept.refused)
    then = kept.pin
    if then is None:
        why = f" ({kept.refused})" if kept.refused else ""
        raise LapError("conflict", f"{folder} was not a git repository when this session started{why}: the hub "
                                   "shows changes, diffs and commits for git folders only.", hint=NOT_A_REPOSITORY_HINT)
    now = await git.identity(folder)
    if now is None:
        raise LapError("conflict", f"This session's folder {folder} is no longer a git repository.",
                       hint="Its .git was removed or broken. Restore it, or end this session and start a new one.")
    if now != then:
        raise _elsewhere(folder, now, then)
    return now


CHANGED_HINT = ("A .git file or folder there was changed after the session started. Restore it, or end this session "
                "and start a new one.")


def _elsewhere(folder: Path, now: git.Pin, then: git.Pin) -> LapError:
    return LapError("conflict", f"git in this session's folder {folder} now leads to the repository {now.git_dir}, "
                                f"not the one this session began in ({then.git_dir}): the hub does not read it.",
                    hint=CHANGED_HINT, details={"reason": "repository_changed"})
