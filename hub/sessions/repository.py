"""Which git repository a session works in: remembered when it starts, checked before the hub runs git there.

The agent can write a `.git` file into its folder, and git would follow it to any repository on the machine (Files
changed would list that repository's files on the phone, and the hub would write the folder's files into it). So
the hub remembers when the session starts whether its folder was a git working tree and which repository it
belongs to (top level, git dir, common dir), in `<data dir>/sessions/<sessionId>.git.json`, where the agent does not
write. A folder that was no repository never has git run in it; one where git now finds another repository is
refused, saying so; otherwise the session's git calls run pinned to the remembered repository (git.pinned), so a
`.git` file written in between is not followed either. docs/sessions.md "Git, as the hub runs it".
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from hub.protocol.errors import LapError
from hub.sessions import git
from hub.sessions.folders import inside, resolved_roots
from hub.settings import SessionSettings
from hub.store.queries.records import SessionRecord

NOT_A_REPOSITORY_HINT = ("Files changed, diffs and commits work in git projects only: start the session in one (or "
                         "run `git init` in the folder and start a new session).")


def path_of(state_dir: Path, session_id: str) -> Path:
    return state_dir / f"{session_id}.git.json"


def remember(state_dir: Path, session_id: str, pin: git.Pin | None) -> None:
    """Keep what the session's folder was at its start: no repository (None), or this one."""
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    data: dict[str, object] = {"repository": pin is not None}
    if pin is not None:
        data.update({"topLevel": str(pin.folder), "gitDir": str(pin.git_dir), "commonDir": str(pin.common_dir)})
    target = path_of(state_dir, session_id)
    temp = target.with_name(target.name + ".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(data))
    os.replace(temp, target)


def _recalled(state_dir: Path, session_id: str) -> tuple[bool, git.Pin | None] | None:
    """(it was a repository, which one), or None when nothing was kept (a session started before 2026-12)."""
    try:
        data = json.loads(path_of(state_dir, session_id).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    if not data.get("repository"):
        return False, None
    try:
        return True, git.Pin(Path(data["topLevel"]), Path(data["gitDir"]), Path(data["commonDir"]))
    except (KeyError, TypeError):
        return None


async def verified(state_dir: Path, settings: SessionSettings, record: SessionRecord, folder: Path) -> git.Pin:
    """The repository the session's folder belongs to, as it was at the start; LapError when it was none, or when git
    now finds another one there."""
    kept = _recalled(state_dir, record.id)
    if kept is None:  # started before this was kept: judged from what its start stored, then kept from now on
        was_repository = bool(record.start_snapshot or record.base_commit or record.worktree)
        found = await git.identity(folder) if was_repository else None
        roots = resolved_roots(settings.roots)
        if found is not None and not (inside(found.git_dir, roots) and inside(found.common_dir, roots)):
            raise _elsewhere(folder, found, None)
        with contextlib.suppress(OSError):
            remember(state_dir, record.id, found)
        kept = (found is not None, found)
    was_repository, then = kept
    if not was_repository or then is None:
        raise LapError("conflict", f"{folder} was not a git repository when this session started: the hub shows "
                                   "changes, diffs and commits for git folders only.", hint=NOT_A_REPOSITORY_HINT)
    now = await git.identity(folder)
    if now is None:
        raise LapError("conflict", f"This session's folder {folder} is no longer a git repository.",
                       hint="Its .git was removed or broken. Restore it, or end this session and start a new one.")
    if now != then:
        raise _elsewhere(folder, now, then)
    return now


def _elsewhere(folder: Path, now: git.Pin, then: git.Pin | None) -> LapError:
    began = f", not the one this session began in ({then.git_dir})" if then is not None else \
        ", outside the folders sessions may use"
    return LapError("conflict", f"git in this session's folder {folder} now leads to the repository {now.git_dir}"
                                f"{began}: the hub does not read it.",
                    hint="A .git file or folder there was changed after the session started. Restore it, or end this "
                         "session and start a new one.", details={"reason": "repository_changed"})
